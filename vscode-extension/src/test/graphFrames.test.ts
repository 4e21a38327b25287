import assert from "node:assert/strict";
import { test } from "node:test";
import { ShownGraphs } from "../graph/frames";

test("a graph's first frame is logged once, with the server's and the page's times", () => {
  const shown = new ShownGraphs();
  const seq = shown.add({ note: "search/bm25.md", depth: 1, askedAt: 1000, answeredIn: 12 });
  const frame = { type: "frame", seq, ms: 40.4, nodes: 7, edges: 9 } as const;
  assert.equal(
    shown.frame(frame, 1100),
    "graph of search/bm25.md at depth 1: 7 nodes, 9 edges; answered in 12 ms, first frame drawn 40 ms after the answer " +
      "reached the page (100 ms after the question)",
  );
  assert.equal(shown.frame(frame, 1200), undefined, "a page reloaded draws it again: not logged twice");
  assert.equal(
    shown.settled({ type: "settled", seq, ms: 2999.6, ticks: 300, slowest: 16.7 }),
    "graph of search/bm25.md: layout settled after 300 ticks, 3000 ms; slowest frame 17 ms",
  );
});

test("only the graphs sent lately are named; older or unknown ones are not", () => {
  const shown = new ShownGraphs();
  const first = shown.add({ note: "a.md", depth: 1, askedAt: 0, answeredIn: 1 });
  for (let i = 0; i < 8; i++) {
    shown.add({ note: `n${i}.md`, depth: 2, askedAt: 0, answeredIn: 1 });
  }
  assert.equal(shown.frame({ type: "frame", seq: first, ms: 1, nodes: 1, edges: 0 }, 5), undefined);
  assert.equal(shown.frame({ type: "frame", seq: 99, ms: 1, nodes: 1, edges: 0 }, 5), undefined);
  assert.match(shown.settled({ type: "settled", seq: 99, ms: 1, ticks: 1, slowest: 1 }), /^graph of \?: /);
});
