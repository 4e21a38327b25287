"""Find references: the links that point where the cursor is.

Three modes, by what is under the cursor: a link (every link to the same target, and to the same
heading or block when it is anchored), a heading or block-id line (the links to that heading or
block), anything else (every link to the note). Only the graph's inlink index is read, so a hub
with thousands of inlinks costs its inlinks, not the vault.
"""

from __future__ import annotations

from bisect import insort
from itertools import chain

from memlsp.model import Heading, Note, ResolvedLink, Span
from memlsp.navigation.places import (
    FILE_START,
    Place,
    anchor_line,
    heading_at,
    link_at,
    target_place,
)
from memlsp.vault.names import file_name, name_key
from memlsp.vault.view import VaultView

# What an anchor resolves to: the line it lands on, or (when it names nothing in the note) its
# normalised text, so two links to the same missing heading still find each other.
AnchorKey = int | str


def references(
    view: VaultView, path: str, line: int, column: int, include_declaration: bool
) -> list[Place]:
    """References sorted by (path, line, column), without duplicates."""
    groups, declarations = _references(view, path, line, column)
    if not include_declaration:
        declarations = []
    if len(groups) == 1:
        # The graph lists a target's inlinks by source path, then position: already in order
        # and unique, so a hub's thousands of places skip the sort.
        places = groups[0]
        for declaration in declarations:
            insort(places, declaration, key=_order)
        return places
    # Notes sharing an alias: one link can reach several of them.
    return sorted(set(chain(*groups, declarations)), key=_order)


def _references(
    view: VaultView, path: str, line: int, column: int
) -> tuple[list[list[Place]], list[Place]]:
    """The links, one group per target, and the declarations."""
    resolved = link_at(view, path, line, column)
    if resolved is not None:
        # An ambiguous link refers to the note it follows; a shared alias to every note.
        groups, declarations = [], []
        for target in resolved.resolution.targets:
            note = view.graph.notes.get(target)
            wanted = _anchor_key(note, resolved) if note is not None else None
            groups.append(_links_to(view, target, wanted))
            declarations.append(target_place(view, resolved, target))
        return groups, declarations
    note = view.graph.notes.get(path)
    if note is None:
        return [], []
    heading = heading_at(view, path, line)
    if heading is not None and is_title(note, heading):
        heading = None  # the note's name as its H1 stands for the note, as rename takes it
    block = next((b for b in note.blocks if b.line == line), None)
    declared = heading.line if heading else block.line if block else None
    declaration = Place(path, FILE_START if declared is None else Span(declared, 0, 0))
    return [_links_to(view, path, declared)], [declaration]


def is_title(note: Note, heading: Heading) -> bool:
    """A level-1 heading that is the note's file name."""
    return heading.level == 1 and name_key(heading.text) == name_key(file_name(note.path))


def _links_to(view: VaultView, target: str, wanted: AnchorKey | None) -> list[Place]:
    """Links resolving to `target`; with `wanted`, only those whose anchor lands there."""
    inlinks = view.graph.inlinks(target)
    if wanted is None:
        return [Place(item.source, item.link.span) for item in inlinks]
    note = view.graph.notes.get(target)
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


def _order(place: Place) -> tuple[str, int, int, int]:
    return place.path, place.span.line, place.span.start, place.span.end
