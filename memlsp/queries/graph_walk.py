"""The walk of the link graph around one note, as nodes and edges: the link part of the graph view
(graph_view.py) that `memlsp graph` prints and an editor's graph view draws. Pure: it reads a
frozen `LinkGraph` and nothing else.

The walk is breadth-first from the note, `depth` links deep, following outlinks ("out"), inlinks
("in") or both. It reads the links that `memlsp links` lists: every link and embed but those
pointing outside the vault; an ambiguous link leads to the note it resolves to, an alias shared by
several notes to each of them. A link to an attachment (a file that is not a note) leads to a
node of kind "file", named by its path and titled by its file name, and a link nothing in the
vault answers to one of kind "unresolved", named by its target as written: the walk follows
neither (`memlsp links` answers for notes only), so they are always leaves.

Which nodes: those at distance 0..depth. Each followed node (one at distance < depth, never an
unresolved one) takes at most `max_per_node` of its neighbours in each direction, in path order;
each level's new nodes join in path order while the answer has fewer than `max_nodes`. So the
answer is always the nearest notes first, and the same for the same graph.

Which edges: every link the walk read whose two ends are both nodes of the answer, one edge per
(source, target) pair, pointing as the link is written. The walk reads all the links of each
followed node in the followed directions (the caps choose which neighbours become nodes, not
which links are read): its outlinks for "out", its inlinks for "in". So an edge between two nodes
at the same distance is there when one of them was followed in the direction that reads it; the
links of the outermost nodes (at distance `depth`) are never read, so a link between two of them
is not shown. A (source, target) pair read whose other end is not in the answer counts in
`left_out.edges`, and that end in `left_out.nodes`; nothing else is left out.

What was left out is said in `cut`, a sentence that names the parameters as every surface takes
them (`depth`, `direction`, `max_per_node`); `cut_sentence` writes it with other names, as the
command line's text names its flags.

Edges of kind "meaning" (a note's closest notes by meaning) are added beside these by
graph_view.py, which asks the vault's vectors: this walk reads links only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from memlsp.model import (
    DIRECTIONS,
    MAX_NODES,
    MAX_PER_NODE,
    Direction,
    LinkStatus,
    ResolvedLink,
)
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.names import file_name
from memlsp.vault.resolve import target_lookup_keys

NodeKind = Literal["note", "file", "unresolved"]
EdgeKind = Literal["link", "meaning"]


# A node as the walk keys it: a note's path and an unresolved target's text may be the same string.
_Key = tuple[str, NodeKind]  # (id, kind): sorts by id first


@dataclass(frozen=True, slots=True)
class GraphNode:
    id: str  # a vault file's path, or an unresolved link's target as written
    kind: NodeKind
    title: str  # a note's title, another file's name, an unresolved target's text
    distance: int | None  # links from the note the walk started at; None: reached by meaning
    inlinks: int  # notes in the whole vault that link to it
    description: str = ""  # a note's description (its frontmatter's), "" for other nodes
    tags: tuple[str, ...] = ()  # a note's tags without '#', each once, in the note's order


@dataclass(frozen=True, slots=True)
class GraphEdge:
    source: str  # the note the links are written in (the note asked about, for meaning)
    target: str  # a node id
    count: int  # links written in `source` that lead to `target`; 0 for meaning
    line: int | None  # 1-based line of the first of them; None for meaning
    kind: EdgeKind = "link"
    similarity: float | None = None  # meaning: the closest pair of sections' (0..1); links None


@dataclass(frozen=True, slots=True)
class LeftOut:
    nodes: int = 0  # neighbours of followed nodes that are not in the answer
    edges: int = 0  # edges read that lead to one of them
    # Of `nodes`: those past `max_per_node` (by_cap), and those past `max_nodes` (by_room).
    by_cap: int = 0
    by_room: int = 0
    max_per_node: int = MAX_PER_NODE  # the caps the walk had
    max_nodes: int = MAX_NODES


# How the parameters a `cut` sentence names are written: as every surface's request names them.
PARAMETERS = {"depth": "depth", "direction": "direction", "max_per_node": "max_per_node"}


@dataclass(frozen=True, slots=True)
class Neighbourhood:
    note: str
    depth: int
    direction: Direction
    nodes: tuple[GraphNode, ...]  # by (distance, id), those reached by meaning alone last
    edges: tuple[GraphEdge, ...]  # by (source, target, kind)
    left_out: LeftOut = LeftOut()
    cut: str | None = None  # what the caps left out and how to see more; None when nothing
    warning: str | None = None  # why there are no meaning edges, when some were asked for


@dataclass(frozen=True, slots=True)
class _Read:
    """A followed node's links in one direction, grouped by the neighbour at their other end."""

    here: _Key
    outward: bool  # its outlinks (here -> neighbour), else its inlinks (neighbour -> here)
    links: Mapping[_Key, Sequence[ResolvedLink]]  # neighbour -> the links, in the source's order

    def edge(self, neighbour: _Key) -> tuple[_Key, _Key]:
        return (self.here, neighbour) if self.outward else (neighbour, self.here)


def neighbourhood(
    graph: LinkGraph,
    path: str,
    depth: int = 1,
    direction: Direction = "both",
    max_per_node: int = MAX_PER_NODE,
    max_nodes: int = MAX_NODES,
) -> Neighbourhood:
    """The nodes within `depth` links of the note at `path` and the edges between them (see the
    module's docstring for which)."""
    if depth < 1 or max_per_node < 1 or max_nodes < 1:
        raise ValueError("depth, max_per_node and max_nodes must be at least 1")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
    start: _Key = (path, "note")
    distance: dict[_Key, int] = {start: 0}
    reads: list[_Read] = []
    no_room: set[_Key] = set()  # taken by a node, but the answer was full
    level = [start]
    for step in range(1, depth + 1):
        taken: set[_Key] = set()
        for key in level:
            for read in _reads(graph, key[0], direction):
                reads.append(read)
                taken.update(sorted(read.links)[:max_per_node])
        level = []
        for key in sorted(taken - distance.keys()):
            if len(distance) < max_nodes:
                distance[key] = step
                level.append(key)
            else:
                no_room.add(key)
        # Only notes have links to follow: an attachment or an unresolved target goes nowhere.
        level = [key for key in level if key[1] == "note" and key[0] in graph.notes]
        if not level:
            break
    # The node set is settled: now which links read join two of its nodes. A link read whose
    # other end is left out was read from its one followed end, once.
    edges: dict[tuple[_Key, _Key], Sequence[ResolvedLink]] = {}
    left_out_nodes: set[_Key] = set()
    left_out_edges = 0
    for read in reads:
        for neighbour, links in read.links.items():
            if neighbour in distance:
                edges.setdefault(read.edge(neighbour), links)
            else:
                left_out_nodes.add(neighbour)
                left_out_edges += 1
    left_out = LeftOut(
        len(left_out_nodes),
        left_out_edges,
        len(left_out_nodes - no_room),
        len(no_room),
        max_per_node,
        max_nodes,
    )
    return Neighbourhood(
        path,
        depth,
        direction,
        tuple(_nodes(graph, distance)),
        tuple(GraphEdge(s[0], t[0], *_weight(edges[s, t])) for s, t in sorted(edges)),
        left_out,
        cut_sentence(left_out, PARAMETERS),
    )


def _reads(graph: LinkGraph, path: str, direction: Direction) -> Iterator[_Read]:
    if direction != "in":
        yield _outlinks(graph, path)
    if direction != "out":
        yield _inlinks(graph, path)


def _outlinks(graph: LinkGraph, path: str) -> _Read:
    found: dict[_Key, list[ResolvedLink]] = {}
    for item in graph.outlinks(path):
        status = item.resolution.status
        if status is LinkStatus.OUTSIDE:
            continue
        if status is LinkStatus.UNRESOLVED:
            found.setdefault((item.link.target, "unresolved"), []).append(item)
            continue
        for target in item.resolution.targets:
            found.setdefault((target, "note"), []).append(item)
    return _Read((path, "note"), True, found)


def _inlinks(graph: LinkGraph, path: str) -> _Read:
    sources = graph.inlinks_by_source(path)
    return _Read((path, "note"), False, {(source, "note"): sources[source] for source in sources})


def _weight(items: Sequence[ResolvedLink]) -> tuple[int, int]:
    """How many links, and the 1-based line of the first (only for the edges answered: a hub's
    thousands of others are only counted)."""
    lines = [item.link.span.line for item in items]
    return len(lines), min(lines) + 1


def _nodes(graph: LinkGraph, distance: dict[_Key, int]) -> Iterator[GraphNode]:
    unresolved = _unresolved_sources(graph, {name for name, kind in distance if kind != "note"})
    for key in sorted(distance, key=lambda key: (distance[key], key)):
        name, kind = key
        if kind == "unresolved":
            yield GraphNode(name, kind, name, distance[key], unresolved[name])
            continue
        if name not in graph.notes:  # an attachment
            yield GraphNode(name, "file", file_name(name), distance[key], graph.inlink_count(name))
            continue
        yield note_node(graph, name, distance[key])


def note_node(graph: LinkGraph, path: str, distance: int | None) -> GraphNode:
    """The node of a note of the graph, with what a view shows of it besides its title."""
    note = graph.notes[path]
    # A tag's name is written without its '#'; the frontmatter and the text may both have it.
    tags = tuple(dict.fromkeys([tag.name for tag in note.tags])) if note.tags else ()
    return GraphNode(
        path, "note", note.title, distance, graph.inlink_count(path), note.description, tags
    )


def _unresolved_sources(graph: LinkGraph, targets: set[str]) -> dict[str, int]:
    """How many notes have an unresolved link written as each of `targets`. The graph keeps no
    inlinks of a name nothing has, but it knows which notes look up each name: only those are
    read, each once."""
    found: dict[str, set[str]] = {target: set() for target in targets}
    keys = {key for target in targets for key in target_lookup_keys(target)}
    for source in graph.sources_looking_up(keys):
        for item in graph.outlinks(source):
            if item.resolution.status is LinkStatus.UNRESOLVED and item.link.target in found:
                found[item.link.target].add(source)
    return {target: len(sources) for target, sources in found.items()}


def cut_sentence(left_out: LeftOut, named: Mapping[str, str]) -> str | None:
    """What the caps left out and which parameter shows more, the parameters written as `named`
    gives them (`PARAMETERS` for an answer); None when nothing was left out."""
    if not left_out.nodes:
        return None
    why = []
    if left_out.by_cap:
        why.append(
            f"{left_out.by_cap} past the first {left_out.max_per_node} neighbours a note has in "
            f"one direction (a larger {named['max_per_node']} shows more)"
        )
    if left_out.by_room:
        why.append(
            f"{left_out.by_room} past {left_out.max_nodes} nodes in all (a smaller "
            f"{named['depth']} or one {named['direction']} keeps to the nearest)"
        )
    return (
        f"Left out {_count(left_out.nodes, 'node')} and {_count(left_out.edges, 'edge')}: "
        + " and ".join(why)
        + "."
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
