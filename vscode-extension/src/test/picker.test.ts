import assert from "node:assert/strict";
import { test } from "node:test";
import { linkItems, linkText, rootUri, searchItem, snippet } from "../picker";
import { LinksAnswerJson, VaultLinkJson, VaultSearchResultJson } from "../wire";

function result(overrides: Partial<VaultSearchResultJson> = {}): VaultSearchResultJson {
  return {
    path: "search/tantivy.md",
    uri: "file:///vault/search/tantivy.md",
    root: "file:///vault",
    start_line: 5,
    end_line: 12,
    title: "Tantivy",
    heading: "From Python",
    breadcrumb: ["Tantivy", "From Python"],
    date: null,
    score: 0.031,
    keyword_score: 9.1,
    keyword_rank: 1,
    vector_score: null,
    vector_rank: null,
    matched_terms: ["tantivy"],
    source: "hit",
    chunk_id: "c0ffee",
    text: "Tantivy  is a\n\nfull-text search engine\tlibrary.",
    outlinks: [],
    inlinks: [],
    other_sections: [],
    ...overrides,
  };
}

test("label, description, detail, alwaysShow and 0-based range", () => {
  const item = searchItem(result());
  assert.equal(item.label, "Tantivy › From Python");
  assert.equal(item.description, "search/tantivy.md:5-12  $(search) keyword");
  assert.equal(item.detail, "Tantivy is a full-text search engine library.");
  assert.equal(item.alwaysShow, true);
  assert.deepEqual(item.target, { uri: "file:///vault/search/tantivy.md", startLine: 4, endLine: 11 });
});

test("badges: semantic only, both, none", () => {
  assert.equal(searchItem(result({ keyword_rank: null, vector_rank: 3 })).description, "search/tantivy.md:5-12  $(sparkle) semantic");
  assert.equal(
    searchItem(result({ keyword_rank: 2, vector_rank: 1 })).description,
    "search/tantivy.md:5-12  $(search) keyword  $(sparkle) semantic",
  );
  assert.equal(searchItem(result({ keyword_rank: null })).description, "search/tantivy.md:5-12");
});

test("a chunk without its own heading is labelled by the title (or the path)", () => {
  assert.equal(searchItem(result({ heading: "" })).label, "Tantivy");
  assert.equal(searchItem(result({ heading: "Tantivy" })).label, "Tantivy");
  assert.equal(searchItem(result({ heading: "", title: "" })).label, "search/tantivy.md");
});

test("detail leaves out the chunk's heading line, which the label shows", () => {
  const item = searchItem(result({ text: "## From Python\n\nInstall it with pip.\n# not a heading here" }));
  assert.equal(item.detail, "Install it with pip. # not a heading here");
});

test("detail is one line of at most 120 characters", () => {
  const long = "word ".repeat(100);
  const detail = searchItem(result({ text: long })).detail;
  assert.ok(detail.length <= 120, `${detail.length}`);
  assert.ok(detail.endsWith("…"));
  assert.ok(!/\s{2,}|\n/.test(detail));
  assert.equal(snippet("  a \n b  "), "a b");
  assert.equal(snippet("x".repeat(120)), "x".repeat(120));
});

test("a range at line 1 stays at 0", () => {
  assert.deepEqual(searchItem(result({ start_line: 1, end_line: 1 })).target, { uri: "file:///vault/search/tantivy.md", startLine: 0, endLine: 0 });
});

function link(overrides: Partial<VaultLinkJson>): VaultLinkJson {
  return {
    source: "search/hybrid.md",
    target: "bm25",
    anchor: "",
    kind: "wiki",
    embed: false,
    status: "resolved",
    targets: ["search/bm25.md"],
    candidates: [],
    uri: "file:///vault/search/hybrid.md",
    range: { start: { line: 7, character: 2 }, end: { line: 7, character: 10 } },
    ...overrides,
  };
}

test("rootUri strips the note's vault-relative path", () => {
  assert.equal(rootUri("file:///home/me/My%20Vault/search/hybrid.md", "search/hybrid.md"), "file:///home/me/My%20Vault");
  assert.equal(rootUri("file:///v/a.md", "a.md"), "file:///v");
});

test("links: outlinks open their target, inlinks open the linking note at the link", () => {
  const response: LinksAnswerJson = {
    uri: "file:///vault/search/hybrid.md",
    path: "search/hybrid.md",
    outlinks: [link({ anchor: "k1 default" }), link({ targets: [], status: "missing" })],
    inlinks: [link({ source: "index.md", uri: "file:///vault/index.md", target: "hybrid", targets: ["search/hybrid.md"] })],
    unresolved: [],
    ambiguous: [link({ target: "ideas", targets: [], candidates: ["travel/ideas.md", "cooking/ideas.md"], status: "ambiguous" })],
  };
  const { outlinks, inlinks } = linkItems(response);
  assert.equal(outlinks.length, 2);
  assert.equal(outlinks[0]?.label, "$(arrow-right) search/bm25.md");
  assert.equal(outlinks[0]?.description, "[[bm25#k1 default]]");
  assert.deepEqual(outlinks[0]?.target, { uri: "file:///vault/search/bm25.md", startLine: 0, endLine: 0 });
  assert.equal(outlinks[1]?.description, "[[ideas]] (2 targets)");
  assert.equal(outlinks[1]?.target.uri, "file:///vault/travel/ideas.md");
  assert.equal(inlinks.length, 1);
  assert.equal(inlinks[0]?.label, "$(arrow-left) index.md");
  assert.deepEqual(inlinks[0]?.target, { uri: "file:///vault/index.md", startLine: 7, endLine: 7 });
  assert.ok([...outlinks, ...inlinks].every((item) => item.alwaysShow));
});

test("in a multi-root workspace the description names the result's folder", () => {
  const item = searchItem(result(), "vault-beta");
  assert.equal(item.description, "vault-beta/search/tantivy.md:5-12  $(search) keyword");
});

test("linkText: a Markdown link is shown as one, a wikilink as one", () => {
  const base = { source: "a.md", status: "resolved", targets: ["b.md"], candidates: [], uri: "file:///v/a.md", range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } };
  assert.equal(linkText({ ...base, target: "bm25.md", anchor: "why-idf", kind: "markdown", embed: false } as VaultLinkJson), "](bm25.md#why-idf)");
  assert.equal(linkText({ ...base, target: "bm25", anchor: "", kind: "wiki", embed: true } as VaultLinkJson), "![[bm25]]");
});
