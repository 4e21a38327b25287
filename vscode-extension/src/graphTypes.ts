// The JSON of the server's `memlsp/graph` request (memlsp/wire.py's GraphJson with the fields the
// editor's graph view needs). Kept apart from wire.ts until the server's side lands; then these
// move there under the same names (wire.ts's GraphJson of `memlsp graph --json` grows into this).
// Types only: the webview's script imports them too.

import type { GraphDirection, GraphNodeKind } from "./wire";

export type GraphEdgeKind = "link" | "meaning"; // links as written; a note's closest by meaning

export interface GraphNodeJson {
  id: string; // a vault file's path, or an unresolved link's target as written
  kind: GraphNodeKind;
  title: string; // a note's title, another file's name, an unresolved target's text
  distance: number | null; // links from the note asked about; null: reached only by meaning
  inlinks: number; // notes in the whole vault that link to it
  description: string; // a note's description, "" for other nodes
  tags: string[]; // a note's tags without '#'
  uri?: string; // for "note" and "file" nodes
}

export interface GraphEdgeJson {
  source: string; // node ids; a link always as written, source -> target; meaning from the note
  target: string;
  kind: GraphEdgeKind;
  count: number; // links written in source that lead to target; 0 for meaning
  line: number | null; // 1-based line of the first of them in source; null for meaning
  similarity: number | null; // meaning: the closest pair of sections' similarity, 0..1
}

export interface GraphLeftOutJson {
  nodes: number; // what the caps left out of the answer
  edges: number;
}

/** The notes within `depth` links of a note, the links between them, and the note's closest
 * notes by meaning. */
export interface GraphJson {
  note: string;
  depth: number;
  direction: GraphDirection;
  nodes: GraphNodeJson[]; // by distance, then id; those reached only by meaning last
  edges: GraphEdgeJson[]; // by source, then target, then kind
  left_out: GraphLeftOutJson;
  cut: string | null; // what the caps left out and how to see more; null when nothing
  warning: string | null; // why there are no meaning edges, when some were asked for
}

/** `memlsp/graph`'s params. */
export interface GraphParams {
  uri: string;
  depth: number; // 1..3
  direction: GraphDirection;
  meaning: number; // how many notes closest in meaning to add (0: none)
}

/** `memlsp/graph`'s result: null when the URI is no note of an open vault. */
export type GraphAnswer = GraphJson | null;
