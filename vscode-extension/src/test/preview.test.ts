import assert from "node:assert/strict";
import { test } from "node:test";
import MarkdownIt from "markdown-it";
import {
  AnswerSource,
  PreviewAnswers,
  documentUri,
  encodePath,
  escapeHtml,
  headingSlug,
  linkHref,
  linkView,
  parseWikilink,
  relativePath,
  scanWikilink,
  wikilinkPlugin,
} from "../preview";
import { LinksAnswerJson, VaultLinkJson } from "../wire";

const NOTE_URI = "file:///home/me/vault/index.md";

function outlink(target: string, anchor: string, status: string, targets: string[], extra: Partial<VaultLinkJson> = {}): VaultLinkJson {
  return {
    source: "index.md",
    target,
    anchor,
    kind: "wiki",
    embed: false,
    status,
    targets,
    candidates: [],
    uri: NOTE_URI,
    range: { start: { line: 13, character: 10 }, end: { line: 13, character: 18 } },
    ...extra,
  };
}

// index.md of fixtures/vault as the server answers for it (a part of it).
const ANSWER: LinksAnswerJson = {
  uri: NOTE_URI,
  path: "index.md",
  outlinks: [
    outlink("bm25", "", "resolved", ["search/bm25.md"]),
    outlink("hybrid-search", "", "resolved", ["search/hybrid-search.md"]),
    outlink("向量检索", "向量检索：ANN 算法", "resolved", ["search/向量检索.md"]),
    outlink("hybrid-search", "Fusion#Reciprocal Rank Fusion", "resolved", ["search/hybrid-search.md"]),
    outlink("bm25", "^k1-default", "resolved", ["search/bm25.md"]),
    outlink("ideas", "", "ambiguous", ["travel/ideas.md"], { candidates: ["cooking/ideas.md", "travel/ideas.md"] }),
    outlink("retrieval-pipeline.png", "", "resolved", ["assets/retrieval-pipeline.png"], { embed: true }),
    outlink("search/query understanding.md", "", "resolved", ["search/query understanding.md"], { kind: "markdown" }),
    outlink("", "Notes on notes", "resolved", ["index.md"]),
    outlink("Second Brain", "", "resolved", ["pkm/building-a-second-brain.md", "pkm/知识管理.md"]),
    outlink("Chengdu food", "", "resolved", ["travel/成都美食.md"]),
    outlink("Learning to Rank", "", "unresolved", []),
  ],
  inlinks: [],
  unresolved: [],
  ambiguous: [],
};

const view = (inner: string, answer: LinksAnswerJson | null | undefined = ANSWER, embed = false) =>
  linkView(parseWikilink(inner, embed), answer);

test("parseWikilink: target, anchor and shown text split as the server splits them", () => {
  assert.deepEqual(parseWikilink("hybrid-search|混合检索", false), {
    target: "hybrid-search",
    anchor: "",
    headings: [],
    block: undefined,
    text: "混合检索",
    embed: false,
  });
  const nested = parseWikilink(" hybrid-search # Fusion #Reciprocal Rank Fusion ", false);
  assert.equal(nested.target, "hybrid-search");
  assert.equal(nested.anchor, "Fusion#Reciprocal Rank Fusion");
  assert.equal(nested.text, "hybrid-search # Fusion #Reciprocal Rank Fusion", "as written, without the outer spaces");
  assert.deepEqual(parseWikilink("bm25#^k1-default", false).block, "k1-default");
  assert.equal(parseWikilink("bm25#^k1-default", false).anchor, "^k1-default");
  assert.equal(parseWikilink("#Notes on notes", false).target, "");
  assert.equal(parseWikilink("note#", false).anchor, "", "an empty anchor is none");
  assert.equal(parseWikilink("note#^", false).anchor, "");
  // In a table Obsidian writes the pipe as \|.
  const table = parseWikilink("mapo-tofu\\|麻婆豆腐", false);
  assert.equal(table.target, "mapo-tofu");
  assert.equal(table.text, "麻婆豆腐");
  assert.equal(parseWikilink("note|", false).text, "note", "an empty label shows the target");
});

test("scanWikilink: only at [[ or ![[, no brackets or line break inside, ending by max", () => {
  const line = "see ![[reading-list]] and [[a|b]]";
  assert.deepEqual(scanWikilink(line, 4)?.end, 21);
  assert.equal(scanWikilink(line, 4)?.link.embed, true);
  assert.equal(scanWikilink(line, 26)?.link.target, "a");
  assert.equal(scanWikilink(line, 0), undefined);
  assert.equal(scanWikilink("[[a\nb]]", 0), undefined);
  assert.equal(scanWikilink("[[a [b] c]]", 0), undefined);
  assert.equal(scanWikilink("[[]]", 0), undefined);
  assert.equal(scanWikilink("[[note]]", 0, 6), undefined, "past the end of a link's text");
});

test("headingSlug: VS Code's heading ids (values from its slugifier, VS Code 1.139)", () => {
  assert.equal(headingSlug("Reciprocal Rank Fusion"), "reciprocal-rank-fusion");
  assert.equal(headingSlug("向量检索：ANN 算法"), "向量检索ann-算法");
  assert.equal(headingSlug("Scoring: k1 & b (saturation)"), "scoring-k1--b-saturation");
  assert.equal(headingSlug("HNSW（分层可导航小世界图）"), "hnsw分层可导航小世界图");
  assert.equal(headingSlug("  Why IDF?  "), "why-idf");
  assert.equal(headingSlug("C++ / C# notes"), "c--c-notes");
  assert.equal(headingSlug("Ünïcödé Ĥeading"), "ünïcödé-ĥeading");
  assert.equal(headingSlug("snake_case and kebab-case"), "snake_case-and-kebab-case");
  assert.equal(headingSlug("tab\there"), "tabhere");
  assert.equal(headingSlug("Émile—Zola"), "émilezola");
  assert.equal(headingSlug("① circled ²"), "-circled-");
  assert.equal(headingSlug("100% done!"), "100-done");
});

test("relativePath and encodePath: from the note's folder, each name percent-encoded", () => {
  assert.equal(relativePath("index.md", "search/bm25.md"), "search/bm25.md");
  assert.equal(relativePath("search/hybrid-search.md", "search/bm25.md"), "bm25.md");
  assert.equal(relativePath("search/hybrid-search.md", "index.md"), "../index.md");
  assert.equal(relativePath("a/b/c.md", "a/d/e.md"), "../d/e.md");
  assert.equal(relativePath("a/b.md", "a/b.md"), "b.md");
  assert.equal(relativePath("a/b.md", "a/b/c.md"), "b/c.md", "a folder named like the note");
  assert.equal(encodePath("../search/query understanding.md"), "../search/query%20understanding.md");
  assert.equal(encodePath("search/向量检索.md"), "search/%E5%90%91%E9%87%8F%E6%A3%80%E7%B4%A2.md");
  // Nothing in a name can start a scheme, a query or a fragment.
  assert.equal(encodePath("c:#1?.md"), "c%3A%231%3F.md");
  assert.equal(encodePath("100%.md"), "100%25.md");
});

test("linkHref: the file and the heading's slug; a heading of the note itself is a fragment", () => {
  const link = parseWikilink("hybrid-search#Fusion#Reciprocal Rank Fusion", false);
  assert.equal(linkHref("index.md", "search/hybrid-search.md", link), "search/hybrid-search.md#reciprocal-rank-fusion");
  assert.equal(
    linkHref("index.md", "search/向量检索.md", parseWikilink("向量检索#向量检索：ANN 算法", false)),
    "search/%E5%90%91%E9%87%8F%E6%A3%80%E7%B4%A2.md#%E5%90%91%E9%87%8F%E6%A3%80%E7%B4%A2ann-%E7%AE%97%E6%B3%95",
  );
  assert.equal(linkHref("index.md", "index.md", parseWikilink("#Notes on notes", false)), "#notes-on-notes");
  // A block id is no heading VS Code knows: the file alone.
  assert.equal(linkHref("index.md", "search/bm25.md", parseWikilink("bm25#^k1-default", false)), "search/bm25.md");
  assert.equal(linkHref("daily/2024-03-01.md", "search/bm25.md", parseWikilink("bm25", false)), "../search/bm25.md");
});

test("linkView: from the server's answer; ambiguous opens the first; unresolved has no href", () => {
  assert.deepEqual(view("hybrid-search|混合检索"), {
    href: "search/hybrid-search.md",
    classes: ["memlsp-wikilink"],
    title: "search/hybrid-search.md",
  });
  assert.deepEqual(view("hybrid-search#Fusion#Reciprocal Rank Fusion"), {
    href: "search/hybrid-search.md#reciprocal-rank-fusion",
    classes: ["memlsp-wikilink"],
    title: "search/hybrid-search.md › Fusion › Reciprocal Rank Fusion",
  });
  assert.deepEqual(view("ideas"), {
    href: "travel/ideas.md",
    classes: ["memlsp-wikilink", "memlsp-ambiguous"],
    title: "ambiguous: opens travel/ideas.md; also cooking/ideas.md",
  });
  assert.equal(view("Second Brain").title, "pkm/building-a-second-brain.md (also pkm/知识管理.md)");
  assert.equal(view("Chengdu food").href, "travel/%E6%88%90%E9%83%BD%E7%BE%8E%E9%A3%9F.md", "resolved by the server (an alias)");
  assert.deepEqual(view("Learning to Rank"), {
    classes: ["memlsp-wikilink", "memlsp-unresolved"],
    title: "not found: Learning to Rank",
  });
  assert.deepEqual(view("retrieval-pipeline.png", ANSWER, true), {
    href: "assets/retrieval-pipeline.png",
    classes: ["memlsp-wikilink", "memlsp-embed"],
    title: "assets/retrieval-pipeline.png",
  });
  // The same target with an anchor the server has not seen yet (just typed): its resolution.
  assert.equal(view("bm25#Why IDF?").href, "search/bm25.md#why-idf");
  // A Markdown link to the same text is not a wikilink's answer.
  assert.equal(view("search/query understanding.md").href, undefined);
});

test("linkView: no answer yet, none coming, or a link the server has not read", () => {
  assert.deepEqual(linkView(parseWikilink("bm25", false), undefined), {
    classes: ["memlsp-wikilink", "memlsp-pending"],
    title: "memlsp: looking up bm25",
  });
  assert.deepEqual(view("bm25", null), { classes: ["memlsp-wikilink"], title: "memlsp: this note is in no open vault" });
  const typed = view("new-note#Part");
  assert.equal(typed.href, undefined);
  assert.deepEqual(typed.classes, ["memlsp-wikilink", "memlsp-pending"]);
});

test("escapeHtml: markup from a note stays text", () => {
  assert.equal(escapeHtml(`<img src=x onerror="a('&')">`), "&lt;img src=x onerror=&quot;a(&#39;&amp;&#39;)&quot;&gt;");
});

function preview(answer: LinksAnswerJson | null | undefined = ANSWER): { md: MarkdownIt; asked: string[] } {
  const asked: string[] = [];
  const md = wikilinkPlugin(new MarkdownIt({ html: true, linkify: true }), (uri) => {
    asked.push(uri);
    return answer;
  });
  return { md, asked };
}

const env = { currentDocument: { toString: () => NOTE_URI } };

test("plugin: wikilinks render as links with the server's targets; other links as before", () => {
  const { md, asked } = preview();
  const html = md.render(
    "- Re-read [[bm25]] and compare it with [[hybrid-search|混合检索]].\n" +
      "- RRF: [[hybrid-search#Fusion#Reciprocal Rank Fusion]]; see [[#Notes on notes]].\n\n" +
      "![[retrieval-pipeline.png]]\n\n" +
      "[Query understanding](search/query%20understanding.md) and [[Learning to Rank]].\n",
    env,
  );
  assert.ok(asked.every((uri) => uri === NOTE_URI) && asked.length === 6, `asked for ${asked}`);
  const links = [...html.matchAll(/<a [^>]*>[^<]*<\/a>/g)].map((m) => m[0]);
  assert.deepEqual(links, [
    '<a class="memlsp-wikilink" title="search/bm25.md" href="search/bm25.md" data-href="search/bm25.md">bm25</a>',
    '<a class="memlsp-wikilink" title="search/hybrid-search.md" href="search/hybrid-search.md" data-href="search/hybrid-search.md">混合检索</a>',
    '<a class="memlsp-wikilink" title="search/hybrid-search.md › Fusion › Reciprocal Rank Fusion" ' +
      'href="search/hybrid-search.md#reciprocal-rank-fusion" data-href="search/hybrid-search.md#reciprocal-rank-fusion">' +
      "hybrid-search#Fusion#Reciprocal Rank Fusion</a>",
    '<a class="memlsp-wikilink" title="index.md › Notes on notes" href="#notes-on-notes" data-href="#notes-on-notes">#Notes on notes</a>',
    '<a class="memlsp-wikilink memlsp-embed" title="assets/retrieval-pipeline.png" href="assets/retrieval-pipeline.png" ' +
      'data-href="assets/retrieval-pipeline.png">retrieval-pipeline.png</a>',
    '<a href="search/query%20understanding.md">Query understanding</a>',
    '<a class="memlsp-wikilink memlsp-unresolved" title="not found: Learning to Rank">Learning to Rank</a>',
  ]);
  assert.ok(!html.includes("[["), html);
});

test("plugin: nothing from the note becomes markup, in the text or the attributes", () => {
  const hostile: LinksAnswerJson = {
    ...ANSWER,
    outlinks: [outlink('x"><script>', "", "resolved", ['x"><script>.md'])],
  };
  const { md } = preview(hostile);
  const html = md.render('[[x"><script>|<b onclick="alert(1)">hi</b>]] and [[<img src=x>]]\n', env);
  assert.ok(!/<script|<b |<img/.test(html), html);
  assert.ok(html.includes('href="x%22%3E%3Cscript%3E.md"'), html);
  assert.ok(html.includes("&lt;b onclick=&quot;alert(1)&quot;&gt;hi&lt;/b&gt;"), html);
});

test("plugin: not in code, not when escaped, never a link in a link; tables and headings", () => {
  const { md } = preview();
  const code = md.render("`[[bm25]]`\n\n```\n[[bm25]]\n```\n", env);
  assert.ok(!code.includes("<a "), code);
  assert.ok(!md.render("\\[[bm25]]\n", env).includes("<a "));
  // As with a link inside a link's text in CommonMark, the inner one wins: the outer is text.
  const inner = md.render("[see [[bm25]] here](search/bm25.md)\n", env);
  assert.equal((inner.match(/<a /g) ?? []).length, 1, inner);
  assert.ok(inner.includes(">bm25</a> here](search/bm25.md)"), inner);
  // Inside an HTML link only the text is shown.
  const html = md.render('<a href="https://example.com">see [[bm25|BM25]]</a>\n', env);
  assert.equal((html.match(/<a /g) ?? []).length, 1, html);
  assert.ok(html.includes("see BM25</a>"), html);
  const table = md.render("| dish |\n| --- |\n| [[mapo-tofu\\|麻婆豆腐]] |\n", env);
  assert.ok(table.includes("memlsp-pending") && table.includes(">麻婆豆腐</a>"), table);
  // A heading's text (and so its id in VS Code) is the link's text.
  const heading = new MarkdownIt().use((m) => wikilinkPlugin(m, () => ANSWER)).parse("## About [[bm25|BM25]]\n", env);
  const inline = heading.find((token) => token.type === "inline");
  assert.deepEqual(
    inline?.children?.filter((t) => t.type === "text").map((t) => t.content),
    ["About ", "BM25"],
  );
  // A URL as a note name is not linkified inside the wikilink.
  const url = md.render("[[www.example.com]]\n", env);
  assert.equal((url.match(/<a /g) ?? []).length, 1, url);
});

test("plugin: no current document (a string rendered) shows no href; the env as VS Code passes it", () => {
  const { md, asked } = preview();
  const html = md.render("[[bm25]]\n");
  assert.ok(html.includes('<a class="memlsp-wikilink" title="memlsp: this note is in no open vault">bm25</a>'), html);
  assert.deepEqual(asked, []);
  assert.equal(documentUri({ currentDocument: { toString: () => NOTE_URI } }), NOTE_URI);
  assert.equal(documentUri({}), undefined);
  assert.equal(documentUri(undefined), undefined);
});

// --- PreviewAnswers ---------------------------------------------------------------------------

function source(answers: (LinksAnswerJson | null | undefined | Error)[]) {
  const calls: string[] = [];
  let refreshes = 0;
  let version: number | undefined = 1;
  const pending: ((value: void) => void)[] = [];
  let hold = false;
  const deps: AnswerSource = {
    fetch: async (uri) => {
      calls.push(uri);
      if (hold) {
        await new Promise<void>((resolve) => pending.push(resolve));
      }
      const next = answers.length > 1 ? answers.shift() : answers[0];
      if (next instanceof Error) {
        throw next;
      }
      return next;
    },
    version: () => version,
    refresh: () => {
      refreshes += 1;
    },
  };
  return {
    deps,
    calls,
    refreshes: () => refreshes,
    setVersion: (v: number | undefined) => {
      version = v;
    },
    hold: (on: boolean) => {
      hold = on;
      if (!on) {
        pending.splice(0).forEach((resolve) => resolve());
      }
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

test("PreviewAnswers: asks once, refreshes when the answer arrives, not again while current", async () => {
  const s = source([ANSWER]);
  const answers = new PreviewAnswers(s.deps, 8, 0);
  assert.equal(answers.get(NOTE_URI), undefined, "nothing known yet");
  assert.equal(answers.get(NOTE_URI), undefined);
  await settle();
  assert.deepEqual(s.calls, [NOTE_URI], "one request for two renders");
  assert.equal(s.refreshes(), 1);
  assert.equal(answers.get(NOTE_URI), ANSWER);
  await settle();
  assert.equal(s.calls.length, 1, "the refresh's render asks nothing");
  assert.equal(s.refreshes(), 1);
  answers.dispose();
});

test("PreviewAnswers: a stale answer is shown while a newer one is asked for; refresh only on a change", async () => {
  const moved: LinksAnswerJson = {
    ...ANSWER,
    outlinks: ANSWER.outlinks.map((o) => ({ ...o, range: { start: { line: 20, character: 0 }, end: { line: 20, character: 5 } } })),
  };
  const renamed: LinksAnswerJson = { ...ANSWER, outlinks: [outlink("bm25", "", "resolved", ["search/okapi-bm25.md"])] };
  const s = source([ANSWER, moved, renamed]);
  const answers = new PreviewAnswers(s.deps, 8, 0);
  answers.get(NOTE_URI);
  await settle();
  s.setVersion(2); // the document was edited
  assert.equal(answers.get(NOTE_URI), ANSWER, "the last answer until the new one arrives");
  await settle();
  assert.equal(s.calls.length, 2);
  assert.equal(s.refreshes(), 1, "only the ranges moved: the preview shows the same");
  answers.reloadAll(); // memlsp/changed
  await settle();
  assert.equal(s.calls.length, 3);
  assert.equal(s.refreshes(), 2);
  assert.equal(answers.get(NOTE_URI), renamed);
  answers.dispose();
});

test("PreviewAnswers: a request asked again while one is under way is sent once more after it", async () => {
  const s = source([ANSWER]);
  const answers = new PreviewAnswers(s.deps, 8, 0);
  s.hold(true);
  answers.get(NOTE_URI);
  answers.documentChanged(NOTE_URI);
  answers.reloadAll();
  await settle();
  assert.equal(s.calls.length, 1);
  s.hold(false);
  await settle();
  await settle();
  assert.equal(s.calls.length, 2, "once more, not once per ask");
  answers.dispose();
});

test("PreviewAnswers: no server, an error, a note in no vault; only file: documents; a bounded cache", async () => {
  const s = source([undefined, new Error("stopped"), null]);
  const answers = new PreviewAnswers(s.deps, 2, 0);
  assert.equal(answers.get(NOTE_URI), undefined);
  await settle();
  assert.equal(s.refreshes(), 0, "no server: nothing to show anew");
  assert.equal(answers.get(NOTE_URI), undefined);
  await settle();
  assert.equal(s.calls.length, 1, "not asked again on each render: memlsp/indexed reloads");
  answers.reloadAll();
  await settle();
  assert.equal(s.calls.length, 2);
  answers.reloadAll();
  await settle();
  assert.equal(answers.get(NOTE_URI), null, "the note is in no open vault");
  assert.equal(s.refreshes(), 1);
  assert.equal(answers.get("untitled:Untitled-1"), null);
  assert.equal(answers.get("git:/home/me/vault/index.md?ref"), null);
  answers.get("file:///a.md");
  answers.get("file:///b.md");
  await settle();
  const before = s.calls.length;
  answers.reloadAll();
  await settle();
  assert.deepEqual(s.calls.slice(before), ["file:///a.md", "file:///b.md"], "the oldest was let go");
  answers.documentChanged("file:///elsewhere.md");
  await settle();
  assert.equal(s.calls.length, before + 2, "a document the preview never rendered is not asked for");
  answers.dispose();
});
