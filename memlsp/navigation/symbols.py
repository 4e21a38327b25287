"""Workspace symbols for an empty query: the notes most linked to, the vault's hubs."""

from __future__ import annotations

import heapq

from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.view import VaultView


def most_linked(view: VaultView, limit: int) -> list[str]:
    """Note paths by number of linking notes (most first, then by path).

    A note's links to itself are not counted, as in hover's inlink count. The graph counts them,
    and checking costs a walk over the note's outlinks, so only notes that can still make the
    list are checked: a correction lowers a count by at most one, so once the raw counts rank a
    note `limit`-th with `k` sources, no note with fewer than `k - 1` can make it.
    """
    if limit <= 0:
        return []
    graph = view.graph
    raw = {path: graph.inlink_count(path) for path in graph.notes}
    ranked = heapq.nlargest(limit, raw.values())
    floor = ranked[-1] - 1 if len(ranked) == limit else 0
    candidates = [path for path, count in raw.items() if count >= floor]

    def order(path: str) -> tuple[int, str]:
        return -(raw[path] - _links_itself(graph, path)), path

    return heapq.nsmallest(limit, candidates, key=order)


def _links_itself(graph: LinkGraph, path: str) -> int:
    return int(any(path in item.resolution.targets for item in graph.outlinks(path)))
