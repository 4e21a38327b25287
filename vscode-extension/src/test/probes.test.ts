import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { canImportMemlsp, isExecutableFile } from "../client/probes";

const folder = mkdtempSync(path.join(os.tmpdir(), "memlsp-probes-"));
after(() => rmSync(folder, { recursive: true, force: true }));

function script(name: string, body: string, mode: number): string {
  const file = path.join(folder, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, mode);
  return file;
}

test("an executable is a file with the execute bit; a folder, a plain file or nothing is not", { skip: process.platform === "win32" }, () => {
  assert.equal(isExecutableFile(script("run", "exit 0", 0o755)), true);
  assert.equal(isExecutableFile(script("plain", "exit 0", 0o644)), false);
  assert.equal(isExecutableFile(folder), false);
  assert.equal(isExecutableFile(path.join(folder, "missing")), false);
});

test("an interpreter can import memlsp when its import exits 0; else it is logged by name", { skip: process.platform === "win32" }, async () => {
  const lines: string[] = [];
  const good = script("python-good", "exit 0", 0o755);
  const bad = script("python-bad", "exit 1", 0o755);
  assert.equal(await canImportMemlsp(good, (line) => void lines.push(line)), true);
  assert.equal(lines.length, 0);
  assert.equal(await canImportMemlsp(bad, (line) => void lines.push(line)), false);
  assert.deepEqual(lines, [`memlsp: ${bad} cannot import memlsp`]);
  assert.equal(await canImportMemlsp(path.join(folder, "missing"), (line) => void lines.push(line)), false);
});
