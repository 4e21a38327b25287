// The graph's depth bounds. The server decides them and announces them in its initialize result
// (`capabilities.experimental.memlspGraph`); the view's toolbar offers the depths within them and
// the extension refuses any other depth from the page. A server from before that announcement
// gets the depths the view has always offered. Pure: the unit tests and the panel use it.

import type { GraphBoundsJson } from "../wire";

/** The depths the view offers, both ends included. */
export interface DepthRange {
  readonly min: number;
  readonly max: number;
}

// The view offers at most 3 links away even when the server allows more. Around a note of a real
// vault, depth 3 already reaches most notes that link to anything; deeper, the drawing becomes one
// knot the eye cannot follow and slower to lay out, while the server's node cap cuts it anyway.
// The command line and MCP, which answer in text, take the server's whole range.
export const VIEW_MAX_DEPTH = 3;

/** What a server that announces no bounds gets: the view as it always was. */
export const DEFAULT_DEPTHS: DepthRange = { min: 1, max: VIEW_MAX_DEPTH };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1;
}

/** The bounds a server announced in its initialize result, or undefined when it announced none
 * (an older server) or announced something that is not bounds (ignored rather than trusted). */
export function announcedBounds(initializeResult: unknown): GraphBoundsJson | undefined {
  const capabilities = isRecord(initializeResult) ? initializeResult.capabilities : undefined;
  const experimental = isRecord(capabilities) ? capabilities.experimental : undefined;
  const graph = isRecord(experimental) ? experimental.memlspGraph : undefined;
  if (!isRecord(graph)) {
    return undefined;
  }
  const { min_depth, max_depth, max_per_node, max_nodes } = graph;
  if (
    !isPositiveInteger(min_depth) ||
    !isPositiveInteger(max_depth) ||
    !isPositiveInteger(max_per_node) ||
    !isPositiveInteger(max_nodes) ||
    min_depth > max_depth
  ) {
    return undefined;
  }
  return { min_depth, max_depth, max_per_node, max_nodes };
}

/** The depths the view offers under these bounds: the server's, up to VIEW_MAX_DEPTH. */
export function depthRange(bounds: GraphBoundsJson | undefined): DepthRange {
  if (!bounds) {
    return DEFAULT_DEPTHS;
  }
  return { min: bounds.min_depth, max: Math.max(bounds.min_depth, Math.min(bounds.max_depth, VIEW_MAX_DEPTH)) };
}

/** Each depth of the range, smallest first: the toolbar's choices. */
export function depthChoices(range: DepthRange): number[] {
  return Array.from({ length: range.max - range.min + 1 }, (_, index) => range.min + index);
}

export function inRange(value: unknown, range: DepthRange): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= range.min && value <= range.max;
}

/** A depth as the extension keeps it: a whole number in the range, else `fallback` (itself brought
 * into the range: a server whose smallest depth is above it would refuse it). */
export function clampDepth(value: unknown, fallback: number, range: DepthRange): number {
  if (inRange(value, range)) {
    return value;
  }
  return Math.min(Math.max(fallback, range.min), range.max);
}

export function sameRange(a: DepthRange, b: DepthRange): boolean {
  return a.min === b.min && a.max === b.max;
}
