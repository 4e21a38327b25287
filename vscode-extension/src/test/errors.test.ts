import assert from "node:assert/strict";
import { test } from "node:test";
import { errorText } from "../errors";

test("an error reads as its message; anything else thrown as its text", () => {
  assert.equal(errorText(new Error("spawn python ENOENT")), "spawn python ENOENT");
  assert.equal(errorText("stopped"), "stopped");
  assert.equal(errorText({ code: -32601 }), "[object Object]");
});
