"""The JSON of the graph view around a note (`memlsp graph --json` and `memlsp/graph`): its
nodes, the links between them and the note's closest notes by meaning; and the bounds the
language server announces for it in its `initialize` answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypedDict

from memlsp.queries.graph_view import GraphBounds
from memlsp.queries.graph_walk import Neighbourhood

GraphDirection = Literal["both", "out", "in"]
GraphNodeKind = Literal["note", "file", "unresolved"]
GraphEdgeKind = Literal["link", "meaning"]  # links as written; a note's closest notes by meaning


class _GraphNodeJson(TypedDict):
    id: str  # a vault file's path, or an unresolved link's target as written
    kind: GraphNodeKind
    title: str  # a note's title, another file's name, an unresolved target's text
    distance: int | None  # links from the note asked about; None: reached only by meaning
    inlinks: int  # notes in the whole vault that link to it
    description: str  # a note's description, "" for other nodes
    tags: list[str]  # a note's tags without '#', each once, in the note's order


class GraphNodeJson(_GraphNodeJson, total=False):
    uri: str  # `memlsp/graph` only, for "note" and "file" nodes


class GraphEdgeJson(TypedDict):
    source: str  # node ids; a link always as written, source -> target; meaning from the note
    target: str
    kind: GraphEdgeKind
    count: int  # links written in source that lead to target; 0 for meaning
    line: int | None  # 1-based line of the first of them in source; None for meaning
    similarity: float | None  # meaning: the closest pair of sections' similarity, 0..1


class GraphLeftOutJson(TypedDict):
    nodes: int  # what the caps left out of the answer
    edges: int


class GraphJson(TypedDict):
    """`memlsp graph --json` and `memlsp/graph`: the notes within `depth` links of a note, the
    links between them (memlsp/queries/graph_walk.py says which), and the note's closest
    notes by meaning (memlsp/queries/graph_view.py)."""

    note: str
    depth: int
    direction: GraphDirection
    nodes: list[GraphNodeJson]  # by distance, then id; those reached only by meaning last
    edges: list[GraphEdgeJson]  # by source, then target, then kind
    left_out: GraphLeftOutJson
    cut: str | None  # what the caps left out and how to see more; None when nothing
    warning: str | None  # why there are no meaning edges, when some were asked for


def graph_json(answer: Neighbourhood, note_uri: Callable[[str], str] | None = None) -> GraphJson:
    """The answer as JSON; with `note_uri`, each note's and file's `uri` (for an editor)."""
    nodes: list[GraphNodeJson] = []
    for node in answer.nodes:
        data: GraphNodeJson = {
            "id": node.id,
            "kind": node.kind,
            "title": node.title,
            "distance": node.distance,
            "inlinks": node.inlinks,
            "description": node.description,
            "tags": list(node.tags),
        }
        if note_uri is not None and node.kind != "unresolved":
            data["uri"] = note_uri(node.id)
        nodes.append(data)
    return {
        "note": answer.note,
        "depth": answer.depth,
        "direction": answer.direction,
        "nodes": nodes,
        "edges": [
            {
                "source": edge.source,
                "target": edge.target,
                "kind": edge.kind,
                "count": edge.count,
                "line": edge.line,
                "similarity": edge.similarity,
            }
            for edge in answer.edges
        ],
        "left_out": {"nodes": answer.left_out.nodes, "edges": answer.left_out.edges},
        "cut": answer.cut,
        "warning": answer.warning,
    }


class GraphBoundsJson(TypedDict):
    """`capabilities.experimental.memlspGraph`: what `memlsp/graph` takes
    (memlsp/queries/graph_view.py `GraphBounds`), so a client asks within it."""

    min_depth: int
    max_depth: int
    max_per_node: int  # the most `max_per_node` may be
    max_nodes: int  # the most `max_nodes` may be


def graph_bounds_json() -> GraphBoundsJson:
    bounds = GraphBounds()
    return {
        "min_depth": bounds.min_depth,
        "max_depth": bounds.max_depth,
        "max_per_node": bounds.max_per_node,
        "max_nodes": bounds.max_nodes,
    }
