import assert from "node:assert/strict";
import { mock, test } from "node:test";
import {
  debounce,
  findLinkAll,
  linesOf,
  linkAllLabel,
  mentionRow,
  mentionsTitle,
  noteName,
  relatedMessage,
  relatedRow,
  scoreText,
  wikilink,
} from "../related";
import { MentionAnswerJson, RelatedNoteAnswerJson } from "../wire";

function related(overrides: Partial<RelatedNoteAnswerJson> = {}): RelatedNoteAnswerJson {
  return {
    uri: "file:///vault/search/inverted-index.md",
    path: "search/inverted-index.md",
    title: "Inverted index",
    score: 0.8234,
    linked: false,
    reason: "“Why IDF?” ↔ “Inverted index › Postings” (0.71); shared tags #search",
    closest: { mine: ["BM25", "Why IDF?"], mine_line: 23, theirs: ["Inverted index", "Postings"], theirs_line: 8, similarity: 0.71 },
    shared_tags: ["search"],
    link: "inverted-index",
    ...overrides,
  };
}

test("a related note: title, path, reason and score, the link it inserts", () => {
  const row = relatedRow(related());
  assert.equal(row.label, "Inverted index");
  assert.equal(row.description, "search/inverted-index.md");
  assert.equal(row.detail, "“Why IDF?” ↔ “Inverted index › Postings” (0.71); shared tags #search · 0.82");
  assert.equal(row.treeDescription, "0.82");
  assert.equal(row.tooltip, "“Why IDF?” ↔ “Inverted index › Postings” (0.71); shared tags #search\nsearch/inverted-index.md");
  assert.equal(row.uri, "file:///vault/search/inverted-index.md");
  assert.equal(row.wikilink, "[[inverted-index]]");
});

test("a linked note says so; no title falls back to the path, no reason to the score alone", () => {
  const row = relatedRow(related({ linked: true, title: "", reason: "", link: "search/ideas" }));
  assert.equal(row.label, "search/inverted-index.md");
  assert.equal(row.description, "search/inverted-index.md · linked");
  assert.equal(row.detail, "0.82");
  assert.equal(row.treeDescription, "0.82 · linked");
  assert.equal(row.tooltip, "search/inverted-index.md");
  assert.equal(row.wikilink, "[[search/ideas]]");
});

test("scores have two decimals; a wikilink wraps the server's text as is", () => {
  assert.equal(scoreText(1), "1.00");
  assert.equal(scoreText(0.005), "0.01");
  assert.equal(wikilink("成都美食"), "[[成都美食]]");
});

test("the view's message: none when there are rows, else the server's warning or a plain one", () => {
  const asked = { note: "file:///vault/search/bm25.md", path: "search/bm25.md" };
  assert.equal(relatedMessage({ ...asked, results: [related()] }), undefined);
  assert.equal(relatedMessage({ ...asked, results: [related()], warning: "3 chunks waiting" }), undefined);
  assert.equal(
    relatedMessage({ ...asked, results: [], warning: "related notes need vectors (embedder = none)" }),
    "related notes need vectors (embedder = none)",
  );
  assert.equal(relatedMessage({ ...asked, results: [] }), "No notes are close to this one in meaning.");
  assert.equal(relatedMessage(null), "This note is in no open vault.");
});

function mention(overrides: Partial<MentionAnswerJson> = {}): MentionAnswerJson {
  return {
    uri: "file:///vault/search/bm25.md",
    path: "search/bm25.md",
    range: { start: { line: 11, character: 36 }, end: { line: 11, character: 43 } },
    text: "tantivy",
    targets: ["search/tantivy.md"],
    ...overrides,
  };
}

test("a mention: the text as written, path:line (1-based), the line as the file has it", () => {
  const row = mentionRow(mention(), "Lucene's defaults are k1 = 1.2 and b = 0.75;   tantivy uses the same values.");
  assert.equal(row.label, "tantivy");
  assert.equal(row.description, "search/bm25.md:12");
  assert.equal(row.detail, "Lucene's defaults are k1 = 1.2 and b = 0.75; tantivy uses the same values.");
  assert.deepEqual(row.range, mention().range);
  assert.equal(row.uri, "file:///vault/search/bm25.md");
});

test("a mention without its line names its target; a shared name names every note", () => {
  assert.equal(mentionRow(mention()).detail, "→ search/tantivy.md");
  const shared = mention({ text: "ideas", targets: ["cooking/ideas.md", "travel/ideas.md"] });
  assert.equal(mentionRow(shared).detail, "shared by cooking/ideas.md, travel/ideas.md");
  assert.equal(mentionRow(shared, "more ideas").detail, "more ideas · shared by cooking/ideas.md, travel/ideas.md");
});

test("Link all: its label, and found among the code actions by its title", () => {
  assert.equal(linkAllLabel(1), "Link all 1 unlinked mention");
  assert.equal(linkAllLabel(3), "Link all 3 unlinked mentions");
  const actions = [{ title: "Create note" }, { title: "Link all 3 unlinked mentions of tantivy", id: 2 }];
  assert.deepEqual(findLinkAll(actions), { title: "Link all 3 unlinked mentions of tantivy", id: 2 });
  assert.equal(findLinkAll([{ title: "Link “tantivy” to [[tantivy]]" }]), undefined);
});

test("the mentions picker's title counts what is listed and what is left out", () => {
  const note = "file:///vault/search/tantivy.md";
  assert.equal(mentionsTitle({ note, path: "search/tantivy.md", mentions: [mention()], left_out: 0 }, "tantivy"), "Unlinked mentions of tantivy: 1");
  assert.equal(
    mentionsTitle({ note, path: "search/tantivy.md", mentions: [mention(), mention()], left_out: 5 }, "tantivy"),
    "Unlinked mentions of tantivy: 2 (5 more not listed)",
  );
});

test("a note's name from its URI: decoded, without .md", () => {
  assert.equal(noteName("file:///vault/search/tantivy.md"), "tantivy");
  assert.equal(noteName("file:///vault/travel/%E6%88%90%E9%83%BD%E7%BE%8E%E9%A3%9F.md"), "成都美食");
  assert.equal(noteName("file:///vault/search/query%20understanding.md"), "query understanding");
  assert.equal(noteName("file:///vault/bad%E0.md"), "bad%E0");
});

test("linesOf: the lines asked for, whatever the line ends, none past the end", () => {
  const lines = linesOf("a\r\nb\nc\rd", new Set([0, 1, 3, 9]));
  assert.deepEqual([...lines.entries()], [[0, "a"], [1, "b"], [3, "d"]]);
});

test("debounce: one call after the last of a burst; cancel drops it", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    let calls = 0;
    const run = debounce(() => (calls += 1), 100);
    run();
    mock.timers.tick(60);
    run();
    mock.timers.tick(60);
    assert.equal(calls, 0);
    mock.timers.tick(40);
    assert.equal(calls, 1);
    run();
    run.cancel();
    mock.timers.tick(200);
    assert.equal(calls, 1);
  } finally {
    mock.timers.reset();
  }
});
