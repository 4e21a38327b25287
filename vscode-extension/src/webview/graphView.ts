// The graph view's page script (an ES module in the webview, built by tsconfig.webview.json). It
// draws the model the extension sends with force-graph (loaded before it from media/vendor, the
// global `ForceGraph`), filters it as the toolbar asks, and tells the extension what was clicked.
// Note text reaches the DOM through textContent only; colours come from VS Code's theme variables.

import type ForceGraphKind from "force-graph";
import type { GraphViewEdge, GraphViewModel, GraphViewNode, NodeLook } from "../graphModel.js";
import { NODE_RADIUS_UNIT, isEmptyFilter, nodeTooltip, parseFilter, visibleIds } from "../graphModel.js";
import type { HostMessage, WebviewMessage } from "../graphMessages.js";

declare const ForceGraph: typeof ForceGraphKind;
declare function acquireVsCodeApi(): {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
};

interface DrawNode extends GraphViewNode {
  x?: number;
  y?: number;
  fx?: number;
  fy?: number;
  short: string; // the label as drawn next to the node
}

interface DrawLink {
  source: string | DrawNode;
  target: string | DrawNode;
  edge: GraphViewEdge;
}

// The simulation stops after this many ticks or this long, whichever comes first: a big graph is
// laid out well enough by then, and the page stops using the CPU (force-graph then stops redrawing
// until something moves).
const COOLDOWN_TICKS = 300;
const COOLDOWN_MS = 4000;
// Labels on every node only while few show; with more, only when zoomed in far enough to read them.
// The centre's and the hovered node's label always show.
const ALL_LABELS_UP_TO = 150;
const LABEL_ZOOM = 2.5;
const LABEL_PX = 11;
const LABEL_CHARS = 32;
const ARROW_LENGTH = 4;
const MEANING_DASH = [2, 2];
const FIT_PADDING = 30;

const vscode = acquireVsCodeApi();
const container = element("graph");
const depthSelect = element("depth") as HTMLSelectElement;
const filterInput = element("filter") as HTMLInputElement;
const summary = element("summary");
const notice = element("notice");
const messageBox = element("message");

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) {
    throw new Error(`the page has no #${id}`);
  }
  return found;
}

// -- colours from the theme -------------------------------------------------------------------

interface Palette {
  foreground: string;
  looks: Record<NodeLook, string>;
  ring: string;
  unresolvedEdge: string;
  link: string;
  meaning: string;
}

const probe = document.createElement("canvas").getContext("2d");

/** A CSS colour as the canvas writes it back (`#rrggbb` or `rgba(…)`), with `alpha` applied. */
function withAlpha(colour: string, alpha: number): string {
  if (!probe) {
    return colour;
  }
  probe.fillStyle = "#000000";
  probe.fillStyle = colour;
  const normal = String(probe.fillStyle);
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(normal);
  if (hex) {
    const [r, g, b] = [hex[1], hex[2], hex[3]].map((part) => parseInt(part ?? "0", 16));
    return `rgba(${r}, ${g}, ${b}, ${alpha})`;
  }
  const rgba = /^rgba?\(([^,]+),([^,]+),([^,)]+)(?:,([^)]+))?\)$/.exec(normal.replace(/\s+/g, ""));
  if (rgba) {
    const own = rgba[4] === undefined ? 1 : Number(rgba[4]);
    return `rgba(${rgba[1]}, ${rgba[2]}, ${rgba[3]}, ${own * alpha})`;
  }
  return colour;
}

function themeColour(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function readPalette(): Palette {
  const foreground = themeColour("--vscode-editor-foreground", "#cccccc");
  const meaning = themeColour("--vscode-charts-purple", "#b180d7");
  return {
    foreground,
    looks: {
      centre: themeColour("--vscode-charts-yellow", "#cca700"),
      note: themeColour("--vscode-charts-blue", "#3794ff"),
      meaning,
      file: themeColour("--vscode-charts-orange", "#d18616"),
      unresolved: withAlpha(foreground, 0.28),
    },
    ring: themeColour("--vscode-focusBorder", foreground),
    unresolvedEdge: withAlpha(foreground, 0.5),
    link: withAlpha(foreground, 0.35),
    meaning: withAlpha(meaning, 0.75),
  };
}

let palette = readPalette();

// -- state ------------------------------------------------------------------------------------

interface SavedState {
  filter?: string;
}

let model: GraphViewModel | undefined;
let shown = new Set<string>();
let hovered: DrawNode | undefined;
let userMoved = false;
// Measuring the first frame of a graph, and how smooth its layout runs.
let receivedAt = 0;
let awaitingFirstFrame = false;
let settling = false;
let ticks = 0;
let lastFrameAt = 0;
let slowestFrame = 0;
// Per frame, not per node: whether labels show and the font they use.
let labelsOn = false;
let labelFont = "";
let labelScale = 0;

const graph = new ForceGraph<DrawNode, DrawLink>(container)
  .nodeId("id")
  .nodeRelSize(NODE_RADIUS_UNIT)
  .nodeVal((node) => node.size)
  .nodeVisibility((node) => shown.has(node.id))
  .nodeLabel((node) => tooltip(nodeTooltip(node)))
  .nodeCanvasObjectMode(() => "replace")
  .nodeCanvasObject(drawNode)
  .linkVisibility((link) => shown.has(endId(link.source)) && shown.has(endId(link.target)))
  .linkColor(linkColour)
  .linkLineDash((link) => (link.edge.kind === "meaning" ? MEANING_DASH : null))
  .linkWidth((link) => (link.edge.count > 1 ? 1.5 : 1))
  .linkDirectionalArrowLength((link) => (link.edge.kind === "link" ? ARROW_LENGTH : 0))
  .linkDirectionalArrowRelPos(1)
  .linkDirectionalArrowColor(linkColour)
  .linkLabel((link) => (link.edge.hint ? tooltip([link.edge.hint]) : ""))
  .showPointerCursor((target) => Boolean(target && "openable" in target && target.openable))
  .warmupTicks(0)
  .cooldownTicks(COOLDOWN_TICKS)
  .cooldownTime(COOLDOWN_MS)
  .onNodeHover((node) => {
    hovered = node ?? undefined;
  })
  .onNodeClick((node) => {
    if (node.openable) {
      vscode.postMessage({ type: "open", id: node.id });
    }
  })
  .onEngineTick(() => {
    ticks++;
  })
  .onEngineStop(onSettled)
  .onRenderFramePre(beforeFrame)
  .onRenderFramePost(afterFrame);

function endId(end: string | DrawNode): string {
  return typeof end === "string" ? end : end.id;
}

function linkColour(link: DrawLink): string {
  if (link.edge.kind === "meaning") {
    return palette.meaning;
  }
  return typeof link.target !== "string" && link.target.look === "unresolved" ? palette.unresolvedEdge : palette.link;
}

/** A hover's content: one line each, as text. */
function tooltip(lines: readonly string[]): HTMLElement {
  const box = document.createElement("div");
  box.className = "tip";
  lines.forEach((line, index) => {
    const row = document.createElement("div");
    row.className = index === 0 ? "tip-title" : "tip-line";
    row.textContent = line;
    box.appendChild(row);
  });
  return box;
}

function drawNode(node: DrawNode, ctx: CanvasRenderingContext2D, scale: number): void {
  const x = node.x ?? 0;
  const y = node.y ?? 0;
  const radius = NODE_RADIUS_UNIT * Math.sqrt(node.size);
  ctx.fillStyle = palette.looks[node.look];
  ctx.beginPath();
  if (node.look === "file") {
    ctx.rect(x - radius, y - radius, radius * 2, radius * 2);
  } else {
    ctx.arc(x, y, radius, 0, 2 * Math.PI);
  }
  ctx.fill();
  if (node.look === "unresolved") {
    ctx.strokeStyle = palette.unresolvedEdge;
    ctx.lineWidth = 1 / scale;
    ctx.stroke();
  }
  if (node.look === "centre" || node === hovered) {
    ctx.strokeStyle = palette.ring;
    ctx.lineWidth = 2 / scale;
    ctx.beginPath();
    ctx.arc(x, y, radius + 3 / scale, 0, 2 * Math.PI);
    ctx.stroke();
  }
  if (labelsOn || node.look === "centre" || node === hovered) {
    ctx.font = labelFont;
    ctx.fillStyle = node.look === "unresolved" ? palette.looks.unresolved : palette.foreground;
    ctx.fillText(node.short, x, y + radius + 2 / scale);
  }
}

function beforeFrame(ctx: CanvasRenderingContext2D, scale: number): void {
  if (scale !== labelScale) {
    labelScale = scale;
    labelFont = `${LABEL_PX / scale}px ${getComputedStyle(document.body).fontFamily || "sans-serif"}`;
  }
  labelsOn = shown.size <= ALL_LABELS_UP_TO || scale >= LABEL_ZOOM;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  const now = performance.now();
  if (settling && lastFrameAt) {
    slowestFrame = Math.max(slowestFrame, now - lastFrameAt);
  }
  lastFrameAt = now;
}

function afterFrame(): void {
  if (!awaitingFirstFrame) {
    return;
  }
  awaitingFirstFrame = false;
  const ms = performance.now() - receivedAt;
  graph.zoomToFit(0, FIT_PADDING);
  document.body.dataset.firstFrameMs = ms.toFixed(1);
  vscode.postMessage({ type: "frame", ms, nodes: model?.nodes.length ?? 0, edges: model?.edges.length ?? 0 });
}

function onSettled(): void {
  if (!settling) {
    return;
  }
  settling = false;
  if (!userMoved) {
    graph.zoomToFit(400, FIT_PADDING);
  }
  const ms = performance.now() - receivedAt;
  document.body.dataset.settled = "true";
  vscode.postMessage({ type: "settled", ms, ticks, slowest: slowestFrame });
}

// -- showing a graph --------------------------------------------------------------------------

function shortLabel(label: string): string {
  return label.length > LABEL_CHARS ? `${label.slice(0, LABEL_CHARS - 1)}…` : label;
}

function show(next: GraphViewModel): void {
  receivedAt = performance.now();
  // Nodes already drawn keep their place: a deeper graph grows around the one shown.
  const placed = new Map<string, DrawNode>();
  for (const node of graph.graphData().nodes) {
    placed.set(node.id, node);
  }
  const nodes: DrawNode[] = next.nodes.map((node) => {
    const before = placed.get(node.id);
    const drawn: DrawNode = { ...node, short: shortLabel(node.label) };
    if (before?.x !== undefined && before.y !== undefined) {
      drawn.x = before.x;
      drawn.y = before.y;
    }
    if (node.id === next.centre) {
      // The note asked about stays in the middle; the others settle around it.
      drawn.fx = 0;
      drawn.fy = 0;
    }
    return drawn;
  });
  const links: DrawLink[] = next.edges.map((edge) => ({ source: edge.source, target: edge.target, edge }));
  model = next;
  hovered = undefined;
  userMoved = false;
  ticks = 0;
  slowestFrame = 0;
  lastFrameAt = 0;
  settling = true;
  awaitingFirstFrame = true;
  delete document.body.dataset.settled;
  delete document.body.dataset.firstFrameMs;
  applyFilter();
  messageBox.textContent = "";
  container.hidden = false;
  notice.textContent = next.notices.join(" · ");
  document.body.classList.remove("loading");
  graph.graphData({ nodes, links });
}

function applyFilter(): void {
  if (!model) {
    return;
  }
  const filter = parseFilter(filterInput.value);
  shown = visibleIds(model, filter);
  summary.textContent = isEmptyFilter(filter) ? model.summary : `${shown.size.toLocaleString("en-US")} of ${model.summary}`;
  // Accessors read `shown`: setting one again redraws with it.
  graph.nodeVisibility(graph.nodeVisibility());
  graph.linkVisibility(graph.linkVisibility());
}

function showMessage(text: string): void {
  model = undefined;
  shown = new Set();
  graph.graphData({ nodes: [], links: [] });
  container.hidden = true;
  summary.textContent = "";
  notice.textContent = "";
  messageBox.textContent = text;
  document.body.classList.remove("loading");
}

function resize(): void {
  graph.width(container.clientWidth).height(container.clientHeight);
}

// -- events -----------------------------------------------------------------------------------

window.addEventListener("message", (event: MessageEvent<HostMessage>) => {
  const message = event.data;
  if (!message || typeof message !== "object") {
    return;
  }
  if ("depth" in message && typeof message.depth === "number") {
    depthSelect.value = String(message.depth);
  }
  switch (message.type) {
    case "graph":
      show(message.model);
      break;
    case "loading":
      document.body.classList.add("loading");
      break;
    case "message":
      showMessage(message.text);
      break;
  }
});

depthSelect.addEventListener("change", () => {
  document.body.classList.add("loading");
  vscode.postMessage({ type: "depth", n: Number(depthSelect.value) });
});

filterInput.addEventListener("input", () => {
  vscode.setState({ filter: filterInput.value } satisfies SavedState);
  applyFilter();
});

// A user who zooms or drags keeps the view they chose when the layout settles.
for (const name of ["wheel", "pointerdown"]) {
  container.addEventListener(name, () => {
    userMoved = true;
  }, { passive: true });
}

new ResizeObserver(resize).observe(container);

// VS Code sets the theme's variables on <html> and its kind as a class of <body>.
new MutationObserver(() => {
  palette = readPalette();
  graph.linkColor(linkColour);
}).observe(document.documentElement, { attributes: true, attributeFilter: ["style", "class"] });
new MutationObserver(() => {
  palette = readPalette();
  graph.linkColor(linkColour);
}).observe(document.body, { attributes: true, attributeFilter: ["class"] });

/** Where each shown node is on the page, in CSS pixels: for the end-to-end proof, which clicks
 * one as a user does. */
function nodePositions(): { id: string; look: NodeLook; x: number; y: number; radius: number }[] {
  const box = container.getBoundingClientRect();
  const scale = graph.zoom();
  return graph
    .graphData()
    .nodes.filter((node) => shown.has(node.id))
    .map((node) => {
      const at = graph.graph2ScreenCoords(node.x ?? 0, node.y ?? 0);
      return { id: node.id, look: node.look, x: box.left + at.x, y: box.top + at.y, radius: NODE_RADIUS_UNIT * Math.sqrt(node.size) * scale };
    });
}
(window as unknown as { memlspGraphNodes: typeof nodePositions }).memlspGraphNodes = nodePositions;

const saved = vscode.getState() as SavedState | undefined;
filterInput.value = typeof saved?.filter === "string" ? saved.filter : "";
resize();
vscode.postMessage({ type: "ready" });
