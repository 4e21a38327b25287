// What the status bar and "Show Status" say, from memlsp/status, memlsp/indexed and
// memlsp/vectors. Pure, for the unit tests.

export interface VectorsJson {
  state: string; // "off", "connecting", "ready", "unavailable" (memlsp/index/semantic.py)
  embedder: string;
  embedded: number;
  pending: number;
  problem: string; // "" when there is none
}

export interface VaultStatus {
  root: string;
  state: string; // "opening", "indexing", "ready", "stopped" (memlsp/live.py)
  notes: number;
  chunks: number;
  revision: number;
  indexed_files: number;
  files_to_index: number;
  pending_changes: number;
  message: string | null;
  vectors: VectorsJson | null;
}

export interface StatusResponse {
  version: string;
  vaults: VaultStatus[];
}

function vaultName(root: string): string {
  const parts = root.replace(/\/+$/, "").split("/");
  return decodeURIComponent(parts[parts.length - 1] ?? root);
}

function vectorsLine(vectors: VectorsJson | null): string {
  if (vectors === null || vectors.state === "off") {
    return "semantic search off";
  }
  if (vectors.state === "unavailable") {
    return `semantic search unavailable (${vectors.problem || "no reason given"})`;
  }
  const pending = vectors.pending > 0 ? `, ${vectors.pending} pending` : "";
  return `${vectors.embedder}: ${vectors.embedded} chunks embedded${pending} (${vectors.state})`;
}

/** Lines for the output channel / information message, one block per vault. */
export function statusLines(status: StatusResponse): string[] {
  const lines = [`memlsp ${status.version}`];
  if (status.vaults.length === 0) {
    lines.push("no vault open (open a folder with Markdown notes)");
  }
  for (const vault of status.vaults) {
    const progress =
      vault.state === "indexing" ? ` ${vault.indexed_files}/${vault.files_to_index} files` : "";
    lines.push(
      `${vaultName(vault.root)}: ${vault.state}${progress}, ${vault.notes} notes, ${vault.chunks} chunks, ` +
        `revision ${vault.revision}, ${vault.pending_changes} pending changes; ${vectorsLine(vault.vectors)}` +
        (vault.message ? `; ${vault.message}` : ""),
    );
  }
  return lines;
}

/** The status bar's text: the least finished state over all vaults wins. */
export function statusBarText(status: StatusResponse): string {
  const indexing = status.vaults.filter((v) => v.state === "indexing" || v.state === "opening");
  if (indexing.length > 0) {
    const done = indexing.reduce((sum, v) => sum + v.indexed_files, 0);
    const total = indexing.reduce((sum, v) => sum + v.files_to_index, 0);
    return `$(sync~spin) memlsp: indexing ${done}/${total}`;
  }
  const pending = status.vaults.reduce((sum, v) => sum + (v.vectors?.pending ?? 0), 0);
  if (pending > 0) {
    return `$(sparkle) memlsp: ${pending} to embed`;
  }
  if (status.vaults.some((v) => v.vectors?.state === "unavailable")) {
    return "$(warning) memlsp: keyword only";
  }
  return "$(check) memlsp";
}
