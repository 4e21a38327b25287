import assert from "node:assert/strict";
import { test } from "node:test";
import {
  MAX_NODE_SIZE,
  NODE_RADIUS_UNIT,
  graphViewModel,
  isEmptyFilter,
  matchesFilter,
  nodeRadius,
  nodeSize,
  nodeTooltip,
  parseFilter,
  visibleIds,
} from "../graph/model";
import { GraphEdgeJson, GraphJson, GraphNodeJson } from "../wire";

function node(id: string, overrides: Partial<GraphNodeJson> = {}): GraphNodeJson {
  return {
    id,
    kind: "note",
    title: id.replace(/^.*\//, "").replace(/\.md$/, ""),
    distance: 1,
    inlinks: 0,
    description: "",
    tags: [],
    uri: `file:///vault/${id}`,
    ...overrides,
  };
}

function link(source: string, target: string, overrides: Partial<GraphEdgeJson> = {}): GraphEdgeJson {
  return { source, target, kind: "link", count: 1, line: 3, similarity: null, ...overrides };
}

// index.md links to search/bm25.md (twice) and to a note not written yet; search/bm25.md links to a
// picture; travel/kyoto.md is close to index.md in meaning only.
function graph(overrides: Partial<GraphJson> = {}): GraphJson {
  return {
    note: "index.md",
    depth: 2,
    direction: "both",
    nodes: [
      node("index.md", { distance: 0, inlinks: 3, title: "Index", tags: ["home"] }),
      node("search/bm25.md", { title: "BM25", inlinks: 8, description: "Okapi ranking", tags: ["ir", "search/ranking"] }),
      node("Learning to Rank", { kind: "unresolved", title: "Learning to Rank", uri: undefined }),
      node("search/figure.png", { kind: "file", title: "figure.png", distance: 2 }),
      node("travel/kyoto.md", { title: "Kyoto", distance: null, tags: ["travel"] }),
    ],
    edges: [
      link("index.md", "Learning to Rank"),
      link("index.md", "search/bm25.md", { count: 2 }),
      { source: "index.md", target: "travel/kyoto.md", kind: "meaning", count: 0, line: null, similarity: 0.8234 },
      link("search/bm25.md", "search/figure.png"),
    ],
    left_out: { nodes: 0, edges: 0 },
    cut: null,
    warning: null,
    ...overrides,
  };
}

test("each node's look: the centre, notes by link or by meaning, files, unresolved links", () => {
  const model = graphViewModel(graph());
  assert.equal(model.centre, "index.md");
  assert.deepEqual(
    model.nodes.map((n) => [n.id, n.look, n.openable]),
    [
      ["index.md", "centre", true],
      ["search/bm25.md", "note", true],
      ["Learning to Rank", "unresolved", false],
      ["search/figure.png", "file", true],
      ["travel/kyoto.md", "meaning", true],
    ],
  );
  assert.equal(model.depth, 2);
  assert.equal(model.summary, "5 nodes · 3 links · 1 by meaning");
  assert.deepEqual(model.notices, []);
});

test("node size grows with inlinks as the area does, capped for hubs", () => {
  assert.equal(nodeSize(0), 1);
  assert.equal(nodeSize(8), 9);
  assert.equal(nodeSize(10_000), MAX_NODE_SIZE);
  assert.equal(nodeSize(-1), 1);
  assert.equal(nodeSize(Number.NaN), 1);
  assert.equal(nodeRadius(0), NODE_RADIUS_UNIT);
  assert.equal(nodeRadius(3), 2 * NODE_RADIUS_UNIT); // sqrt(1 + 3)
  assert.equal(nodeRadius(1e6), Math.sqrt(MAX_NODE_SIZE) * NODE_RADIUS_UNIT);
  const sizes = Object.fromEntries(graphViewModel(graph()).nodes.map((n) => [n.id, n.size]));
  assert.equal(sizes["index.md"], 4);
  assert.equal(sizes["search/bm25.md"], 9);
});

test("edges: hover text for meaning (its similarity) and repeated links; edges to no node are dropped", () => {
  const model = graphViewModel(graph({ edges: [...graph().edges, link("index.md", "gone.md")] }));
  assert.deepEqual(
    model.edges.map((e) => [e.source, e.target, e.kind, e.hint]),
    [
      ["index.md", "Learning to Rank", "link", ""],
      ["index.md", "search/bm25.md", "link", "2 links"],
      ["index.md", "travel/kyoto.md", "meaning", "close in meaning: similarity 0.82"],
      ["search/bm25.md", "search/figure.png", "link", ""],
    ],
  );
});

test("the server's cut and warning are shown; a repeated node id is taken once", () => {
  const model = graphViewModel(
    graph({
      nodes: [...graph().nodes, node("search/bm25.md", { title: "again" })],
      cut: "40 more nodes left out: ask for depth 1",
      warning: "no meaning yet: vectors are being made",
    }),
  );
  assert.equal(model.nodes.filter((n) => n.id === "search/bm25.md").length, 1);
  assert.equal(model.nodes.find((n) => n.id === "search/bm25.md")?.label, "BM25");
  assert.deepEqual(model.notices, ["40 more nodes left out: ask for depth 1", "no meaning yet: vectors are being made"]);
});

test("the centre is the note asked about, else the node at distance 0; a title falls back to the id", () => {
  const model = graphViewModel(graph({ note: "elsewhere.md" }));
  assert.equal(model.centre, "index.md");
  assert.equal(graphViewModel(graph({ nodes: [node("a.md", { title: "" })], edges: [] })).nodes[0]?.label, "a.md");
  assert.equal(graphViewModel(graph({ nodes: [], edges: [] })).summary, "0 nodes · 0 links");
});

test("the filter box: folder prefixes, tags (with nested ones), words, all in lower case", () => {
  assert.deepEqual(parseFilter("  Search/  #IR  kyoto ./travel/ #a/ "), {
    folders: ["search/", "travel/"],
    tags: ["ir", "a"],
    words: ["kyoto"],
  });
  assert.ok(isEmptyFilter(parseFilter("   ")));
  assert.ok(isEmptyFilter(parseFilter("#")));
  const nodes = new Map(graphViewModel(graph()).nodes.map((n) => [n.id, n]));
  const bm25 = nodes.get("search/bm25.md");
  assert.ok(bm25);
  assert.ok(matchesFilter(bm25, parseFilter("search/")));
  assert.ok(matchesFilter(bm25, parseFilter("#ir")));
  assert.ok(matchesFilter(bm25, parseFilter("#search")), "a nested tag search/ranking is in #search");
  assert.ok(!matchesFilter(bm25, parseFilter("#sea")), "a tag matches whole, not a prefix of its name");
  assert.ok(matchesFilter(bm25, parseFilter("bm2")));
  assert.ok(matchesFilter(bm25, parseFilter("search/ #ir")));
  assert.ok(!matchesFilter(bm25, parseFilter("search/ #travel")), "every term must match");
  assert.ok(!matchesFilter(bm25, parseFilter("travel/")));
});

test("what a filter shows: matching nodes and always the centre; nothing hidden when it is empty", () => {
  const model = graphViewModel(graph());
  assert.deepEqual([...visibleIds(model, parseFilter(""))], model.nodes.map((n) => n.id));
  assert.deepEqual([...visibleIds(model, parseFilter("search/"))], ["index.md", "search/bm25.md", "search/figure.png"]);
  assert.deepEqual([...visibleIds(model, parseFilter("#travel"))], ["index.md", "travel/kyoto.md"]);
  assert.deepEqual([...visibleIds(model, parseFilter("#nothing"))], ["index.md"]);
});

test("a node's hover: title, path, what it is, description, tags, inlinks", () => {
  const nodes = new Map(graphViewModel(graph()).nodes.map((n) => [n.id, n]));
  const tip = (id: string): string[] => {
    const found = nodes.get(id);
    assert.ok(found);
    return nodeTooltip(found);
  };
  assert.deepEqual(tip("search/bm25.md"), ["BM25", "search/bm25.md", "Okapi ranking", "#ir #search/ranking", "8 inlinks"]);
  assert.deepEqual(tip("Learning to Rank"), ["Learning to Rank", "not written yet"]);
  assert.deepEqual(tip("travel/kyoto.md"), ["Kyoto", "travel/kyoto.md", "close in meaning, not linked", "#travel", "0 inlinks"]);
});
