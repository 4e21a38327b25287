// What the status bar and "Show Status" say, from memlsp/status. Pure, for the unit tests.
// The server words each vault's state itself (`summary`); an older server without it gets the
// same kind of sentence built here from the counts.

import { count, displayPath, percent, plural } from "./format";
import { reportTooltip } from "./statusReport";
import { StatusAnswerJson, StatusReportJson, VaultStatusJson } from "./wire";

export type StatusKind = "busy" | "ready" | "keyword-only" | "failed";

/** One status bar item: one per vault, or a single one when no vault is open. */
export interface StatusItemView {
  /** Stable per vault, to reuse the same item between refreshes. */
  key: string;
  kind: StatusKind;
  text: string;
  tooltip: string;
  /** The tooltip as Markdown, from the vault's status report, when the server sent one. */
  markdown?: string;
}

const ICONS: Record<StatusKind, string> = {
  busy: "$(sync~spin)",
  ready: "$(check)",
  "keyword-only": "$(warning)",
  failed: "$(error)",
};

export function vaultName(vault: VaultStatusJson): string {
  if (vault.name) {
    return vault.name;
  }
  const parts = vault.root.replace(/\/+$/, "").split("/");
  return decodeURIComponent(parts[parts.length - 1] ?? vault.root);
}

function embedding(vault: VaultStatusJson): boolean {
  const vectors = vault.vectors;
  return (
    !vault.read_only &&
    vectors !== null &&
    vectors.pending > 0 &&
    (vectors.state === "ready" || vectors.state === "connecting")
  );
}

export function isBusy(vault: VaultStatusJson): boolean {
  return vault.busy ?? (vault.state === "opening" || vault.state === "indexing" || embedding(vault));
}

/** The server's summary, or the same kind of sentence from the counts. */
export function summary(vault: VaultStatusJson): string {
  if (vault.summary) {
    return vault.summary;
  }
  const vectors = vault.vectors;
  switch (vault.state) {
    case "opening":
      return "Opening";
    case "indexing":
      return vault.files_to_index
        ? `Indexing ${count(vault.indexed_files)} of ${count(vault.files_to_index)} notes`
        : "Looking for changed notes";
    case "failed":
      return `Not indexed: ${vault.message || "see the memlsp output"}`;
    case "stopped":
      return "Stopped";
  }
  const ready = `Ready: ${plural(vault.notes, "note", "notes")}`;
  if (vault.read_only) {
    return `${ready}, read-only (another memlsp process keeps this vault's index)`;
  }
  if (vectors?.state === "unavailable") {
    return `Ready, keyword search only: ${vectors.problem || "semantic search unavailable"}`;
  }
  if (vectors && embedding(vault)) {
    return `Finding meaning: ${count(vectors.embedded)} of ${count(vectors.embedded + vectors.pending)} sections`;
  }
  return ready;
}

export function statusKind(vault: VaultStatusJson): StatusKind {
  if (isBusy(vault)) {
    return "busy";
  }
  if (vault.state === "failed" || vault.state === "stopped") {
    return "failed";
  }
  return vault.vectors?.state === "unavailable" ? "keyword-only" : "ready";
}

function semanticLine(vault: VaultStatusJson): string {
  const vectors = vault.vectors;
  if (vectors === null || vectors.state === "off") {
    return "Semantic search: off (keyword search only).";
  }
  if (vectors.state === "unavailable") {
    return `Semantic search: unavailable (${vectors.problem || "no reason given"}); keyword search works.`;
  }
  const left = vectors.pending > 0 ? `${plural(vectors.pending, "section", "sections")} still to read` : "every section read";
  const state = vectors.state === "connecting" ? "starting" : "on";
  return `Semantic search: ${state} (${vectors.embedder}), ${left}.`;
}

/** The tooltip: what the vault is, its size and the semantic side. */
export function vaultTooltip(vault: VaultStatusJson): string {
  const lines = [
    `memlsp vault ${vaultName(vault)}: ${summary(vault)}`,
    `Folder: ${displayPath(vault.root)}`,
    `${plural(vault.notes, "note", "notes")}, ${plural(vault.chunks, "section", "sections")} indexed.`,
    semanticLine(vault),
  ];
  if (vault.read_only) {
    lines.push("Read-only: another memlsp process keeps this vault's index; this one answers from it.");
  }
  if (vault.message && !summary(vault).includes(vault.message)) {
    lines.push(vault.message);
  }
  lines.push("Click for details.");
  return lines.join("\n");
}

/** While a ready vault's vectors are being made, the item says how far ("3,176 notes · vectors
 * 71%"): search works already, by meaning only for what is done. */
export function coverageText(vault: VaultStatusJson): string | undefined {
  const vectors = vault.vectors;
  if (vault.state !== "ready" || vectors === null || !embedding(vault)) {
    return undefined;
  }
  return `${plural(vault.notes, "note", "notes")} · vectors ${percent(vectors.embedded, vectors.pending)}%`;
}

/** The status bar: one item per vault, prefixed with its name when there are several. `report`
 * gives a vault's latest status report (asked now and then), for a fuller tooltip. */
export function statusItems(
  status: StatusAnswerJson,
  report: (root: string) => StatusReportJson | undefined = () => undefined,
): StatusItemView[] {
  if (status.vaults.length === 0) {
    return [
      {
        key: "",
        kind: "ready",
        text: "$(circle-outline) memlsp: no vault open",
        tooltip: "memlsp: no vault is open. Open a folder with Markdown notes.",
      },
    ];
  }
  const several = status.vaults.length > 1;
  return status.vaults.map((vault) => {
    const kind = statusKind(vault);
    const label = several ? vaultName(vault) : "memlsp";
    const coverage = coverageText(vault);
    const text = coverage ? `${ICONS[kind]} ${label}: ${coverage}` : `${ICONS[kind]} ${label} · ${summary(vault)}`;
    const view: StatusItemView = { key: vault.root, kind, text, tooltip: vaultTooltip(vault) };
    const full = report(vault.root);
    if (full) {
      view.markdown = reportTooltip(`memlsp vault ${vaultName(vault)}: ${summary(vault)}`, vault, full);
    }
    return view;
  });
}

/** "Show Status": the server's version, then one line per vault. */
export function statusLines(status: StatusAnswerJson): string[] {
  const lines = [`memlsp ${status.version}`];
  if (status.vaults.length === 0) {
    lines.push("No vault open (open a folder with Markdown notes).");
  }
  for (const vault of status.vaults) {
    lines.push(
      `${vaultName(vault)}: ${summary(vault)}. ${plural(vault.notes, "note", "notes")}, ` +
        `${plural(vault.chunks, "section", "sections")}. ${semanticLine(vault)}` +
        (vault.read_only ? " Read-only." : ""),
    );
  }
  return lines;
}

/** Whether to ask again soon: something is moving (an unavailable embedder waits for its retry). */
export function anyBusy(status: StatusAnswerJson): boolean {
  return status.vaults.some(isBusy);
}

// The single item's views while no vault answers: the server starting, stopped, or not started.

export function startingView(commandLine: string): StatusItemView {
  return { key: "", kind: "busy", text: "$(sync~spin) memlsp · Starting", tooltip: `memlsp: starting ${commandLine}` };
}

export function stoppedView(): StatusItemView {
  return { key: "", kind: "failed", text: "$(circle-slash) memlsp: stopped", tooltip: "memlsp: the server stopped. Click for details." };
}

export function startErrorView(message: string): StatusItemView {
  return { key: "", kind: "failed", text: "$(error) memlsp", tooltip: message };
}
