import assert from "node:assert/strict";
import { test } from "node:test";
import { failureText, graphParams, noServerText } from "../graph/request";

test("the view asks for both directions and five notes close in meaning, at its depth", () => {
  assert.deepEqual(graphParams("file:///v/search/bm25.md", 2), { uri: "file:///v/search/bm25.md", depth: 2, direction: "both", meaning: 5 });
});

test("an older server without memlsp/graph is told apart from a failed question", () => {
  assert.equal(
    failureText({ code: -32601, message: "Unhandled method memlsp/graph" }),
    "This memlsp server has no graph (it does not answer memlsp/graph): update memlsp, then Restart Server.",
  );
  assert.equal(failureText(new Error("Connection is closed.")), "Could not ask for the graph: Connection is closed.");
  assert.equal(failureText("stopped"), "Could not ask for the graph: stopped");
  assert.equal(noServerText(true), "Waiting for the memlsp server…");
  assert.equal(noServerText(false), "The memlsp server is not running.");
});
