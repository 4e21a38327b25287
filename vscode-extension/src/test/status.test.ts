import assert from "node:assert/strict";
import { test } from "node:test";
import { StatusResponse, VaultStatus, statusBarText, statusLines } from "../status";

function vault(overrides: Partial<VaultStatus> = {}): VaultStatus {
  return {
    root: "file:///home/me/My%20Vault",
    state: "ready",
    notes: 40,
    chunks: 120,
    revision: 3,
    indexed_files: 40,
    files_to_index: 40,
    pending_changes: 0,
    message: null,
    vectors: { state: "ready", embedder: "bilingual", embedded: 120, pending: 0, problem: "" },
    ...overrides,
  };
}

const status = (...vaults: VaultStatus[]): StatusResponse => ({ version: "0.1.0", vaults });

test("status bar: indexing, then embedding, then keyword only or ready", () => {
  assert.equal(statusBarText(status(vault({ state: "indexing", indexed_files: 3 }))), "$(sync~spin) memlsp: indexing 3/40");
  const embedding = vault({ vectors: { state: "ready", embedder: "bilingual", embedded: 20, pending: 100, problem: "" } });
  assert.equal(statusBarText(status(embedding)), "$(sparkle) memlsp: 100 to embed");
  const down = vault({ vectors: { state: "unavailable", embedder: "endpoint", embedded: 0, pending: 0, problem: "no key" } });
  assert.equal(statusBarText(status(down)), "$(warning) memlsp: keyword only");
  assert.equal(statusBarText(status(vault())), "$(check) memlsp");
});

test("status lines name each vault and its vectors", () => {
  const lines = statusLines(status(vault(), vault({ root: "file:///w", vectors: null })));
  assert.equal(lines[0], "memlsp 0.1.0");
  assert.match(lines[1] ?? "", /^My Vault: ready, 40 notes, 120 chunks/);
  assert.match(lines[1] ?? "", /bilingual: 120 chunks embedded \(ready\)/);
  assert.match(lines[2] ?? "", /semantic search off/);
  assert.match(statusLines(status())[1] ?? "", /no vault open/);
});
