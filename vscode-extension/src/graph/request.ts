// The question the graph view asks (memlsp/graph's params) and what the view says when there is no
// graph to draw. Pure, for the unit tests; the panel sends the question.

import type { GraphDirection } from "../wire";

/** memlsp/graph's params (memlsp/lsp/features/graph_view.py). */
export interface GraphParams {
  uri: string;
  depth: number; // within the server's bounds
  direction: GraphDirection;
  meaning: number; // how many notes closest in meaning to add (0: none)
}

const MEANING_NEIGHBOURS = 5;
const METHOD_NOT_FOUND = -32601; // JSON-RPC's code: a server from before memlsp/graph

export function graphParams(uri: string, depth: number): GraphParams {
  return { uri, depth, direction: "both", meaning: MEANING_NEIGHBOURS };
}

/** What the view says while no server answers: one is starting, or none runs. */
export function noServerText(starting: boolean): string {
  return starting ? "Waiting for the memlsp server…" : "The memlsp server is not running.";
}

export const NO_VAULT_TEXT = "This note is in no open vault: open its folder to see its graph.";

/** What the view says when the question failed: an older server is told apart from an error. */
export function failureText(error: unknown): string {
  const unknown = typeof error === "object" && error !== null && "code" in error && error.code === METHOD_NOT_FOUND;
  return unknown
    ? "This memlsp server has no graph (it does not answer memlsp/graph): update memlsp, then Restart Server."
    : `Could not ask for the graph: ${error instanceof Error ? error.message : String(error)}`;
}
