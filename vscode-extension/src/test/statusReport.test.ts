import assert from "node:assert/strict";
import { test } from "node:test";
import { duration, percent, size } from "../format";
import { StatusReports } from "../reportSchedule";
import { escapeMarkdown, reportTooltip, vectorsLine } from "../statusReport";
import { ReportVectorsJson, StatusAnswerJson, StatusReportJson, VaultStatusJson } from "../wire";

function vault(overrides: Partial<VaultStatusJson> = {}): VaultStatusJson {
  return {
    root: "file:///home/me/kg",
    name: "kg",
    summary: "Finding meaning: 5,099 of 7,181 sections",
    busy: true,
    state: "ready",
    notes: 3176,
    chunks: 7181,
    revision: 3,
    indexed_files: 3176,
    files_to_index: 3176,
    pending_changes: 0,
    message: "",
    vectors: { state: "ready", embedder: "bilingual", embedded: 5099, pending: 2082, problem: "" },
    ...overrides,
  };
}

function vectors(overrides: Partial<ReportVectorsJson> = {}): ReportVectorsJson {
  return {
    state: "ready",
    embedder: "bilingual",
    embedded: 5000,
    pending: 2181,
    failed: 0,
    running: true,
    rate_per_second: 9.5,
    eta_seconds: 230,
    problem: "",
    off_reason: null,
    models: [{ name: "bilingual", embedded: 5000 }],
    ...overrides,
  };
}

function report(overrides: Partial<StatusReportJson> = {}): StatusReportJson {
  return {
    root: "/home/me/kg",
    name: "kg",
    state: "ready",
    read_only: false,
    revision: 3,
    last_changed: "2026-01-01T00:00:00Z",
    messages: [],
    summary: "Finding meaning: 5,000 of 7,181 sections",
    notes: 3176,
    chunks: 7181,
    links: { total: 12034, unresolved: 41, ambiguous: 3 },
    vectors: vectors(),
    not_notes: [
      { reason: "too_large", detail: "over max_file_bytes", count: 2, paths: ["big.md"], rule: null, source: null },
      { reason: "not_utf8", detail: "", count: 1, paths: ["x.md"], rule: null, source: null },
    ],
    problems: [{ kind: "unreadable", count: 1, paths: ["locked.md"] }],
    unseen_changes: { count: 5, paths: ["a.md"] },
    cache: { path: "/c/kg", bytes: 50_331_648 },
    process: { kind: "language server", pid: 42, since: "2026-01-01T00:00:00Z" },
    settings: { embedder: { value: "bilingual", source: "default" } },
    ...overrides,
  };
}

test("the report's tooltip: a headline, then one short line each, counts only", () => {
  const tooltip = reportTooltip("memlsp vault kg: Finding meaning: 5,099 of 7,181 sections", vault(), report());
  assert.equal(
    tooltip,
    [
      "**memlsp vault kg: Finding meaning: 5,099 of 7,181 sections**",
      "",
      "- Folder: /home/me/kg",
      "- 3,176 notes, 7,181 sections",
      "- 12,034 links (41 unresolved, 3 ambiguous)",
      "- Vectors (bilingual): 71%, 5,099 of 7,181 sections, about 4 min left",
      "- Not notes: 2 too large, 1 not utf8",
      "- Problems: 1 unreadable",
      "- Changed on disk, not indexed yet: 5 files",
      "- Index: 48 MB",
      "",
      "Click for details.",
    ].join("\n"),
  );
  assert.doesNotMatch(tooltip, /big\.md|locked\.md|a\.md/, "groups are counts: no paths in a tooltip");
});

test("lines with nothing to say are left out; a read-only vault says so", () => {
  const quiet = report({
    links: { total: 1, unresolved: 0, ambiguous: 0 },
    not_notes: [],
    problems: [{ kind: "unreadable", count: 0, paths: [] }],
    unseen_changes: { count: 0, paths: [] },
  });
  const tooltip = reportTooltip("h", vault({ read_only: true }), quiet);
  assert.match(tooltip, /^- 1 link$/m);
  assert.doesNotMatch(tooltip, /Not notes|Problems|Changed on disk/);
  assert.match(tooltip, /^- Read-only: another memlsp process keeps this vault's index$/m);
});

test("the vectors line: off and why, unavailable and why, done, starting, failures", () => {
  assert.equal(vectorsLine(vectors({ state: "off", off_reason: "embedder none" }), null), "Vectors: off, keyword search only: embedder none");
  assert.equal(vectorsLine(vectors({ state: "off" }), null), "Vectors: off, keyword search only");
  assert.equal(
    vectorsLine(vectors({ state: "unavailable", embedder: "endpoint", problem: "no key in $KEY" }), null),
    "Vectors (endpoint): unavailable, keyword search only: no key in $KEY",
  );
  assert.equal(vectorsLine(vectors({ embedded: 7181, pending: 0, eta_seconds: null }), null), "Vectors (bilingual): all 7,181 sections");
  assert.equal(
    vectorsLine(vectors({ embedded: 7179, pending: 0, failed: 2 }), null),
    "Vectors (bilingual): all 7,179 sections; 2 sections failed",
  );
  // Not measured yet: no time left is guessed.
  assert.equal(
    vectorsLine(vectors({ state: "connecting", embedded: 0, pending: 7181, eta_seconds: null, rate_per_second: null }), null),
    "Vectors (bilingual): 0%, 0 of 7,181 sections, starting",
  );
  // The report's time left, when there is no newer count: 230 s.
  assert.match(vectorsLine(vectors(), null), /: 69%, 5,000 of 7,181 sections, about 4 min left$/);
  // The plain answer's counts are newer than the report's, and the time left follows at the
  // measured rate: 181 sections at 9.5 a second.
  const live = { state: "ready" as const, embedder: "bilingual", embedded: 7000, pending: 181, problem: "" };
  assert.match(vectorsLine(vectors(), live), /: 97%, 7,000 of 7,181 sections, less than a minute left$/);
});

test("the server's words are shown as text, not read as Markdown", () => {
  assert.equal(escapeMarkdown("a_b *c* [d](e) <img> #f |g|"), "a\\_b \\*c\\* \\[d\\](e) \\<img\\> \\#f \\|g\\|");
  const tooltip = reportTooltip("vault **x**", vault({ root: "file:///n/my_vault" }), report({ not_notes: [{ reason: "*bold*", detail: "", count: 1, paths: [], rule: null, source: null }] }));
  assert.match(tooltip, /^\*\*vault \\\*\\\*x\\\*\\\*\*\*$/m);
  assert.match(tooltip, /^- Folder: \/n\/my\\_vault$/m);
  assert.match(tooltip, /^- Not notes: 1 \\\*bold\\\*$/m);
});

test("numbers in words: time left, sizes, percentages", () => {
  assert.equal(duration(20), "less than a minute");
  assert.equal(duration(230), "about 4 min");
  assert.equal(duration(3600), "about 1 h");
  assert.equal(duration(7500), "about 2 h 5 min");
  assert.equal(size(512), "512 B");
  assert.equal(size(3482), "3.4 KB");
  assert.equal(size(50_331_648), "48 MB");
  assert.equal(size(1.25 * 1024 ** 3), "1.3 GB");
  assert.equal(percent(0, 0), 100);
  assert.equal(percent(999, 1), 99);
  assert.equal(percent(1, 0), 100);
});

// -- when the report is asked -------------------------------------------------------------------

const answer = (...vaults: VaultStatusJson[]): StatusAnswerJson => ({ version: "0.1.0", vaults });

test("the report is asked with the first answer, then at most every 30 s while polling", () => {
  const reports = new StatusReports();
  assert.equal(reports.due(0), true, "the first answer");
  reports.take(answer(vault({ report: report() })), true, 0);
  assert.deepEqual(reports.get("file:///home/me/kg")?.links.total, 12034);
  for (const now of [2000, 4000, 29_999]) {
    assert.equal(reports.due(now), false, `not at ${now} ms`);
    assert.equal(reports.take(answer(vault()), false, now), false);
  }
  assert.ok(reports.get("file:///home/me/kg"), "a plain answer keeps the latest report");
  assert.equal(reports.due(30_000), true);
});

test("memlsp/indexed and a vault becoming ready ask for it at once", () => {
  const reports = new StatusReports();
  reports.take(answer(vault()), true, 0);
  reports.force();
  assert.equal(reports.due(1000), true, "after memlsp/indexed");
  reports.take(answer(vault()), true, 1000);
  assert.equal(reports.due(3000), false);
  // Busy, then ready in a plain answer: ask again now.
  assert.equal(reports.take(answer(vault({ busy: false, vectors: null })), false, 3000), true);
  assert.equal(reports.due(3000), true);
  assert.equal(reports.take(answer(vault({ busy: false, vectors: null })), true, 3000), false, "once");
  assert.equal(reports.take(answer(vault({ busy: false, vectors: null })), false, 5000), false, "still ready: nothing new");
});

test("an older server's answer without a report leaves the plain tooltip; a closed vault is forgotten", () => {
  const reports = new StatusReports();
  reports.take(answer(vault({ report: report() }), vault({ root: "file:///w", report: report() })), true, 0);
  reports.take(answer(vault()), true, 30_000);
  assert.equal(reports.get("file:///home/me/kg"), undefined, "asked, and none came");
  assert.equal(reports.get("file:///w"), undefined, "no longer open");
});
