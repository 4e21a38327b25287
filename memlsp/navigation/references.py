"""Find references: the links that point where the cursor is.

Three modes, by what is under the cursor: a link (every link to the same target, and to the same
heading or block when it is anchored), a heading or block-id line (the links to that heading or
block), anything else (every link to the note). Only the graph's inlink index is read, so a hub
with thousands of inlinks costs its inlinks, not the vault.
"""

from __future__ import annotations

from memlsp.engine import Engine
from memlsp.model import Note, ResolvedLink, Span
from memlsp.navigation.places import (
    FILE_START,
    Place,
    anchor_line,
    heading_at,
    link_at,
    target_place,
)
from memlsp.vault.names import name_key

# What an anchor resolves to: the line it lands on, or (when it names nothing in the note) its
# normalised text, so two links to the same missing heading still find each other.
AnchorKey = int | str


def references(
    engine: Engine, path: str, line: int, column: int, include_declaration: bool
) -> list[Place]:
    """References sorted by (path, line, column), without duplicates."""
    with engine.lock:
        return _sorted(_references(engine, path, line, column, include_declaration))


def _references(
    engine: Engine, path: str, line: int, column: int, include_declaration: bool
) -> list[Place]:
    places: list[Place] = []
    resolved = link_at(engine, path, line, column)
    if resolved is not None:
        # An ambiguous link refers to the note it follows; a shared alias to every note.
        for target in resolved.resolution.targets:
            note = engine.graph.notes.get(target)
            wanted = _anchor_key(note, resolved) if note is not None else None
            places += _links_to(engine, target, wanted)
            if include_declaration:
                places.append(target_place(engine, resolved, target))
        return places
    note = engine.graph.notes.get(path)
    if note is None:
        return []
    heading = heading_at(engine, path, line)
    block = next((b for b in note.blocks if b.line == line), None)
    declared = heading.line if heading else block.line if block else None
    places += _links_to(engine, path, declared)
    if include_declaration:
        places.append(Place(path, FILE_START if declared is None else Span(declared, 0, 0)))
    return places


def _links_to(engine: Engine, target: str, wanted: AnchorKey | None) -> list[Place]:
    """Links resolving to `target`; with `wanted`, only those whose anchor lands there."""
    inlinks = engine.graph.inlinks(target)
    if wanted is None:
        return [Place(item.source, item.link.span) for item in inlinks]
    note = engine.graph.notes.get(target)
    if note is None:
        return []
    memo: dict[tuple[tuple[str, ...], str | None], AnchorKey | None] = {}
    places = []
    for item in inlinks:
        written = (item.link.headings, item.link.block)
        if written not in memo:  # a hub's inlinks repeat the same few anchors
            memo[written] = _anchor_key(note, item)
        if memo[written] == wanted:
            places.append(Place(item.source, item.link.span))
    return places


def _anchor_key(note: Note, resolved: ResolvedLink) -> AnchorKey | None:
    """None for a link to the whole note."""
    link = resolved.link
    if not link.anchor:
        return None
    line = anchor_line(note, resolved)
    if line is not None:
        return line
    if link.block:
        return "^" + link.block.casefold()
    return "#".join(name_key(part) for part in link.headings)


def _sorted(places: list[Place]) -> list[Place]:
    unique = dict.fromkeys(places)
    return sorted(unique, key=lambda p: (p.path, p.span.line, p.span.start, p.span.end))
