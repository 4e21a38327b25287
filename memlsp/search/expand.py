"""Link expansion: the notes around a result."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from memlsp.model import Hit, LinkStatus, Neighbour
from memlsp.text import basename
from memlsp.vault.link_graph import LinkGraph


def outlink_neighbours(graph: LinkGraph, path: str) -> list[Neighbour]:
    """Resolved outlinks in the order written, one entry per target with every anchor used."""
    anchors: dict[str, list[str]] = {}
    for item in graph.outlinks(path):
        if item.resolution.status not in (LinkStatus.RESOLVED, LinkStatus.AMBIGUOUS):
            continue
        for target in item.resolution.targets:
            if target == path:
                continue
            found = anchors.setdefault(target, [])
            if item.link.anchor and item.link.anchor not in found:
                found.append(item.link.anchor)
    return [_neighbour(graph, target, tuple(found)) for target, found in anchors.items()]


def inlink_neighbours(graph: LinkGraph, path: str) -> Iterator[Neighbour]:
    """Notes linking here, most-linked first (then by path), with the anchors they link to.

    Lazy, so a hub with thousands of inlinks only builds the few entries a caller takes.
    """
    sources = [source for source in graph.inlink_sources(path) if source != path]
    sources.sort(key=lambda source: (-graph.inlink_count(source), source))
    for source in sources:
        anchors = tuple(
            dict.fromkeys(
                item.link.anchor
                for item in graph.outlinks(source)
                if path in item.resolution.targets and item.link.anchor
            )
        )
        yield _neighbour(graph, source, anchors)


def _neighbour(graph: LinkGraph, path: str, anchors: tuple[str, ...]) -> Neighbour:
    note = graph.notes.get(path)
    if note is None:  # an attachment
        return Neighbour(path, basename(path), "", anchors)
    return Neighbour(path, note.title, note.description, anchors)


def expand_hits(graph: LinkGraph, hits: Iterable[Hit], limit: int) -> list[Hit]:
    """Attach up to `limit` outlinks and inlinks to each hit; no note is listed twice overall."""
    hits = list(hits)
    seen = {hit.chunk.path for hit in hits}
    expanded = []
    for hit in hits:
        outs = _fresh(outlink_neighbours(graph, hit.chunk.path), seen, limit)
        ins = _fresh(inlink_neighbours(graph, hit.chunk.path), seen, limit)
        expanded.append(_with_links(hit, outs, ins))
    return expanded


def _fresh(neighbours: Iterable[Neighbour], seen: set[str], limit: int) -> tuple[Neighbour, ...]:
    kept: list[Neighbour] = []
    for neighbour in neighbours:
        if len(kept) == limit:
            break
        if neighbour.path not in seen:
            seen.add(neighbour.path)
            kept.append(neighbour)
    return tuple(kept)


def _with_links(hit: Hit, outs: tuple[Neighbour, ...], ins: tuple[Neighbour, ...]) -> Hit:
    return replace(hit, outlinks=outs, inlinks=ins)
