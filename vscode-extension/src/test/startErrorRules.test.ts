import assert from "node:assert/strict";
import { test } from "node:test";
import { START_FAILED_BUTTONS, StartErrorMemory, notFoundButtons, venvCommand } from "../client/startErrorRules";
import { installSteps } from "../client/serverCommand";

test("the same start error is not stacked again by a settings change, but Restart Server shows it", () => {
  const memory = new StartErrorMemory();
  assert.equal(memory.shouldShow("memlsp: not found", false), true);
  assert.equal(memory.shouldShow("memlsp: not found", false), false, "a restart from a settings change, same error");
  assert.equal(memory.shouldShow("memlsp: not found", true), true, "Restart Server always says what happened");
  assert.equal(memory.shouldShow("memlsp: did not start", false), true, "another error is news");
  memory.forget(); // the server started in between
  assert.equal(memory.shouldShow("memlsp: did not start", false), true);
});

test("the buttons: Choose Interpreter only with the Python extension", () => {
  assert.deepEqual(notFoundButtons(false), ["Open Settings", "How to Install"]);
  assert.deepEqual(notFoundButtons(true), ["Choose Interpreter", "Open Settings", "How to Install"]);
  assert.deepEqual(START_FAILED_BUTTONS, ["Open Settings", "Show Output"]);
});

test("Copy Command copies the install steps' venv line", () => {
  const [, ...steps] = installSteps("/notes/kg", "linux");
  const command = venvCommand(steps);
  assert.ok(command.includes(" -m venv "), command);
  assert.ok(steps.includes(command));
  assert.equal(venvCommand(["no command here"]), "");
});
