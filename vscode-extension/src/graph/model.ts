// The graph view's model: the server's GraphJson as the webview draws it (what each node looks
// like, how big it is, what a hover says) and the filter box's rules. Pure and free of imports
// but types: the extension builds the model, the webview's script (compiled from this same file
// as an ES module) filters it.

import type { GraphEdgeJson, GraphEdgeKind, GraphJson, GraphNodeJson, GraphNodeKind } from "../wire";

/** How a node is drawn: the note asked about, a note reached by links, one reached only by
 * meaning, another file (an image, a PDF), a link to nothing. */
export type NodeLook = "centre" | "note" | "meaning" | "file" | "unresolved";

export interface GraphViewNode {
  id: string;
  kind: GraphNodeKind;
  look: NodeLook;
  label: string; // the title, else the id
  description: string;
  tags: string[];
  distance: number | null;
  inlinks: number;
  size: number; // the drawing's node value: its radius is NODE_RADIUS_UNIT * sqrt(size)
  openable: boolean; // a note or file with a URI: a click opens it
}

export interface GraphViewEdge {
  source: string;
  target: string;
  kind: GraphEdgeKind;
  count: number;
  similarity: number | null;
  hint: string; // what hovering the edge says ("" for a single link: its arrow says it all)
}

export interface GraphViewModel {
  centre: string; // the id of the note asked about
  depth: number;
  nodes: GraphViewNode[];
  edges: GraphViewEdge[];
  notices: string[]; // what the server cut and why meaning is missing, when it says so
  summary: string;
}

/** The radius of a node with no inlinks, in the drawing's units. */
export const NODE_RADIUS_UNIT = 4;
/** The largest node value: a hub linked from thousands of notes must not cover the others
 * (its radius stays within sqrt(36) = 6 times the smallest). */
export const MAX_NODE_SIZE = 36;

/** A node's value for its size: area grows with inlinks (radius ∝ sqrt(1 + inlinks)), capped. */
export function nodeSize(inlinks: number): number {
  const count = Number.isFinite(inlinks) && inlinks > 0 ? Math.floor(inlinks) : 0;
  return Math.min(1 + count, MAX_NODE_SIZE);
}

export function nodeRadius(inlinks: number): number {
  return NODE_RADIUS_UNIT * Math.sqrt(nodeSize(inlinks));
}

function lookOf(node: GraphNodeJson, centre: string): NodeLook {
  if (node.id === centre) {
    return "centre";
  }
  if (node.kind !== "note") {
    return node.kind;
  }
  return node.distance === null ? "meaning" : "note";
}

function edgeHint(edge: GraphEdgeJson): string {
  if (edge.kind === "meaning") {
    return edge.similarity === null ? "close in meaning" : `close in meaning: similarity ${edge.similarity.toFixed(2)}`;
  }
  return edge.count > 1 ? `${edge.count} links` : "";
}

function plural(count: number, one: string, many: string): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
}

/** The note asked about: the node with its id, else the one at distance 0, else the first. */
function centreOf(graph: GraphJson): string {
  if (graph.nodes.some((node) => node.id === graph.note)) {
    return graph.note;
  }
  return (graph.nodes.find((node) => node.distance === 0) ?? graph.nodes[0])?.id ?? graph.note;
}

/** The model of a graph answer. Nodes are taken once each (the first of an id); an edge whose
 * ends are not both nodes is dropped (the drawing library cannot place it). */
export function graphViewModel(graph: GraphJson): GraphViewModel {
  const centre = centreOf(graph);
  const nodes: GraphViewNode[] = [];
  const ids = new Set<string>();
  for (const node of graph.nodes) {
    if (ids.has(node.id)) {
      continue;
    }
    ids.add(node.id);
    nodes.push({
      id: node.id,
      kind: node.kind,
      look: lookOf(node, centre),
      label: node.title || node.id,
      description: node.description ?? "",
      tags: node.tags ?? [],
      distance: node.distance,
      inlinks: node.inlinks,
      size: nodeSize(node.inlinks),
      openable: node.kind !== "unresolved" && typeof node.uri === "string" && node.uri !== "",
    });
  }
  const edges: GraphViewEdge[] = graph.edges
    .filter((edge) => ids.has(edge.source) && ids.has(edge.target))
    .map((edge) => ({
      source: edge.source,
      target: edge.target,
      kind: edge.kind,
      count: edge.count,
      similarity: edge.similarity,
      hint: edgeHint(edge),
    }));
  const links = edges.filter((edge) => edge.kind === "link").length;
  const meaning = edges.length - links;
  const summary = [
    plural(nodes.length, "node", "nodes"),
    plural(links, "link", "links"),
    ...(meaning ? [`${meaning.toLocaleString("en-US")} by meaning`] : []),
  ].join(" · ");
  const notices = [graph.cut, graph.warning].filter((text): text is string => Boolean(text));
  return { centre, depth: graph.depth, nodes, edges, notices, summary };
}

// -- the filter box ------------------------------------------------------------------------------

/** What the filter box asks, in lower case: every term must match (the centre always shows). */
export interface GraphFilter {
  folders: string[]; // `search/`: ids starting with it
  tags: string[]; // `#ir`: the tag or one nested in it (`ir/ranking`)
  words: string[]; // anything else: in the id or the title
}

export function parseFilter(text: string): GraphFilter {
  const filter: GraphFilter = { folders: [], tags: [], words: [] };
  for (const raw of text.trim().toLowerCase().split(/\s+/)) {
    const term = raw.replace(/^\.?\/+/, ""); // `./search/` and `/search/` are vault folders too
    if (raw.startsWith("#")) {
      const tag = raw.replace(/^#+/, "").replace(/\/+$/, "");
      if (tag) {
        filter.tags.push(tag);
      }
    } else if (term.endsWith("/")) {
      filter.folders.push(term);
    } else if (term) {
      filter.words.push(term);
    }
  }
  return filter;
}

export function isEmptyFilter(filter: GraphFilter): boolean {
  return !filter.folders.length && !filter.tags.length && !filter.words.length;
}

function hasTag(node: GraphViewNode, tag: string): boolean {
  return node.tags.some((own) => {
    const name = own.toLowerCase().replace(/^#/, "");
    return name === tag || name.startsWith(`${tag}/`);
  });
}

export function matchesFilter(node: GraphViewNode, filter: GraphFilter): boolean {
  const id = node.id.toLowerCase();
  return (
    filter.folders.every((folder) => id.startsWith(folder)) &&
    filter.tags.every((tag) => hasTag(node, tag)) &&
    filter.words.every((word) => id.includes(word) || node.label.toLowerCase().includes(word))
  );
}

/** The ids the filter leaves shown: the centre always, every node when the filter is empty. */
export function visibleIds(model: GraphViewModel, filter: GraphFilter): Set<string> {
  const empty = isEmptyFilter(filter);
  const shown = new Set<string>();
  for (const node of model.nodes) {
    if (empty || node.id === model.centre || matchesFilter(node, filter)) {
      shown.add(node.id);
    }
  }
  return shown;
}

/** A node's hover: its title, then its path when that differs, its description and tags. */
export function nodeTooltip(node: GraphViewNode): string[] {
  const lines = [node.label];
  if (node.id !== node.label) {
    lines.push(node.id);
  }
  if (node.look === "unresolved") {
    lines.push("not written yet");
  } else if (node.look === "meaning") {
    lines.push("close in meaning, not linked");
  }
  if (node.description) {
    lines.push(node.description);
  }
  if (node.tags.length) {
    lines.push(node.tags.map((tag) => `#${tag.replace(/^#/, "")}`).join(" "));
  }
  if (node.kind !== "unresolved") {
    lines.push(`${node.inlinks.toLocaleString("en-US")} ${node.inlinks === 1 ? "inlink" : "inlinks"}`);
  }
  return lines;
}
