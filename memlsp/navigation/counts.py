"""How linked a note is, counted by notes rather than by links: what the code lens on a note's
first line says, and the hover's neighbour headers."""

from __future__ import annotations

from dataclasses import dataclass

from memlsp.model import LinkStatus
from memlsp.vault.names import name_key
from memlsp.vault.view import VaultView


@dataclass(frozen=True, slots=True)
class LinkCounts:
    inlinks: int  # other notes with a link here
    outlinks: int  # other notes and files this note links to
    unresolved: int  # names it links to that nothing in the vault has (or outside it)


def link_counts(view: VaultView, path: str) -> LinkCounts:
    graph = view.graph
    targets: set[str] = set()
    missing: set[str] = set()
    for item in graph.outlinks(path):
        status = item.resolution.status
        if status in (LinkStatus.UNRESOLVED, LinkStatus.OUTSIDE):
            missing.add(name_key(item.link.target))
        else:
            targets.update(target for target in item.resolution.targets if target != path)
    inlinks = sum(1 for source in graph.inlink_sources(path) if source != path)
    return LinkCounts(inlinks, len(targets), len(missing))


def lens_title(counts: LinkCounts) -> str:
    """`3 inlinks · 1 outlink`, and `· 2 unresolved` when there are any."""
    parts = [_count(counts.inlinks, "inlink"), _count(counts.outlinks, "outlink")]
    if counts.unresolved:
        parts.append(f"{counts.unresolved} unresolved")
    return " · ".join(parts)


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'' if number == 1 else 's'}"
