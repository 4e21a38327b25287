import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_DEPTHS, VIEW_MAX_DEPTH, announcedBounds, clampDepth, depthChoices, depthRange } from "../graph/bounds";

const BOUNDS = { min_depth: 1, max_depth: 5, max_per_node: 200, max_nodes: 2000 };

function initializeResult(memlspGraph: unknown): unknown {
  return { capabilities: { hoverProvider: true, experimental: { memlspGraph } }, serverInfo: { name: "memlsp" } };
}

test("the bounds a server announces in its initialize result are read as they are", () => {
  assert.deepEqual(announcedBounds(initializeResult(BOUNDS)), BOUNDS);
  assert.deepEqual(announcedBounds(initializeResult({ ...BOUNDS, later: "field" })), BOUNDS);
});

test("no announcement, or one that is not bounds, is no bounds: the view stays as it was", () => {
  const none: unknown[] = [
    undefined,
    null,
    {},
    { capabilities: {} },
    { capabilities: { experimental: null } },
    initializeResult(undefined),
    initializeResult([1, 5]),
    initializeResult({ ...BOUNDS, min_depth: 0 }),
    initializeResult({ ...BOUNDS, max_depth: 2.5 }),
    initializeResult({ ...BOUNDS, max_depth: "5" }),
    initializeResult({ ...BOUNDS, min_depth: 4, max_depth: 3 }),
    initializeResult({ min_depth: 1, max_depth: 5 }),
  ];
  for (const result of none) {
    assert.equal(announcedBounds(result), undefined, JSON.stringify(result));
  }
  assert.deepEqual(depthRange(undefined), { min: 1, max: 3 });
  assert.deepEqual(depthChoices(DEFAULT_DEPTHS), [1, 2, 3]);
});

test("the view offers the server's depths up to its own cap of 3", () => {
  assert.equal(VIEW_MAX_DEPTH, 3);
  assert.deepEqual(depthRange(BOUNDS), { min: 1, max: 3 });
  assert.deepEqual(depthRange({ ...BOUNDS, max_depth: 2 }), { min: 1, max: 2 });
  assert.deepEqual(depthChoices(depthRange({ ...BOUNDS, max_depth: 2 })), [1, 2]);
  assert.deepEqual(depthRange({ ...BOUNDS, min_depth: 2 }), { min: 2, max: 3 });
  // A server whose smallest depth is past the cap: its smallest depth, the only one it answers.
  assert.deepEqual(depthRange({ ...BOUNDS, min_depth: 4, max_depth: 5 }), { min: 4, max: 4 });
});

test("a kept depth outside the offered range falls back to the default, itself within the range", () => {
  assert.equal(clampDepth(3, 1, { min: 1, max: 2 }), 1);
  assert.equal(clampDepth(2, 1, { min: 1, max: 2 }), 2);
  assert.equal(clampDepth(undefined, 1, { min: 2, max: 3 }), 2);
  assert.equal(clampDepth(undefined, 1, { min: 4, max: 4 }), 4);
});
