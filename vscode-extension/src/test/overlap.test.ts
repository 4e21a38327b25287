import assert from "node:assert/strict";
import { test } from "node:test";
import { NamedPlace, Place, headingText, inMarkdownDestination, overlaps, withoutOverlaps, withoutSameSymbols } from "../overlap";

const span = (line: number, from: number, to: number, endLine = line) => ({
  start: { line, character: from },
  end: { line: endLine, character: to },
});
const at = (uri: string, line: number, from: number, to: number): Place => ({ uri, range: span(line, from, to) });

test("overlaps: a narrower range inside, an empty range at the start, not a neighbour", () => {
  assert.ok(overlaps(span(13, 10, 18), span(13, 12, 16)));
  assert.ok(overlaps(span(20, 0, 0), span(20, 0, 17)));
  assert.ok(!overlaps(span(13, 10, 18), span(13, 19, 25)));
  assert.ok(!overlaps(span(13, 10, 18), span(14, 10, 18)));
  assert.ok(overlaps(span(3, 0, 5, 8), span(5, 2, 4)));
});

test("references: the wikilink under the cursor is listed once (VS Code keeps both when ranges differ)", () => {
  // Shift+F12 on [[bm25]] in index.md, as measured: memlsp's 13:10-13:18, the built-in's 13:12-13:16.
  const ours = [at("index.md", 13, 10, 18), at("index.md", 16, 92, 112), at("hybrid-search.md", 7, 20, 28), at("bm25.md", 0, 0, 0)];
  const theirs = [at("index.md", 13, 12, 16)];
  const kept = withoutOverlaps(ours, (p) => p, theirs);
  assert.deepEqual(kept, ours.slice(1));
  assert.equal(kept.length + theirs.length, ours.length, "each place once");
  // On a heading: memlsp's empty range at its start, the built-in's whole heading line.
  assert.deepEqual(withoutOverlaps([at("index.md", 20, 0, 0), at("bm25.md", 30, 2, 26)], (p) => p, [at("index.md", 20, 0, 17)]), [
    at("bm25.md", 30, 2, 26),
  ]);
});

test("workspace symbols: the same heading by line or by name in the same file is left out", () => {
  const named = (name: string, uri: string, line: number): NamedPlace => ({ name, uri, range: span(line, 0, 0) });
  const theirs = [named("# BM25", "bm25.md", 3), named("## Related", "bm25.md", 27), named("# Home", "index.md", 6)];
  const ours = [
    named("BM25", "bm25.md", 3),
    named("BM25 › Related", "bm25.md", 27),
    named("Home", "index.md", 0),
    named("BM25 › Why IDF?", "other.md", 22),
    named("reading-list", "reading-list.md", 0),
  ];
  assert.deepEqual(
    withoutSameSymbols(ours, (s) => s, theirs).map((s) => s.name),
    ["BM25 › Why IDF?", "reading-list"],
  );
  assert.equal(headingText("### Reciprocal Rank Fusion"), "Reciprocal Rank Fusion");
  assert.equal(headingText("Hybrid search › Fusion › Reciprocal Rank Fusion"), "Reciprocal Rank Fusion");
});

test("inMarkdownDestination: after `](` until the destination ends; not in wikilinks or text", () => {
  assert.ok(inMarkdownDestination("see [text]("));
  assert.ok(inMarkdownDestination("see [text](../search/bm"));
  assert.ok(inMarkdownDestination("[t](query%20understanding.md#"));
  assert.equal(inMarkdownDestination("see [[bm"), false);
  assert.equal(inMarkdownDestination("[t](a.md) and #ta"), false);
  assert.equal(inMarkdownDestination("[t](a.md \"title"), false);
});
