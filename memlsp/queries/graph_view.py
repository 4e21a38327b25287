"""The graph view: the link graph around a note with its closest notes by meaning, as one checked
request (`GraphAsk`) answers it for `memlsp graph`, the `memlsp/graph` request and the MCP `links`
tool (through `Snapshot.graph_view`).

A `GraphAsk` is made only by `graph_ask`, which checks loosely typed input (CLI flags, a JSON
request's params) against the one set of bounds every surface has (`GRAPH_BOUNDS`; the language
server announces them in its `initialize` answer) and says what is wrong in a sentence, as
search/request.py does for a search.

The link part is the walk of graph_walk.py, as it is. Beside it, the note's closest notes by
meaning (search/related.py, asked through `Related`, the snapshot's `related`), each as an edge of
kind "meaning" from the note to it, weighed by the similarity of their closest pair of sections. A
note only meaning reaches is a node of its own with no distance (it is no number of links away as
far as the walk knows). Link edges are never hidden: two notes both linked and close in meaning
have an edge of each kind. Without vectors there are no meaning edges, and the answer's `warning`
says why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from memlsp.model import (
    DIRECTIONS,
    MAX_DEPTH,
    MAX_NODES,
    MAX_PER_NODE,
    MEANING,
    MIN_DEPTH,
    MOST_MEANING,
    Direction,
)
from memlsp.queries.graph_walk import GraphEdge, Neighbourhood, neighbourhood, note_node
from memlsp.vault.link_graph import LinkGraph

if TYPE_CHECKING:  # the command line reads the bounds without loading the search side
    from memlsp.search.related import RelatedAnswer

# The notes closest in meaning to the note at a path, the first `limit` of them.
Related = Callable[[str, int], "RelatedAnswer"]

SIMILARITY_PLACES = 3


@dataclass(frozen=True, slots=True)
class Bound:
    """A whole number a graph view takes: its default and the values it may have."""

    default: int
    low: int
    high: int


# The one set of bounds (their numbers in model.py, which the command line reads without loading
# the graph): more closest notes than `memlsp/related` gives are not asked for; an answer holds at
# most MAX_NODES nodes.
GRAPH_BOUNDS: Mapping[str, Bound] = {
    "depth": Bound(MIN_DEPTH, MIN_DEPTH, MAX_DEPTH),
    "max_per_node": Bound(MAX_PER_NODE, 1, MAX_NODES),
    "max_nodes": Bound(MAX_NODES, 1, MAX_NODES),
    "meaning": Bound(MEANING, 0, MOST_MEANING),
}


@dataclass(frozen=True, slots=True)
class GraphBounds:
    """What a client may ask of a graph view, as the language server announces it."""

    min_depth: int = MIN_DEPTH
    max_depth: int = MAX_DEPTH
    max_per_node: int = GRAPH_BOUNDS["max_per_node"].high
    max_nodes: int = GRAPH_BOUNDS["max_nodes"].high


@dataclass(frozen=True, slots=True)
class GraphAsk:
    """A graph view asked of one note; made by `graph_ask`, so always within `GRAPH_BOUNDS`."""

    note: str  # vault-relative path of the note
    depth: int = GRAPH_BOUNDS["depth"].default
    direction: Direction = "both"
    max_per_node: int = GRAPH_BOUNDS["max_per_node"].default
    max_nodes: int = GRAPH_BOUNDS["max_nodes"].default
    meaning: int = GRAPH_BOUNDS["meaning"].default  # closest notes by meaning; 0: links only


def _quoted(name: str) -> str:
    return f"'{name}'"


def graph_ask(
    note: str, values: Mapping[str, Any], named: Callable[[str], str] = _quoted
) -> GraphAsk:
    """A checked `GraphAsk` for `note` from `values` (a parameter left out or None takes its
    default). Raises ValueError with a sentence a user can act on, which names a parameter as
    `named` writes it (`'depth'` by default; the command line passes `--depth`)."""
    numbers = {name: _whole(values, name, bound, named) for name, bound in GRAPH_BOUNDS.items()}
    direction = values.get("direction")
    if direction is None:
        direction = "both"
    chosen = next((d for d in DIRECTIONS if d == direction), None)
    if chosen is None:
        shown = (
            f", not {direction!r}" if isinstance(direction, str) and len(direction) <= 40 else ""
        )
        raise ValueError(f"{named('direction')} must be one of {', '.join(DIRECTIONS)}{shown}")
    return GraphAsk(note, direction=chosen, **numbers)


def _whole(values: Mapping[str, Any], name: str, bound: Bound, named: Callable[[str], str]) -> int:
    value = values.get(name)
    if value is None:
        return bound.default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{named(name)} must be a whole number from {bound.low} to {bound.high}")
    if not bound.low <= value <= bound.high:
        raise ValueError(f"{named(name)} must be from {bound.low} to {bound.high}, not {value}")
    return value


def graph_view(graph: LinkGraph, ask: GraphAsk, related: Related) -> Neighbourhood:
    """The link graph within `ask.depth` links of the note, and its `ask.meaning` closest notes
    by meaning (none for 0)."""
    links = neighbourhood(
        graph, ask.note, ask.depth, ask.direction, ask.max_per_node, ask.max_nodes
    )
    if ask.meaning <= 0:
        return links
    return with_meaning(graph, links, related(ask.note, ask.meaning))


def with_meaning(graph: LinkGraph, links: Neighbourhood, found: RelatedAnswer) -> Neighbourhood:
    """`links` with an edge of kind "meaning" from its note to each note `found`, and a node
    without distance for each of them the links did not reach; or, when none was found, the
    reason as the answer's warning."""
    have = {node.id for node in links.nodes if node.kind == "note"}
    edges = list(links.edges)
    added = []
    for other in found.results:
        if other.path not in graph.notes:
            continue  # gone since the vectors answered: it is found again next time
        similarity = round(min(max(other.closest.similarity, 0.0), 1.0), SIMILARITY_PLACES)
        edges.append(GraphEdge(links.note, other.path, 0, None, "meaning", similarity))
        if other.path not in have:
            have.add(other.path)
            added.append(note_node(graph, other.path, None))
    if len(edges) == len(links.edges):
        why = found.warning or f"no note is close in meaning to {links.note}"
        return replace(links, warning=why)
    return replace(
        links,
        nodes=(*links.nodes, *sorted(added, key=lambda node: node.id)),
        edges=tuple(sorted(edges, key=lambda edge: (edge.source, edge.target, edge.kind))),
    )
