// The messages between the graph view's webview and the extension. What the webview sends is
// checked before anything is done with it: the page shows note text from the vault, and a
// message is only ever one of these, about a node of the graph it was sent.

import { type DepthRange, inRange } from "./bounds";
import type { GraphViewModel } from "./model";

/** From the extension to the webview. */
export type HostMessage =
  | { type: "graph"; model: GraphViewModel; depth: number; seq: number } // seq: the page's replies name it
  | { type: "loading"; depth: number }
  | { type: "message"; text: string; depth: number }; // no graph to show, and why

/** From the webview to the extension. */
export type WebviewMessage =
  | { type: "ready" } // the page's script runs: send what it should show
  | { type: "open"; id: string } // a node was clicked
  | { type: "depth"; n: number } // the depth chosen in the toolbar
  | { type: "frame"; seq: number; ms: number; nodes: number; edges: number } // a graph's first frame is drawn
  | { type: "settled"; seq: number; ms: number; ticks: number; slowest: number }; // its layout stopped moving

// Far above any real figure: a number beyond it is no measurement.
const MAX_MEASURE = 1e7;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => own.includes(key));
}

function isMeasure(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= MAX_MEASURE;
}

function isCount(value: unknown): value is number {
  return isMeasure(value) && Number.isInteger(value);
}

/** The message if it is one the webview may send about this graph (its node ids) with the depths
 * it offers, else undefined: unknown types, extra fields, ids of no node, other depths are all refused. */
export function parseWebviewMessage(raw: unknown, ids: ReadonlySet<string>, depths: DepthRange): WebviewMessage | undefined {
  if (!isRecord(raw)) {
    return undefined;
  }
  switch (raw.type) {
    case "ready":
      return hasKeys(raw, ["type"]) ? { type: "ready" } : undefined;
    case "open":
      return hasKeys(raw, ["type", "id"]) && typeof raw.id === "string" && ids.has(raw.id)
        ? { type: "open", id: raw.id }
        : undefined;
    case "depth":
      return hasKeys(raw, ["type", "n"]) && isCount(raw.n) && inRange(raw.n, depths)
        ? { type: "depth", n: raw.n }
        : undefined;
    case "frame":
      return hasKeys(raw, ["type", "seq", "ms", "nodes", "edges"]) &&
        isCount(raw.seq) &&
        isMeasure(raw.ms) &&
        isCount(raw.nodes) &&
        isCount(raw.edges)
        ? { type: "frame", seq: raw.seq, ms: raw.ms, nodes: raw.nodes, edges: raw.edges }
        : undefined;
    case "settled":
      return hasKeys(raw, ["type", "seq", "ms", "ticks", "slowest"]) &&
        isCount(raw.seq) &&
        isMeasure(raw.ms) &&
        isCount(raw.ticks) &&
        isMeasure(raw.slowest)
        ? { type: "settled", seq: raw.seq, ms: raw.ms, ticks: raw.ticks, slowest: raw.slowest }
        : undefined;
    default:
      return undefined;
  }
}
