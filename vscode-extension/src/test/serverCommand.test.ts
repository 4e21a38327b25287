import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DiscoveryEnvironment,
  DiscoveryProbes,
  DiscoverySettings,
  ServerCommand,
  discoverServer,
  findOnPath,
  installSteps,
  serverExecutable,
} from "../client/serverCommand";

// The advice that fails (no such package on PyPI), spelled so that grepping for it finds none.
const FROM_PYPI = new RegExp(["pip", "install", "memlsp"].join(" "));

const unset: DiscoverySettings = { command: "", args: [], pythonPath: "" };

const posix: DiscoveryEnvironment = {
  workspaceFolders: ["/notes/kg"],
  home: "/home/me",
  pathEnv: "/usr/bin:/bin",
  platform: "linux",
  hasPythonExtension: false,
};

/** A fake machine: these files exist and are executable; these interpreters have memlsp. */
function machine(executables: string[], withMemlsp: string[], interpreter?: string) {
  const checked: string[] = [];
  const probes: DiscoveryProbes = {
    isExecutable: (file) => executables.includes(file),
    canImportMemlsp: async (python) => {
      checked.push(python);
      return withMemlsp.includes(python);
    },
    pythonExtensionInterpreter: async () => interpreter,
  };
  return { probes, checked };
}

async function command(settings: Partial<DiscoverySettings>, env: Partial<DiscoveryEnvironment>, probes: DiscoveryProbes): Promise<ServerCommand> {
  const found = await discoverServer({ ...unset, ...settings }, { ...posix, ...env }, probes);
  assert.equal(found.kind, "command", found.kind === "error" ? found.message : "");
  return found as ServerCommand;
}

test("memlsp.server.command wins, with its args as given", async () => {
  const { probes } = machine(["/opt/memlsp/bin/memlsp", "/usr/bin/memlsp"], ["/usr/bin/python3"]);
  const found = await command({ command: " /opt/memlsp/bin/memlsp ", args: ["--stdio", "-v"], pythonPath: "/usr/bin/python3" }, {}, probes);
  assert.deepEqual(
    [found.command, found.args, found.source],
    ["/opt/memlsp/bin/memlsp", ["--stdio", "-v"], "memlsp.server.command"],
  );
});

test("memlsp.server.command without args gets --stdio once; ~ and relative paths are made absolute", async () => {
  const { probes } = machine(["/home/me/bin/memlsp", "/notes/kg/tools/memlsp"], []);
  assert.deepEqual((await command({ command: "~/bin/memlsp" }, {}, probes)).args, ["--stdio"]);
  assert.equal((await command({ command: "~/bin/memlsp" }, {}, probes)).command, "/home/me/bin/memlsp");
  assert.equal((await command({ command: "tools/memlsp" }, {}, probes)).command, "/notes/kg/tools/memlsp");
});

test("a relative memlsp.pythonPath is checked by its absolute path, in each workspace folder in turn", async () => {
  // The newcomer's case: `.venv/bin/python` was run from the temp folder and said no memlsp.
  const { probes, checked } = machine(["/notes/b/.venv/bin/python", "/notes/a/.venv/bin/python"], ["/notes/b/.venv/bin/python"]);
  const found = await command({ pythonPath: ".venv/bin/python" }, { workspaceFolders: ["/notes/a", "/notes/b"] }, probes);
  assert.deepEqual([found.command, found.args, found.source], ["/notes/b/.venv/bin/python", ["-m", "memlsp", "--stdio"], "memlsp.pythonPath"]);
  assert.deepEqual(checked, ["/notes/a/.venv/bin/python", "/notes/b/.venv/bin/python"]);
  assert.ok(checked.every((python) => python.startsWith("/")));
});

test("memlsp.pythonPath expands ~ and ${workspaceFolder}, and a bare name is found on PATH", async () => {
  const { probes } = machine(["/home/me/env/bin/python", "/notes/kg/env/bin/python", "/usr/bin/python3"], ["/home/me/env/bin/python", "/notes/kg/env/bin/python", "/usr/bin/python3"]);
  assert.equal((await command({ pythonPath: "~/env/bin/python" }, {}, probes)).command, "/home/me/env/bin/python");
  assert.equal((await command({ pythonPath: "${workspaceFolder}/env/bin/python" }, {}, probes)).command, "/notes/kg/env/bin/python");
  assert.equal((await command({ pythonPath: "python3" }, {}, probes)).command, "/usr/bin/python3");
});

test("a memlsp.pythonPath that cannot import memlsp is an error naming it, not a fall-through", async () => {
  const { probes } = machine(["/usr/bin/python3", "/usr/bin/memlsp"], []);
  const found = await discoverServer({ ...unset, pythonPath: "/usr/bin/python3" }, posix, probes);
  assert.equal(found.kind, "error");
  if (found.kind !== "error") return;
  assert.deepEqual(found.tried, ["memlsp.pythonPath (/usr/bin/python3: /usr/bin/python3: cannot import memlsp)"]);
  assert.match(found.message, /memlsp\.pythonPath \(\/usr\/bin\/python3\)/);
  const missing = await discoverServer({ ...unset, pythonPath: ".venv/bin/python" }, posix, probes);
  assert.ok(missing.kind === "error" && /\/notes\/kg\/\.venv\/bin\/python: no such program/.test(missing.message));
});

test("then the Python extension's interpreter, only if it can import memlsp", async () => {
  const { probes } = machine(["/envs/a/bin/python", "/notes/kg/.venv/bin/python"], ["/envs/a/bin/python", "/notes/kg/.venv/bin/python"], "/envs/a/bin/python");
  const found = await command({}, { hasPythonExtension: true }, probes);
  assert.deepEqual([found.command, found.source], ["/envs/a/bin/python", "Python extension"]);
  const without = machine(["/envs/b/bin/python", "/notes/kg/.venv/bin/python"], ["/notes/kg/.venv/bin/python"], "/envs/b/bin/python");
  assert.equal((await command({}, { hasPythonExtension: true }, without.probes)).source, "workspace venv");
});

test("then .venv, then venv, in each workspace folder; one with no memlsp is passed over", async () => {
  const { probes } = machine(
    ["/w/a/.venv/bin/python", "/w/b/venv/bin/python", "/w/b/.venv/bin/python"],
    ["/w/b/venv/bin/python"],
  );
  const found = await command({}, { workspaceFolders: ["/w/a", "/w/b"] }, probes);
  assert.deepEqual([found.command, found.args, found.source], ["/w/b/venv/bin/python", ["-m", "memlsp", "--stdio"], "workspace venv"]);
  assert.match(found.origin, /venv in the workspace folder b/);
});

test("on Windows the venv's python is Scripts\\python.exe", async () => {
  const { probes } = machine(["C:\\notes\\.venv\\Scripts\\python.exe"], ["C:\\notes\\.venv\\Scripts\\python.exe"]);
  const found = await command({}, { workspaceFolders: ["C:\\notes"], platform: "win32", pathEnv: "C:\\Windows" }, probes);
  assert.equal(found.command, "C:\\notes\\.venv\\Scripts\\python.exe");
});

test("then memlsp on PATH, with --stdio once", async () => {
  const { probes } = machine(["/usr/local/bin/memlsp"], []);
  const found = await command({}, { pathEnv: "/usr/local/bin" }, probes);
  assert.deepEqual([found.command, found.args, found.source], ["/usr/local/bin/memlsp", ["--stdio"], "PATH"]);
});

test("else one error naming each way tried, with no advice to install from PyPI (memlsp is not there)", async () => {
  const { probes } = machine(["/notes/kg/.venv/bin/python"], [], undefined);
  const found = await discoverServer({ ...unset, command: "  " }, { ...posix, hasPythonExtension: true }, probes);
  assert.equal(found.kind, "error");
  if (found.kind !== "error") return;
  assert.deepEqual(found.tried, [
    "memlsp.server.command (not set)",
    "memlsp.pythonPath (not set)",
    "the Python extension's interpreter (none selected)",
    ".venv or venv in /notes/kg (.venv: cannot import memlsp)",
    "memlsp on PATH (not found)",
  ]);
  assert.equal(found.installFolder, "/notes/kg");
  assert.doesNotMatch(found.message, FROM_PYPI);
  assert.match(found.message, /How to Install/);
});

test("install steps name the workspace folder and a checkout, not PyPI", () => {
  const steps = installSteps("/notes/kg", "linux").join("\n");
  assert.match(steps, /in the workspace folder \/notes\/kg/);
  assert.match(steps, /python3 -m venv \.venv && \.venv\/bin\/pip install <path of the memlsp checkout>/);
  assert.match(steps, /Restart Server/);
  assert.doesNotMatch(steps, FROM_PYPI);
  assert.match(installSteps(undefined, "win32").join("\n"), /\.venv\\Scripts\\pip install/);
});

test("the process gets exactly one --stdio: no transport, so vscode-languageclient adds nothing", async () => {
  const { probes } = machine(["/usr/local/bin/memlsp", "/notes/kg/.venv/bin/python"], ["/notes/kg/.venv/bin/python"]);
  for (const env of [{ pathEnv: "/usr/local/bin", workspaceFolders: [] }, {}]) {
    const executable = serverExecutable(await command({}, env, probes));
    assert.equal(executable.args.filter((arg) => arg === "--stdio").length, 1);
    assert.ok(!("transport" in executable));
  }
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
