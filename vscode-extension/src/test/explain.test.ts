import assert from "node:assert/strict";
import { test } from "node:test";
import { VERDICT_WORDS, explainDetails, explainMessage, explainOutcome, explainTarget, notePlace, noteToOpen } from "../explain";
import { VaultExplainJson, Verdict, VaultSearchAnswerJson } from "../wire";

function entry(overrides: Partial<VaultExplainJson> = {}): VaultExplainJson {
  return {
    note: "search/bm25.md",
    path: "search/bm25.md",
    uri: "file:///v/search/bm25.md",
    verdict: "beyond_limit",
    sentence: "It ranks 63rd, past the 50 results asked for.",
    keyword: { rank: 63, score: 1.2, matched_terms: ["ranking"] },
    vector: { rank: 80, similarity: 0.214, embedded: true },
    ...overrides,
  };
}

function answer(explain?: VaultExplainJson[]): VaultSearchAnswerJson {
  return {
    query: "ranking",
    mode: "hybrid",
    warnings: [],
    strength: 1,
    counts: { keyword: 3, vector: 10, hybrid: true },
    results: [],
    ...(explain === undefined ? {} : { explain }),
  };
}

test("the message: the note, the verdict in words, the server's sentence, then both sides' numbers", () => {
  assert.equal(
    explainMessage(entry(), 50),
    "memlsp: search/bm25.md: Past the limit. It ranks 63rd, past the 50 results asked for. " +
      "(keyword rank 63 (ranking); meaning rank 80 (similarity 0.21))",
  );
});

test("every verdict has its words, and a sentence of its own when the server sends none", () => {
  const verdicts = Object.keys(VERDICT_WORDS) as Verdict[];
  assert.deepEqual(verdicts.sort(), [
    "below_floor",
    "beyond_limit",
    "cut_by_budget",
    "filtered",
    "linked_only",
    "merged",
    "no_evidence",
    "not_a_note",
    "not_indexed_yet",
    "shown",
  ]);
  const sentences = new Set<string>();
  for (const verdict of verdicts) {
    const text = explainMessage(entry({ verdict, sentence: "", keyword: null, vector: null }), 50);
    const [, words, sentence] = /^memlsp: search\/bm25\.md: ([^.]+)\. (.+)$/.exec(text) ?? [];
    assert.equal(words, VERDICT_WORDS[verdict], verdict);
    assert.ok(sentence?.endsWith("."), `${verdict}: ${text}`);
    sentences.add(sentence);
  }
  assert.equal(sentences.size, verdicts.length, "each says something different");
  assert.match(explainMessage(entry({ sentence: " ", keyword: null, vector: null }), 20), /past the 20 results asked for\.$/);
});

test("the server's sentence is used as it is, for each verdict", () => {
  const cases: [Verdict, string][] = [
    ["shown", "memlsp: search/bm25.md: Found. Shown 4th."],
    ["not_a_note", "memlsp: search/bm25.md: Not a note. Shown 4th."],
    ["not_indexed_yet", "memlsp: search/bm25.md: Not indexed yet. Shown 4th."],
    ["filtered", "memlsp: search/bm25.md: Left out by the filters. Shown 4th."],
    ["no_evidence", "memlsp: search/bm25.md: No match. Shown 4th."],
    ["below_floor", "memlsp: search/bm25.md: Too weak a match. Shown 4th."],
    ["beyond_limit", "memlsp: search/bm25.md: Past the limit. Shown 4th."],
    ["cut_by_budget", "memlsp: search/bm25.md: Cut by the token budget. Shown 4th."],
    ["merged", "memlsp: search/bm25.md: Merged into another result. Shown 4th."],
    ["linked_only", "memlsp: search/bm25.md: Only as a linked note. Shown 4th."],
  ];
  for (const [verdict, expected] of cases) {
    assert.equal(explainMessage(entry({ verdict, sentence: "Shown 4th.", keyword: null, vector: null }), 50), expected);
  }
});

test("missing fields: no path, no numbers, a verdict this extension does not know", () => {
  const bare = entry({ note: "Kyoto", path: null, uri: undefined, verdict: "not_a_note", sentence: "", keyword: null, vector: null });
  assert.match(explainMessage(bare, 50), /^memlsp: Kyoto: Not a note\. It is not a note of an open vault/);
  const newer = entry({ verdict: "stale" as Verdict, sentence: "", keyword: null, vector: null });
  assert.equal(explainMessage(newer, 50), "memlsp: search/bm25.md: stale. The server gave no reason.");
  // Each side: no match, not embedded yet, not ranked, no similarity, no matched words.
  assert.equal(
    explainDetails(entry({ keyword: { rank: null, score: null, matched_terms: [] }, vector: { rank: null, similarity: null, embedded: false } })),
    "no keyword match; not read for meaning yet",
  );
  assert.equal(
    explainDetails(entry({ keyword: { rank: 2, score: 3, matched_terms: [] }, vector: { rank: null, similarity: null, embedded: true } })),
    "keyword rank 2; not ranked by meaning",
  );
  assert.equal(explainDetails(entry({ keyword: null, vector: { rank: 5, similarity: null, embedded: true } })), "meaning rank 5");
});

test("an answer without explain is a server too old to say; an empty one said nothing", () => {
  const old = explainOutcome(answer(), "search/bm25.md", 50);
  assert.equal(old.kind, "unanswered");
  assert.match(old.text, /cannot say why a note is not found.*Update memlsp/);
  const empty = explainOutcome(answer([]), "search/bm25.md", 50);
  assert.deepEqual(empty, { kind: "unanswered", text: "memlsp: the server said nothing about search/bm25.md." });
  const explained = explainOutcome(answer([entry()]), "search/bm25.md", 50);
  assert.equal(explained.kind, "explained");
  assert.match(explained.text, /^memlsp: search\/bm25\.md: Past the limit\./);
});

test("a note's vault path from the vaults' roots, however each side encodes the URI", () => {
  const roots = ["file:///home/me/My%20Vault", "file:///home/me/My%20Vault/inner", "file:///w"];
  assert.deepEqual(notePlace("file:///home/me/My%20Vault/search/bm25.md", roots), {
    root: "file:///home/me/My%20Vault",
    path: "search/bm25.md",
  });
  // The deepest vault holds it; Chinese names percent-encoded or not.
  assert.deepEqual(notePlace("file:///home/me/My Vault/inner/%E5%90%91%E9%87%8F.md", roots), {
    root: "file:///home/me/My%20Vault/inner",
    path: "向量.md",
  });
  // A Windows drive letter in either case; a root written with a trailing slash.
  assert.deepEqual(notePlace("file:///c%3A/notes/a.md", ["file:///C:/notes/"]), { root: "file:///C:/notes/", path: "a.md" });
  assert.equal(notePlace("file:///home/me/My%20Vault2/a.md", roots), undefined, "a sibling folder is not inside");
  assert.equal(notePlace("file:///elsewhere/a.md", roots), undefined);
  assert.equal(explainTarget("file:///w/travel/kyoto-2023.md", roots), "travel/kyoto-2023.md");
  assert.equal(explainTarget("file:///elsewhere/Kyoto%202023.md", roots), "Kyoto 2023", "outside every vault: its name");
});

test("Open note goes to the server's URI, else the path in the vault asked from, else the file chosen", () => {
  assert.equal(noteToOpen(entry(), {}), "file:///v/search/bm25.md");
  assert.equal(
    noteToOpen(entry({ uri: undefined, path: "search/query understanding.md" }), { root: "file:///v/" }),
    "file:///v/search/query%20understanding.md",
  );
  assert.equal(noteToOpen(entry({ uri: undefined, path: null }), { uri: "file:///x/a.md" }), "file:///x/a.md");
  assert.equal(noteToOpen(entry({ uri: undefined, path: null }), {}), undefined);
});
