"""The graph around a note with its closest notes by meaning: what `memlsp graph` and the
`memlsp/graph` request answer.

The link part is the walk of navigation/neighbourhood.py, as it is. Beside it, the note's closest
notes by meaning (search/related.py, asked through `Related`, the snapshot's `related`), each as
an edge of kind "meaning" from the note to it, weighed by the similarity of their closest pair of
sections. A note only meaning reaches is a node of its own with no distance (it is no number of
links away as far as the walk knows). Link edges are never hidden: two notes both linked and close
in meaning have an edge of each kind. Without vectors there are no meaning edges, and the answer's
`warning` says why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from memlsp.model import MAX_NODES, MAX_PER_NODE, MEANING, MOST_MEANING, Direction
from memlsp.navigation.neighbourhood import (
    GraphEdge,
    Neighbourhood,
    neighbourhood,
    note_node,
)
from memlsp.search.related import RelatedAnswer
from memlsp.vault.link_graph import LinkGraph

# The notes closest in meaning to the note at a path, the first `limit` of them.
Related = Callable[[str, int], RelatedAnswer]

SIMILARITY_PLACES = 3


def graph_around(
    graph: LinkGraph,
    path: str,
    related: Related,
    depth: int = 1,
    direction: Direction = "both",
    meaning: int = MEANING,
    max_per_node: int = MAX_PER_NODE,
    max_nodes: int = MAX_NODES,
) -> Neighbourhood:
    """The link graph within `depth` links of the note at `path`, and its `meaning` closest notes
    by meaning (none for 0)."""
    if not 0 <= meaning <= MOST_MEANING:
        raise ValueError(f"meaning must be from 0 to {MOST_MEANING}, not {meaning}")
    links = neighbourhood(graph, path, depth, direction, max_per_node, max_nodes)
    if meaning == 0:
        return links
    return with_meaning(graph, links, related(path, meaning))


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
