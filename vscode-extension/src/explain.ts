// "Why isn't this note found?": where the note is (its vault and path, what memlsp/search's
// `explain` asks about) and the server's verdict in plain words. Pure, for the unit tests.

import { encodePath } from "./preview";
import { noteName } from "./related";
import type { VaultExplainJson, Verdict, VaultSearchAnswerJson } from "./wire";

/** Each verdict in a few words, before the server's sentence. */
export const VERDICT_WORDS: Record<Verdict, string> = {
  shown: "Found",
  not_a_note: "Not a note",
  not_indexed_yet: "Not indexed yet",
  filtered: "Left out by the filters",
  no_evidence: "No match",
  below_floor: "Too weak a match",
  beyond_limit: "Past the limit",
  cut_by_budget: "Cut by the token budget",
  merged: "Merged into another result",
  linked_only: "Only as a linked note",
};

/** What each verdict means, when the server gives no sentence of its own. */
function fallbackSentence(verdict: string, limit: number): string {
  switch (verdict as Verdict) {
    case "shown":
      return "It is among the results.";
    case "not_a_note":
      return "It is not a note of an open vault (not Markdown, excluded, or outside the vault).";
    case "not_indexed_yet":
      return "It is not indexed yet: search again once the vault is ready.";
    case "filtered":
      return "The search's filters (folder, tag, property or dates) leave it out.";
    case "no_evidence":
      return "It has none of the query's words and is not close to it in meaning.";
    case "below_floor":
      return "Its match is weaker than the least a result must have (min_strength, min_score).";
    case "beyond_limit":
      return `It ranks past the ${limit} results asked for.`;
    case "cut_by_budget":
      return "It ranks among the results, but the token budget left it out.";
    case "merged":
      return "Another section of the same note is shown in its place.";
    case "linked_only":
      return "It is not a result itself, only linked from one.";
  }
  return "The server gave no reason.";
}

/** The two sides' numbers, briefly: "keyword rank 12 (bm25, k1); meaning rank 3 (similarity 0.61)". */
export function explainDetails(entry: VaultExplainJson): string {
  const parts: string[] = [];
  const keyword = entry.keyword;
  if (keyword) {
    if (keyword.rank === null) {
      parts.push("no keyword match");
    } else {
      const terms = keyword.matched_terms?.length ? ` (${keyword.matched_terms.join(", ")})` : "";
      parts.push(`keyword rank ${keyword.rank}${terms}`);
    }
  }
  const vector = entry.vector;
  if (vector) {
    if (!vector.embedded) {
      parts.push("not read for meaning yet");
    } else if (vector.rank === null) {
      parts.push("not ranked by meaning");
    } else {
      const similarity = typeof vector.similarity === "number" ? ` (similarity ${vector.similarity.toFixed(2)})` : "";
      parts.push(`meaning rank ${vector.rank}${similarity}`);
    }
  }
  return parts.join("; ");
}

/** The message for one note: "memlsp: search/bm25.md: No match. <the server's sentence> (numbers)". */
export function explainMessage(entry: VaultExplainJson, limit: number): string {
  const note = entry.path || entry.note || "the note";
  const words = VERDICT_WORDS[entry.verdict] ?? entry.verdict;
  const sentence = entry.sentence?.trim() || fallbackSentence(entry.verdict, limit);
  const details = explainDetails(entry);
  return `memlsp: ${note}: ${words}. ${sentence}${details ? ` (${details})` : ""}`;
}

export type ExplainOutcome =
  | { kind: "explained"; entry: VaultExplainJson; text: string }
  | { kind: "unanswered"; text: string }; // a server too old to explain, or one that said nothing

/** The answer to memlsp/search with `explain: [note]`, as what to tell the user. */
export function explainOutcome(answer: VaultSearchAnswerJson, note: string, limit: number): ExplainOutcome {
  if (!Array.isArray(answer.explain)) {
    return {
      kind: "unanswered",
      text: "memlsp: this server cannot say why a note is not found (its memlsp/search has no explain). Update memlsp.",
    };
  }
  const entry = answer.explain[0];
  if (!entry) {
    return { kind: "unanswered", text: `memlsp: the server said nothing about ${note}.` };
  }
  return { kind: "explained", entry, text: explainMessage(entry, limit) };
}

/** A note's place: its vault's root URI and its path there ("search/bm25.md"). */
export interface NotePlace {
  root: string;
  path: string;
}

/** A URI's path, decoded, for comparing URIs written by the server and by the editor (which
 * percent-encode differently, and may differ in a Windows drive letter's case). */
function comparablePath(uri: string): string {
  const match = /^[a-z][\w+.-]*:\/\/[^/]*(\/.*)?$/i.exec(uri);
  let path = match ? (match[1] ?? "") : uri;
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape: compared as written
  }
  return path.replace(/^\/([A-Za-z]):/, (_, drive: string) => `/${drive.toLowerCase()}:`).replace(/\/+$/, "");
}

/** Where a note is among the open vaults (roots from memlsp/status); the deepest root wins, for a
 * vault inside another's folder. Undefined: in none of them. */
export function notePlace(noteUri: string, roots: readonly string[]): NotePlace | undefined {
  const note = comparablePath(noteUri);
  let best: { root: string; base: string } | undefined;
  for (const root of roots) {
    const base = comparablePath(root);
    if (note.startsWith(`${base}/`) && (!best || base.length > best.base.length)) {
      best = { root, base };
    }
  }
  return best && { root: best.root, path: note.slice(best.base.length + 1) };
}

/** What `explain` names: the vault path when the note is in a vault, else its name. */
export function explainTarget(noteUri: string, roots: readonly string[]): string {
  return notePlace(noteUri, roots)?.path ?? noteName(noteUri);
}

/** Where "Open note" goes: the server's URI, else its path in the vault the note was asked from. */
export function noteToOpen(entry: VaultExplainJson, asked: { uri?: string; root?: string }): string | undefined {
  if (entry.uri) {
    return entry.uri;
  }
  if (entry.path && asked.root) {
    return `${asked.root.replace(/\/+$/, "")}/${encodePath(entry.path)}`;
  }
  return asked.uri; // the file the user chose, a note or not
}
