"""Places in the vault, what sits under the cursor in a note, and where a link lands.

Everything is read from a `VaultView` (vault/view.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from memlsp.model import Heading, Note, ResolvedLink, Span, Tag
from memlsp.vault.anchors import find_block, find_heading
from memlsp.vault.view import VaultView

FILE_START = Span(0, 0, 0)


@dataclass(frozen=True, slots=True)
class Place:
    """A location in a vault file; a whole line (or the file start) is `Span(line, 0, 0)`."""

    path: str
    span: Span


def _touches(span: Span, line: int, column: int) -> bool:
    # The end counts too: a cursor just after `]]` is still "on" the link, as in most editors.
    return span.line == line and span.start <= column <= span.end


def link_at(view: VaultView, path: str, line: int, column: int) -> ResolvedLink | None:
    """The link at a cursor position (code-point column), if any.

    When two links touch (`[[a]][[b]]`, cursor between them) the one the cursor is inside wins
    over the one it merely ends.
    """
    found: ResolvedLink | None = None
    outlinks = view.graph.outlinks(path)
    for item in outlinks:
        span = item.link.span
        if not _touches(span, line, column):
            continue
        if column < span.end:
            return item
        found = found or item
    return found


def heading_at(view: VaultView, path: str, line: int) -> Heading | None:
    note = view.graph.notes.get(path)
    if note is None:
        return None
    return next((heading for heading in note.headings if heading.line == line), None)


def tag_at(view: VaultView, path: str, line: int, column: int) -> Tag | None:
    """An inline `#tag` under the cursor (frontmatter tags have no place in the text)."""
    note = view.graph.notes.get(path)
    if note is None:
        return None
    return next(
        (tag for tag in note.tags if tag.span is not None and _touches(tag.span, line, column)),
        None,
    )


def anchor_line(note: Note, resolved: ResolvedLink) -> int | None:
    """The line the link's `#Heading` / `#^block` names in `note`; None if absent or missing."""
    link = resolved.link
    if link.block:
        block = find_block(note, link.block)
        return block.line if block else None
    if link.headings:
        heading = find_heading(note, link.headings)
        return heading.line if heading else None
    return None


def target_place(view: VaultView, resolved: ResolvedLink, target: str) -> Place:
    """Where following the link into `target` lands: the heading or block line, else the file
    start (also when the anchor names nothing in the note: the note itself still exists)."""
    note = view.graph.notes.get(target)
    line = anchor_line(note, resolved) if note is not None else None
    return Place(target, Span(line, 0, 0) if line is not None else FILE_START)
