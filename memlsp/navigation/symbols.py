"""Workspace symbols for an empty query: the notes most linked to, the vault's hubs."""

from __future__ import annotations

import heapq

from memlsp.engine import Engine


def most_linked(engine: Engine, limit: int) -> list[str]:
    """Note paths by number of linking notes (most first, then by path).

    A note's links to itself are not counted, as in hover's inlink count. The graph counts them,
    so the count is corrected only where it can change the answer: for notes with any inlinks.
    """
    if limit <= 0:
        return []
    with engine.lock:
        graph = engine.graph

        def count(path: str) -> int:
            raw = graph.inlink_count(path)
            if raw and any(path in item.resolution.targets for item in graph.outlinks(path)):
                return raw - 1
            return raw

        return heapq.nsmallest(limit, graph.notes, key=lambda path: (-count(path), path))
