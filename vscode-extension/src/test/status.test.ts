import assert from "node:assert/strict";
import { test } from "node:test";
import { anyBusy, startErrorView, startingView, statusItems, statusLines, stoppedView } from "../status";
import { StatusAnswerJson, StatusReportJson, VaultStatusJson } from "../wire";

/** A vault as an older server reports it: no name, summary or busy. */
function vault(overrides: Partial<VaultStatusJson> = {}): VaultStatusJson {
  return {
    root: "file:///home/me/My%20Vault",
    state: "ready",
    notes: 3177,
    chunks: 7181,
    revision: 3,
    indexed_files: 3177,
    files_to_index: 3177,
    pending_changes: 0,
    message: "",
    vectors: { state: "ready", embedder: "bilingual", embedded: 7181, pending: 0, problem: "" },
    ...overrides,
  };
}

const status = (...vaults: VaultStatusJson[]): StatusAnswerJson => ({ version: "0.1.0", vaults });
const texts = (s: StatusAnswerJson): string[] => statusItems(s).map((item) => item.text);

test("one vault: one item with the server's summary, a spinner while busy", () => {
  const indexing = vault({ state: "indexing", name: "kg", summary: "Indexing 2,000 of 3,177 notes", busy: true });
  assert.deepEqual(texts(status(indexing)), ["$(sync~spin) memlsp · Indexing 2,000 of 3,177 notes"]);
  const embedding = vault({ summary: "Finding meaning: 4,912 of 7,181 sections", busy: true });
  assert.deepEqual(texts(status(embedding)), ["$(sync~spin) memlsp · Finding meaning: 4,912 of 7,181 sections"]);
  assert.deepEqual(texts(status(vault({ summary: "Ready: 3,177 notes", busy: false }))), ["$(check) memlsp · Ready: 3,177 notes"]);
});

test("keyword only is a warning, not indexed an error", () => {
  const down = vault({
    summary: "Ready, keyword search only: no key",
    busy: false,
    vectors: { state: "unavailable", embedder: "endpoint", embedded: 0, pending: 7181, problem: "no key" },
  });
  assert.deepEqual(texts(status(down)), ["$(warning) memlsp · Ready, keyword search only: no key"]);
  const failed = vault({ state: "failed", summary: "Not indexed: disk full", busy: false });
  assert.deepEqual(texts(status(failed)), ["$(error) memlsp · Not indexed: disk full"]);
});

test("several vaults: one item each, named by the vault", () => {
  const items = statusItems(
    status(
      vault({ root: "file:///n/kg", name: "kg", summary: "Ready: 3,177 notes", busy: false }),
      vault({ root: "file:///n/work", name: "work", summary: "Opening", busy: true, state: "opening" }),
    ),
  );
  assert.deepEqual(
    items.map((item) => [item.key, item.text]),
    [
      ["file:///n/kg", "$(check) kg · Ready: 3,177 notes"],
      ["file:///n/work", "$(sync~spin) work · Opening"],
    ],
  );
});

test("an older server without summary gets the same plain words from the counts", () => {
  assert.deepEqual(texts(status(vault({ state: "opening", indexed_files: 0, files_to_index: 0 }))), ["$(sync~spin) memlsp · Opening"]);
  assert.deepEqual(texts(status(vault({ state: "indexing", indexed_files: 2000 }))), [
    "$(sync~spin) memlsp · Indexing 2,000 of 3,177 notes",
  ]);
  const embedding = vault({ vectors: { state: "ready", embedder: "bilingual", embedded: 4912, pending: 2269, problem: "" } });
  assert.deepEqual(texts(status(embedding)), ["$(sync~spin) memlsp: 3,177 notes · vectors 68%"]);
  assert.match(statusLines(status(embedding))[1] ?? "", /Finding meaning: 4,912 of 7,181 sections/);
  assert.deepEqual(texts(status(vault())), ["$(check) memlsp · Ready: 3,177 notes"]);
  const down = vault({ vectors: { state: "unavailable", embedder: "endpoint", embedded: 0, pending: 5, problem: "no key" } });
  assert.deepEqual(texts(status(down)), ["$(warning) memlsp · Ready, keyword search only: no key"]);
  assert.equal(anyBusy(status(down)), false, "an unavailable embedder waits for its retry: nothing moves");
  assert.equal(anyBusy(status(embedding)), true);
});

test("no vault: one item that says so", () => {
  assert.deepEqual(texts(status()), ["$(circle-outline) memlsp: no vault open"]);
  assert.match(statusLines(status())[1] ?? "", /No vault open/);
});

test("the tooltip says what the vault is, its notes and sections, and the semantic side", () => {
  const [item] = statusItems(status(vault({ name: "My Vault", summary: "Ready: 3,177 notes", busy: false })));
  const tooltip = item?.tooltip ?? "";
  assert.match(tooltip, /^memlsp vault My Vault: Ready: 3,177 notes$/m);
  assert.match(tooltip, /^Folder: \/home\/me\/My Vault$/m);
  assert.match(tooltip, /3,177 notes, 7,181 sections indexed/);
  assert.match(tooltip, /Semantic search: on \(bilingual\), every section read/);
});

test("Show Status lines are plain words: no revision, no pending changes", () => {
  const lines = statusLines(
    status(vault({ summary: "Ready: 3,177 notes" }), vault({ root: "file:///w", vectors: null, read_only: true })),
  );
  assert.equal(lines[0], "memlsp 0.1.0");
  assert.equal(lines[1], "My Vault: Ready: 3,177 notes. 3,177 notes, 7,181 sections. Semantic search: on (bilingual), every section read.");
  assert.match(lines[2] ?? "", /^w: Ready: 3,177 notes, read-only .*Semantic search: off \(keyword search only\)\. Read-only\.$/);
  for (const line of lines) {
    assert.doesNotMatch(line, /revision|pending|chunks/);
  }
});

test("while no vault answers, one item: starting (with the command), stopped, or the start error", () => {
  assert.deepEqual(startingView("/v/bin/python -m memlsp --stdio"), {
    key: "",
    kind: "busy",
    text: "$(sync~spin) memlsp · Starting",
    tooltip: "memlsp: starting /v/bin/python -m memlsp --stdio",
  });
  assert.deepEqual(stoppedView(), {
    key: "",
    kind: "failed",
    text: "$(circle-slash) memlsp: stopped",
    tooltip: "memlsp: the server stopped. Click for details.",
  });
  assert.deepEqual(startErrorView("memlsp: not found"), { key: "", kind: "failed", text: "$(error) memlsp", tooltip: "memlsp: not found" });
});

test("while a ready vault's vectors are made, the item counts its notes and how far the vectors are", () => {
  const vectors = { state: "ready" as const, embedder: "bilingual", embedded: 5099, pending: 2082, problem: "" };
  const embedding = vault({ notes: 3176, summary: "Finding meaning: 5,099 of 7,181 sections", busy: true, vectors });
  assert.deepEqual(texts(status(embedding)), ["$(sync~spin) memlsp: 3,176 notes · vectors 71%"]);
  // Never 100% while a section is left; 0% before the first.
  const last = vault({ vectors: { ...vectors, embedded: 7180, pending: 1 } });
  assert.deepEqual(texts(status(last)), ["$(sync~spin) memlsp: 3,177 notes · vectors 99%"]);
  const first = vault({ vectors: { ...vectors, state: "connecting", embedded: 0, pending: 7181 } });
  assert.deepEqual(texts(status(first)), ["$(sync~spin) memlsp: 3,177 notes · vectors 0%"]);
  // Several vaults: named, as the other texts.
  const items = statusItems(status(vault({ root: "file:///n/kg", name: "kg", vectors }), vault({ root: "file:///n/w", name: "w" })));
  assert.deepEqual(
    items.map((item) => item.text),
    ["$(sync~spin) kg: 3,177 notes · vectors 71%", "$(check) w · Ready: 3,177 notes"],
  );
});

test("the coverage is shown only while vectors are made for a ready vault", () => {
  const pending = { state: "ready" as const, embedder: "bilingual", embedded: 10, pending: 90, problem: "" };
  const indexing = vault({ state: "indexing", indexed_files: 2000, vectors: pending });
  assert.deepEqual(texts(status(indexing)), ["$(sync~spin) memlsp · Indexing 2,000 of 3,177 notes"]);
  const down = vault({ vectors: { ...pending, state: "unavailable", problem: "no key" } });
  assert.deepEqual(texts(status(down)), ["$(warning) memlsp · Ready, keyword search only: no key"]);
  const readOnly = vault({ read_only: true, vectors: pending });
  assert.match(texts(status(readOnly))[0] ?? "", /^\$\(check\) memlsp · Ready: 3,177 notes, read-only/);
  assert.deepEqual(texts(status(vault({ vectors: null }))), ["$(check) memlsp · Ready: 3,177 notes"]);
});

test("without a report the tooltip is plain text; with one, Markdown beside it", () => {
  const [plain] = statusItems(status(vault()));
  assert.equal(plain?.markdown, undefined);
  const report: StatusReportJson = {
    root: "/home/me/My Vault",
    name: "My Vault",
    state: "ready",
    read_only: false,
    revision: 1,
    last_changed: null,
    messages: [],
    summary: "Ready: 3,177 notes",
    notes: 3177,
    chunks: 7181,
    links: { total: 12034, unresolved: 41, ambiguous: 0 },
    vectors: {
      state: "ready" as const,
      embedder: "bilingual",
      embedded: 7181,
      pending: 0,
      failed: 0,
      running: false,
      rate_per_second: null,
      eta_seconds: null,
      problem: "",
      off_reason: null,
      models: [],
    },
    not_notes: [],
    problems: [],
    unseen_changes: { count: 0, paths: [] },
    cache: { path: "/c/kg", bytes: 50_331_648 },
    process: { kind: "language server", pid: 42, since: "2026-01-01T00:00:00Z" },
    settings: {},
  };
  const [item] = statusItems(status(vault({ name: "My Vault" })), (root) => (root === "file:///home/me/My%20Vault" ? report : undefined));
  assert.equal(item?.tooltip, plain?.tooltip, "the plain tooltip is kept beside it");
  assert.match(item?.markdown ?? "", /^\*\*memlsp vault My Vault: Ready: 3,177 notes\*\*$/m);
  assert.match(item?.markdown ?? "", /^- 12,034 links \(41 unresolved\)$/m);
  assert.match(item?.markdown ?? "", /^- Index: 48 MB$/m);
});
