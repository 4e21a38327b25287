// The graph view's page script (an ES module in the webview, built by tsconfig.webview.json). It
// draws the model the extension sends with force-graph (loaded before it from media/vendor, the
// global `ForceGraph`), filters it as the toolbar asks, and tells the extension what was clicked.
// Note text reaches the DOM through textContent only; colours come from VS Code's theme variables.

import type ForceGraphKind from "force-graph";
import type { GraphViewEdge, GraphViewModel, GraphViewNode, NodeLook } from "../graph/model.js";
import { NODE_RADIUS_UNIT, isEmptyFilter, nodeTooltip, parseFilter, visibleIds } from "../graph/model.js";
import type { HostMessage, WebviewMessage } from "../graph/messages.js";

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
  __controlPoints?: number[] | null; // force-graph's, for a curved link: [x, y]
}

// The simulation stops after this many ticks or this long, whichever comes first: a big graph is
// laid out well enough by then, and the page stops using the CPU (force-graph then stops redrawing
// until something moves). A big graph cools faster, to settle within those ticks.
const COOLDOWN_TICKS = 300;
const COOLDOWN_MS = 4000;
const BIG_GRAPH = 500;
const ALPHA_DECAY = 0.0228; // d3-force's own: 300 ticks to settle
const BIG_ALPHA_DECAY = 0.05; // about 140 ticks
// Labels on every node only while few show; with more, only when zoomed in far enough to read them.
// The centre's and the hovered node's label always show.
const ALL_LABELS_UP_TO = 150;
const LABEL_ZOOM = 2.5;
const LABEL_PX = 11;
const LABEL_CHARS = 32;
const ARROW_LENGTH = 4;
const ARROW_MIN_PX = 2; // an arrow smaller than this on screen is not drawn: it could not be seen
const MEANING_DASH = [2, 2];
// Meaning edges bend: one between two linked notes stays apart from their link.
const MEANING_CURVATURE = 0.25;
const FIT_PADDING = 30;
const MAX_FIT_ZOOM = 2; // a graph of a few notes is not blown up to fill the view
const LINK_GAP = 30; // d3-force's link distance, kept between the nodes' rims

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
  arrow: string;
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
    arrow: withAlpha(foreground, 0.6),
    meaning: withAlpha(meaning, 0.75),
  };
}

let palette = readPalette();

// -- state ------------------------------------------------------------------------------------

interface SavedState {
  filter?: string;
}

let model: GraphViewModel | undefined;
let seq = 0; // the graph shown, as the extension numbered it
// What is drawn, as the drawing library holds it (it adds positions to these very objects).
let drawNodes: DrawNode[] = [];
let drawLinks: DrawLink[] = [];
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
// The part of the drawing on screen, in its own units: labels outside it are not drawn.
let viewLeft = 0;
let viewTop = 0;
let viewRight = 0;
let viewBottom = 0;
let labelFont = "";
let labelScale = 0;

const graph = new ForceGraph<DrawNode, DrawLink>(container)
  .nodeId("id")
  .nodeRelSize(NODE_RADIUS_UNIT)
  .nodeVal((node) => node.size)
  .nodeVisibility((node) => shown.has(node.id))
  .nodeLabel((node) => tooltip(nodeTooltip(node)))
  // Nodes, arrows and labels are drawn after the links in a few batched paths (afterFrame), not one
  // path per node: with two thousand nodes that is most of a frame's time.
  .nodeCanvasObjectMode(() => "replace")
  .nodeCanvasObject(() => undefined)
  .linkVisibility((link) => shown.has(endId(link.source)) && shown.has(endId(link.target)))
  .linkColor(linkColour)
  .linkLineDash((link) => (link.edge.kind === "meaning" ? MEANING_DASH : null))
  .linkWidth((link) => (link.edge.count > 1 ? 1.5 : 1))
  .linkCurvature((link) => (link.edge.kind === "meaning" ? MEANING_CURVATURE : 0))
  .linkLabel((link) => (link.edge.hint ? tooltip([link.edge.hint]) : ""))
  // Only edges with something to say on hover are found under the pointer.
  .linkPointerAreaPaint(paintLinkArea)
  .showPointerCursor((target) => Boolean(target && "openable" in target && target.openable))
  .warmupTicks(0)
  .d3AlphaDecay(ALPHA_DECAY)
  .cooldownTicks(COOLDOWN_TICKS)
  .cooldownTime(COOLDOWN_MS)
  .onNodeHover((node) => {
    hovered = node ?? undefined;
    redraw(); // its ring and label
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

// Links keep their nodes' rims apart, not their centres: big nodes do not cover their neighbours.
graph.d3Force("link")?.distance((link: DrawLink) => {
  const { source, target } = link;
  return LINK_GAP + (typeof source === "string" ? 0 : radiusOf(source)) + (typeof target === "string" ? 0 : radiusOf(target));
});

/** A frame now, even after the layout stopped (force-graph then draws only when asked): setting
 * an accessor again asks, and nothing else. */
function redraw(): void {
  graph.linkColor(linkColour);
}

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

function paintLinkArea(link: DrawLink, colour: string, ctx: CanvasRenderingContext2D, scale: number): void {
  if (!link.edge.hint || typeof link.source === "string" || typeof link.target === "string") {
    return;
  }
  ctx.strokeStyle = colour;
  ctx.lineWidth = 6 / scale;
  const bend = link.__controlPoints;
  ctx.beginPath();
  ctx.moveTo(link.source.x ?? 0, link.source.y ?? 0);
  if (bend && bend.length === 2) {
    ctx.quadraticCurveTo(bend[0] ?? 0, bend[1] ?? 0, link.target.x ?? 0, link.target.y ?? 0);
  } else {
    ctx.lineTo(link.target.x ?? 0, link.target.y ?? 0);
  }
  ctx.stroke();
}

const LOOKS: readonly NodeLook[] = ["unresolved", "file", "meaning", "note", "centre"];

function radiusOf(node: DrawNode): number {
  return NODE_RADIUS_UNIT * Math.sqrt(node.size);
}

/** One path of every shown node of a look (circles; squares for files), filled once. */
function drawNodesOf(ctx: CanvasRenderingContext2D, look: NodeLook, scale: number): void {
  ctx.beginPath();
  for (const node of drawNodes) {
    if (node.look !== look || !shown.has(node.id)) {
      continue;
    }
    const x = node.x ?? 0;
    const y = node.y ?? 0;
    const radius = radiusOf(node);
    if (look === "file") {
      ctx.rect(x - radius, y - radius, radius * 2, radius * 2);
    } else {
      ctx.moveTo(x + radius, y);
      ctx.arc(x, y, radius, 0, 2 * Math.PI);
    }
  }
  ctx.fillStyle = palette.looks[look];
  ctx.fill();
  if (look === "unresolved") {
    ctx.strokeStyle = palette.unresolvedEdge;
    ctx.lineWidth = 1 / scale;
    ctx.stroke();
  }
}

/** The arrowheads of the shown links, at the edge of each target, in one path. */
function drawArrows(ctx: CanvasRenderingContext2D, scale: number): void {
  if (ARROW_LENGTH * scale < ARROW_MIN_PX) {
    return;
  }
  const half = ARROW_LENGTH / 2;
  ctx.beginPath();
  for (const link of drawLinks) {
    const { source, target } = link;
    if (link.edge.kind !== "link" || typeof source === "string" || typeof target === "string") {
      continue;
    }
    if (!shown.has(source.id) || !shown.has(target.id)) {
      continue;
    }
    const dx = (target.x ?? 0) - (source.x ?? 0);
    const dy = (target.y ?? 0) - (source.y ?? 0);
    const length = Math.hypot(dx, dy);
    const radius = radiusOf(target);
    if (length <= radius + ARROW_LENGTH) {
      continue;
    }
    const ux = dx / length;
    const uy = dy / length;
    const tipX = (target.x ?? 0) - ux * radius;
    const tipY = (target.y ?? 0) - uy * radius;
    const baseX = tipX - ux * ARROW_LENGTH;
    const baseY = tipY - uy * ARROW_LENGTH;
    ctx.moveTo(tipX, tipY);
    ctx.lineTo(baseX - uy * half, baseY + ux * half);
    ctx.lineTo(baseX + uy * half, baseY - ux * half);
    ctx.closePath();
  }
  ctx.fillStyle = palette.arrow;
  ctx.fill();
}

function drawRing(ctx: CanvasRenderingContext2D, node: DrawNode, scale: number): void {
  ctx.strokeStyle = palette.ring;
  ctx.lineWidth = 2 / scale;
  ctx.beginPath();
  ctx.arc(node.x ?? 0, node.y ?? 0, radiusOf(node) + 3 / scale, 0, 2 * Math.PI);
  ctx.stroke();
}

function drawLabel(ctx: CanvasRenderingContext2D, node: DrawNode, scale: number): void {
  ctx.fillStyle = node.look === "unresolved" ? palette.looks.unresolved : palette.foreground;
  ctx.fillText(node.short, node.x ?? 0, (node.y ?? 0) + radiusOf(node) + 2 / scale);
}

function drawOverLinks(ctx: CanvasRenderingContext2D, scale: number): void {
  drawArrows(ctx, scale);
  for (const look of LOOKS) {
    drawNodesOf(ctx, look, scale);
  }
  const centre = drawNodes.find((node) => node.look === "centre");
  if (centre) {
    drawRing(ctx, centre, scale);
  }
  if (hovered && hovered !== centre && shown.has(hovered.id)) {
    drawRing(ctx, hovered, scale);
  }
  ctx.font = labelFont;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  if (labelsOn) {
    const margin = (LABEL_PX * LABEL_CHARS) / scale; // a label reaches this far from its node
    for (const node of drawNodes) {
      const x = node.x ?? 0;
      const y = node.y ?? 0;
      const inView = x > viewLeft - margin && x < viewRight + margin && y > viewTop - margin && y < viewBottom + margin;
      if (inView && shown.has(node.id)) {
        drawLabel(ctx, node, scale);
      }
    }
  } else {
    if (centre) {
      drawLabel(ctx, centre, scale);
    }
    if (hovered && hovered !== centre && shown.has(hovered.id)) {
      drawLabel(ctx, hovered, scale);
    }
  }
}

function beforeFrame(_ctx: CanvasRenderingContext2D, scale: number): void {
  if (scale !== labelScale) {
    labelScale = scale;
    labelFont = `${LABEL_PX / scale}px ${getComputedStyle(document.body).fontFamily || "sans-serif"}`;
  }
  labelsOn = shown.size <= ALL_LABELS_UP_TO || scale >= LABEL_ZOOM;
  const topLeft = graph.screen2GraphCoords(0, 0);
  const bottomRight = graph.screen2GraphCoords(graph.width(), graph.height());
  viewLeft = topLeft.x;
  viewTop = topLeft.y;
  viewRight = bottomRight.x;
  viewBottom = bottomRight.y;
  const now = performance.now();
  if (settling && lastFrameAt) {
    slowestFrame = Math.max(slowestFrame, now - lastFrameAt);
  }
  lastFrameAt = now;
}

function afterFrame(ctx: CanvasRenderingContext2D, scale: number): void {
  drawOverLinks(ctx, scale);
  if (!awaitingFirstFrame) {
    return;
  }
  awaitingFirstFrame = false;
  const ms = performance.now() - receivedAt;
  fit(0);
  document.body.dataset.firstFrameMs = ms.toFixed(1);
  vscode.postMessage({ type: "frame", seq, ms, nodes: model?.nodes.length ?? 0, edges: model?.edges.length ?? 0 });
}

/** The shown nodes in view, not zoomed in further than MAX_FIT_ZOOM. */
function fit(ms: number): void {
  const box = graph.getGraphBbox((node) => shown.has(node.id));
  if (!box) {
    return;
  }
  const [left, right] = box.x;
  const [top, bottom] = box.y;
  const scale = Math.min(
    MAX_FIT_ZOOM,
    Math.max(graph.width() - 2 * FIT_PADDING, 1) / Math.max(right - left, 1),
    Math.max(graph.height() - 2 * FIT_PADDING, 1) / Math.max(bottom - top, 1),
  );
  graph.centerAt((left + right) / 2, (top + bottom) / 2, ms);
  graph.zoom(scale, ms);
}

function onSettled(): void {
  if (!settling) {
    return;
  }
  settling = false;
  if (!userMoved) {
    fit(400);
  }
  const ms = performance.now() - receivedAt;
  document.body.dataset.settled = "true";
  vscode.postMessage({ type: "settled", seq, ms, ticks, slowest: slowestFrame });
}

// -- showing a graph --------------------------------------------------------------------------

function shortLabel(label: string): string {
  return label.length > LABEL_CHARS ? `${label.slice(0, LABEL_CHARS - 1)}…` : label;
}

function show(next: GraphViewModel, number: number): void {
  receivedAt = performance.now();
  // Nodes already drawn keep their place: a deeper graph grows around the one shown.
  const placed = new Map<string, DrawNode>();
  for (const node of drawNodes) {
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
  seq = number;
  drawNodes = nodes;
  drawLinks = links;
  hovered = undefined;
  userMoved = false;
  ticks = 0;
  slowestFrame = 0;
  lastFrameAt = 0;
  settling = true;
  awaitingFirstFrame = true;
  delete document.body.dataset.settled;
  delete document.body.dataset.firstFrameMs;
  graph.d3AlphaDecay(nodes.length > BIG_GRAPH ? BIG_ALPHA_DECAY : ALPHA_DECAY);
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
  redraw(); // the accessors read `shown`
}

function showMessage(text: string): void {
  model = undefined;
  drawNodes = [];
  drawLinks = [];
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
      show(message.model, message.seq);
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
const themeChanged = new MutationObserver(() => {
  palette = readPalette();
  redraw();
});
themeChanged.observe(document.documentElement, { attributes: true, attributeFilter: ["style", "class"] });
themeChanged.observe(document.body, { attributes: true, attributeFilter: ["class"] });

/** Where each shown node is drawn, in CSS pixels from the canvas's top left corner: for the
 * end-to-end proof, which clicks one as a user does. */
function nodePositions(): { id: string; look: NodeLook; x: number; y: number; radius: number }[] {
  const scale = graph.zoom();
  return drawNodes
    .filter((node) => shown.has(node.id))
    .map((node) => {
      const at = graph.graph2ScreenCoords(node.x ?? 0, node.y ?? 0);
      return { id: node.id, look: node.look, x: at.x, y: at.y, radius: radiusOf(node) * scale };
    });
}
(window as unknown as { memlspGraphNodes: typeof nodePositions }).memlspGraphNodes = nodePositions;

const saved = vscode.getState() as SavedState | undefined;
filterInput.value = typeof saved?.filter === "string" ? saved.filter : "";
resize();
vscode.postMessage({ type: "ready" });
