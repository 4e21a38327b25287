import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_DEPTHS, clampDepth } from "../graph/bounds";
import { parseWebviewMessage } from "../graph/messages";

const ids = new Set(["index.md", "search/bm25.md"]);

test("the messages a graph page may send are taken as they are", () => {
  assert.deepEqual(parseWebviewMessage({ type: "ready" }, ids, DEFAULT_DEPTHS), { type: "ready" });
  assert.deepEqual(parseWebviewMessage({ type: "open", id: "search/bm25.md" }, ids, DEFAULT_DEPTHS), { type: "open", id: "search/bm25.md" });
  for (const n of [1, 2, 3]) {
    assert.deepEqual(parseWebviewMessage({ type: "depth", n }, ids, DEFAULT_DEPTHS), { type: "depth", n });
  }
  assert.deepEqual(parseWebviewMessage({ type: "frame", seq: 3, ms: 41.5, nodes: 1800, edges: 5000 }, ids, DEFAULT_DEPTHS), {
    type: "frame",
    seq: 3,
    ms: 41.5,
    nodes: 1800,
    edges: 5000,
  });
  assert.deepEqual(parseWebviewMessage({ type: "settled", seq: 3, ms: 3000, ticks: 300, slowest: 16.7 }, ids, DEFAULT_DEPTHS), {
    type: "settled",
    seq: 3,
    ms: 3000,
    ticks: 300,
    slowest: 16.7,
  });
});

test("an id of no node in the graph, or not a string, opens nothing", () => {
  for (const id of ["../../etc/passwd", "file:///etc/passwd", "", "INDEX.md", 3, null, ["index.md"]]) {
    assert.equal(parseWebviewMessage({ type: "open", id }, ids, DEFAULT_DEPTHS), undefined, String(id));
  }
  assert.equal(parseWebviewMessage({ type: "open", id: "index.md" }, new Set(), DEFAULT_DEPTHS), undefined, "no graph shown");
});

test("depths outside 1..3 and anything else are refused", () => {
  for (const n of [0, 4, 1.5, -1, "2", Number.NaN, Number.POSITIVE_INFINITY, null]) {
    assert.equal(parseWebviewMessage({ type: "depth", n }, ids, DEFAULT_DEPTHS), undefined, String(n));
  }
  const refused: unknown[] = [
    null,
    undefined,
    "ready",
    42,
    [],
    { type: "run", command: "workbench.action.terminal.new" },
    { type: "ready", extra: 1 }, // extra fields
    { type: "open", id: "index.md", uri: "file:///etc/passwd" },
    { type: "depth" },
    { type: "frame", seq: 1, ms: -1, nodes: 1, edges: 1 },
    { type: "frame", seq: 1, ms: 1, nodes: 1.5, edges: 1 },
    { type: "frame", ms: 1, nodes: 1, edges: 1 }, // no seq
    { type: "frame", seq: "1", ms: 1, nodes: 1, edges: 1 },
    { type: "settled", seq: 1, ms: 1, ticks: 1 },
    { type: "__proto__" },
  ];
  for (const raw of refused) {
    assert.equal(parseWebviewMessage(raw, ids, DEFAULT_DEPTHS), undefined, JSON.stringify(raw));
  }
});

test("a kept depth is a whole number in 1..3, else the default", () => {
  assert.equal(clampDepth(3, 1, DEFAULT_DEPTHS), 3);
  assert.equal(clampDepth(undefined, 1, DEFAULT_DEPTHS), 1);
  assert.equal(clampDepth(7, 2, DEFAULT_DEPTHS), 2);
  assert.equal(clampDepth("2", 1, DEFAULT_DEPTHS), 1);
});

test("a depth message is checked against the depths the view offers", () => {
  const two = { min: 1, max: 2 };
  assert.deepEqual(parseWebviewMessage({ type: "depth", n: 2 }, ids, two), { type: "depth", n: 2 });
  assert.equal(parseWebviewMessage({ type: "depth", n: 3 }, ids, two), undefined);
  const fromTwo = { min: 2, max: 3 };
  assert.equal(parseWebviewMessage({ type: "depth", n: 1 }, ids, fromTwo), undefined);
  assert.deepEqual(parseWebviewMessage({ type: "depth", n: 3 }, ids, fromTwo), { type: "depth", n: 3 });
});
