import assert from "node:assert/strict";
import { test } from "node:test";
import { ServerCommandInputs, findOnPath, resolveServerCommand } from "../serverCommand";

const none: ServerCommandInputs = {
  command: "",
  args: [],
  pythonPath: "",
  pythonPathHasMemlsp: true,
  interpreter: undefined,
  memlspOnPath: undefined,
};

test("memlsp.server.command wins, with its args as given", () => {
  const found = resolveServerCommand({
    ...none,
    command: " /opt/memlsp/bin/memlsp ",
    args: ["--stdio", "-v"],
    pythonPath: "/usr/bin/python3",
    interpreter: "/venv/bin/python",
    memlspOnPath: "/usr/local/bin/memlsp",
  });
  assert.deepEqual(found, {
    kind: "command",
    command: "/opt/memlsp/bin/memlsp",
    args: ["--stdio", "-v"],
    source: "memlsp.server.command",
  });
});

test("then memlsp.pythonPath with -m memlsp --stdio, before the Python extension's interpreter", () => {
  const found = resolveServerCommand({ ...none, pythonPath: "/env/bin/python", interpreter: "/venv/bin/python", memlspOnPath: "/x/memlsp" });
  assert.deepEqual(found, { kind: "command", command: "/env/bin/python", args: ["-m", "memlsp", "--stdio"], source: "memlsp.pythonPath" });
});

test("then the Python extension's interpreter", () => {
  const found = resolveServerCommand({ ...none, interpreter: "/venv/bin/python", memlspOnPath: "/x/memlsp" });
  assert.deepEqual(found, { kind: "command", command: "/venv/bin/python", args: ["-m", "memlsp", "--stdio"], source: "python interpreter" });
});

test("then memlsp on PATH", () => {
  const found = resolveServerCommand({ ...none, memlspOnPath: "/usr/local/bin/memlsp" });
  assert.deepEqual(found, { kind: "command", command: "/usr/local/bin/memlsp", args: ["--stdio"], source: "PATH" });
});

test("else one error naming what was tried and how to install", () => {
  const found = resolveServerCommand({ ...none, command: "  ", pythonPath: "" });
  assert.equal(found.kind, "error");
  if (found.kind !== "error") return;
  assert.equal(found.tried.length, 4);
  assert.match(found.message, /pip install memlsp/);
  assert.match(found.message, /memlsp\.pythonPath/);
  assert.match(found.message, /memlsp\.server\.command/);
  assert.match(found.message, /on PATH/);
});

test("server.args are copied, not shared", () => {
  const args = ["--stdio"];
  const found = resolveServerCommand({ ...none, command: "memlsp", args });
  assert.ok(found.kind === "command");
  found.args.push("x");
  assert.deepEqual(args, ["--stdio"]);
});

test("findOnPath: first executable in PATH order, empty entries skipped", () => {
  const executables = new Set(["/b/memlsp", "/c/memlsp"]);
  const seen: string[] = [];
  const found = findOnPath("memlsp", "/a::/b/:/c", (file) => (seen.push(file), executables.has(file)), "linux");
  assert.equal(found, "/b/memlsp");
  assert.deepEqual(seen, ["/a/memlsp", "/b/memlsp"]);
  assert.equal(findOnPath("memlsp", undefined, () => true, "linux"), undefined);
  assert.equal(findOnPath("memlsp", "/a:/b", () => false, "linux"), undefined);
});

test("findOnPath on Windows looks for memlsp.exe with ; separators", () => {
  const found = findOnPath("memlsp", "C:\\x;C:\\Py\\Scripts", (file) => file === "C:\\Py\\Scripts\\memlsp.exe", "win32");
  assert.equal(found, "C:\\Py\\Scripts\\memlsp.exe");
});

test("a memlsp.pythonPath without memlsp is an error naming it, not a fall-through", () => {
  const found = resolveServerCommand({
    ...none,
    pythonPath: "/usr/bin/python3",
    pythonPathHasMemlsp: false,
    memlspOnPath: "/x/memlsp",
  });
  assert.equal(found.kind, "error");
  if (found.kind === "error") {
    assert.deepEqual(found.tried, ["memlsp.pythonPath (/usr/bin/python3: cannot import memlsp)"]);
    assert.match(found.message, /\/usr\/bin\/python3 -m pip install memlsp/);
  }
});
