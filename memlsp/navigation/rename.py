"""Rename a note, a heading, a tag or a block id, and every link or tag that names it.

What is renamed depends on the cursor: on a link, the note it leads to (or, on its `#anchor`, that
heading or block); on a note's H1 that is its name, the note; on another heading, that heading;
on a `#tag` (inline or in the frontmatter), the tag and its nested tags; on a `^block-id`, the
block. A note keeps its folder: the new name is a file name without `.md`. What cannot be renamed
raises `Refused` with the reason shown to the user. Nothing here writes: the answer is a
`Change` (navigation/edits.py) for the client to apply.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, partial

from memlsp.model import Heading, Link, LinkKind, Note, Span
from memlsp.navigation.edits import Change, Edit, Move
from memlsp.navigation.places import heading_at, link_at, tag_at
from memlsp.navigation.references import is_title
from memlsp.navigation.relink import StaleText, relink
from memlsp.parse.links import link_parts
from memlsp.parse.markdown import slugify, split_lines, strip_markup
from memlsp.vault.anchors import find_block, heading_path
from memlsp.vault.names import REFUSED_IN_FILE_NAMES, file_name, name_key
from memlsp.vault.view import VaultView

REFUSED_IN_NAMES = REFUSED_IN_FILE_NAMES | {"/"}  # a rename keeps the note's folder
REFUSED_IN_HEADINGS = frozenset("#|^[]")
_BLOCK_ID = re.compile(r"[A-Za-z0-9\-]+")
_TAG = re.compile(r"[\w\-/]+")


class Refused(Exception):
    """Why this cannot be renamed, for the user."""


class NothingToRename(Refused):
    """The cursor is on plain text."""


class Subject(StrEnum):
    NOTE = "note"
    HEADING = "heading"
    TAG = "tag"
    BLOCK = "block"


@dataclass(frozen=True, slots=True)
class Renamable:
    """What a rename at the cursor would rename: `span` is the text under the cursor that
    shows it (on the cursor's line), `name` its current name."""

    subject: Subject
    span: Span
    name: str
    note: str  # the note that has it (a tag: the note the cursor is in)
    line: int = 0  # a heading's or block's line in `note`


def renamable_at(view: VaultView, path: str, lines: list[str], line: int, column: int) -> Renamable:
    text = lines[line] if line < len(lines) else ""
    resolved = link_at(view, path, line, column)
    if resolved is not None:
        return _on_link(view, resolved.link, resolved.resolution.targets, text, column)
    tag = tag_at(view, path, line, column)
    if tag is not None and tag.span is not None:
        start = tag.span.start + (text[tag.span.start : tag.span.start + 1] == "#")
        return Renamable(Subject.TAG, Span.on_line(text, line, start, tag.span.end), tag.name, path)
    heading = heading_at(view, path, line)
    note = view.graph.notes.get(path)
    if heading is not None:
        span = _heading_span(text, heading)
        if note is not None and is_title(note, heading):
            return Renamable(Subject.NOTE, span, file_name(path), path)
        return Renamable(Subject.HEADING, span, heading.text, path, heading.line)
    block = next((b for b in note.blocks if b.line == line), None) if note else None
    if block is not None:
        at = text.rfind("^" + block.id)
        if at >= 0 and at <= column <= at + 1 + len(block.id):
            span = Span.on_line(text, line, at + 1, at + 1 + len(block.id))
            return Renamable(Subject.BLOCK, span, block.id, path, block.line)
    raise NothingToRename(
        "Nothing to rename here: put the cursor on a link, a heading, a tag or a ^block-id"
    )


def _on_link(
    view: VaultView, link: Link, targets: tuple[str, ...], text: str, column: int
) -> Renamable:
    if not targets:
        raise Refused(f"“{link.target}” leads to no note: there is nothing to rename")
    if len(targets) > 1:
        raise Refused(f"“{link.target}” is an alias of {len(targets)} notes: rename one of them")
    target = targets[0]
    parts = link_parts(text, link)
    if parts is None:
        raise Refused("This line changed since it was read: try again")
    note = view.graph.notes.get(target)
    line = link.span.line
    on_anchor = parts.anchor is not None and parts.anchor[0] <= column <= parts.anchor[1]
    if on_anchor or not link.target:
        if note is None or parts.anchor is None:
            raise Refused("Only notes, their headings and their blocks can be renamed")
        start, end = parts.anchor
        if link.block:
            block = find_block(note, link.block)
            if block is None:
                raise Refused(f"{target} has no block ^{link.block}")
            span = Span.on_line(text, line, start + 1, end)
            return Renamable(Subject.BLOCK, span, block.id, target, block.line)
        found = heading_path(note, link.headings)
        if not found:
            raise Refused(f"{target} has no heading “{'#'.join(link.headings)}”")
        last = text.rfind("#", start - 1, end) + 1
        span = Span.on_line(text, line, max(last, start), end)
        return Renamable(Subject.HEADING, span, found[-1].text, target, found[-1].line)
    if note is None:
        raise Refused(f"{target} is not a note: rename it in the file explorer")
    start, end = parts.target
    return Renamable(Subject.NOTE, Span.on_line(text, line, start, end), file_name(target), target)


def _heading_span(text: str, heading: Heading) -> Span:
    at = text.find(heading.text, text.find("#"))
    start = at if at >= 0 else len(text)
    return Span.on_line(text, heading.line, start, start + len(heading.text))


def rename(view: VaultView, what: Renamable, new_name: str) -> Change:
    """The change that renames `what` to `new_name` everywhere."""
    try:
        if what.subject is Subject.NOTE:
            return _rename_note(view, what.note, new_name)
        if what.subject is Subject.HEADING:
            return _rename_heading(view, what, new_name)
        if what.subject is Subject.BLOCK:
            return _rename_block(view, what, new_name)
        return _rename_tag(view, what.name, new_name)
    except StaleText as stale:
        raise Refused(f"{stale} changed since it was indexed: try again in a moment") from stale


def _lines(view: VaultView, path: str) -> list[str]:
    return split_lines(view.read(path) or "")


# -- notes -------------------------------------------------------------------------------------


def new_note_path(view: VaultView, old: str, new_name: str) -> str:
    """Where `old` goes when renamed to `new_name`, or why it cannot."""
    name = new_name.strip()
    if name.lower().endswith(".md"):
        name = name[: -len(".md")]
    if not name or name.startswith("."):
        raise Refused(f"“{new_name}” cannot be a note's name")
    refused = sorted(set(name) & REFUSED_IN_NAMES)
    if refused or any(ord(c) < 32 for c in name):
        shown = " ".join(refused) or "control characters"
        raise Refused(f"A note's name cannot contain {shown} (Obsidian refuses them)")
    new = posixpath.join(posixpath.dirname(old), name + ".md")
    taken = view.graph.table.by_folded_path(new) - {old}
    if taken:  # another file by that name, whatever its case
        raise Refused(f"{sorted(taken)[0]} already exists")
    return new


def _rename_note(view: VaultView, old: str, new_name: str) -> Change:
    new = new_note_path(view, old, new_name)
    if new == old:
        return Change()
    edits = relink(view, {old: new})
    note = view.graph.notes.get(old)
    if note is not None:
        edits += _title_edits(view, note, file_name(new))
    return Change(tuple(edits), moves=(Move(old, new),))


def _title_edits(view: VaultView, note: Note, title: str) -> list[Edit]:
    """The note's first H1, when it is the note's name exactly (`# Tags` in `tags.md` is a title
    of its own, in its own case: a rename and its reverse leave it as it is)."""
    first = next((h for h in note.headings if h.level == 1), None)
    if first is None or first.text != file_name(note.path):
        return []
    lines = _lines(view, note.path)
    if first.line >= len(lines) or first.text not in lines[first.line]:
        raise StaleText(note.path)
    return [Edit(note.path, _heading_span(lines[first.line], first), title)]


# -- headings and blocks -----------------------------------------------------------------------


def _rename_heading(view: VaultView, what: Renamable, new_name: str) -> Change:
    new = new_name.strip()
    if not new or "\n" in new or set(new) & REFUSED_IN_HEADINGS:
        raise Refused("A heading linked to cannot be empty or contain # | ^ [ ]")
    note = view.graph.notes[what.note]
    heading = next(h for h in note.headings if h.line == what.line)
    if new == heading.text:
        return Change()
    if any(name_key(h.text) == name_key(new) for h in note.headings if h is not heading):
        raise Refused(f"{what.note} already has a heading “{new}”")
    lines = _lines(view, what.note)
    if heading.line >= len(lines) or heading.text not in lines[heading.line]:
        raise StaleText(what.note)
    edits = [Edit(what.note, _heading_span(lines[heading.line], heading), new)]
    slug = slugify(strip_markup(new))
    line_of = _line_reader(view)
    paths: dict[tuple[str, ...], tuple[Heading, ...] | None] = {}  # a hub's links repeat a few
    for item in view.graph.inlinks(what.note):
        link = item.link
        if not link.headings:
            continue
        if link.headings not in paths:
            paths[link.headings] = heading_path(note, link.headings)
        found = paths[link.headings]
        if not found or heading not in found:
            continue
        text = line_of(item.source, link.span.line)
        parts = link_parts(text, link)
        if parts is None or parts.anchor is None:
            raise StaleText(item.source)
        by_slug = link.kind is LinkKind.MARKDOWN
        for (start, end), named in zip(_anchor_parts(text, parts.anchor), found, strict=False):
            if named is heading:
                span = Span.on_line(text, link.span.line, start, end)
                edits.append(Edit(item.source, span, slug if by_slug else new))
    return Change(tuple(edits))


def _anchor_parts(text: str, anchor: tuple[int, int]) -> list[tuple[int, int]]:
    """The columns of each `#`-separated part of an anchor, without spaces around it."""
    parts, start = [], anchor[0]
    for piece in text[anchor[0] : anchor[1]].split("#"):
        lead = len(piece) - len(piece.lstrip())
        if piece.strip():
            parts.append((start + lead, start + lead + len(piece.strip())))
        start += len(piece) + 1
    return parts


def _line_reader(view: VaultView) -> Callable[[str, int], str]:
    """A line of a note, each note read once however many of its links a rename edits."""
    read = cache(partial(_lines, view))

    def line_of(path: str, line: int) -> str:
        lines = read(path)
        return lines[line] if line < len(lines) else ""

    return line_of


def _rename_block(view: VaultView, what: Renamable, new_name: str) -> Change:
    new = new_name.strip().lstrip("^")
    if not _BLOCK_ID.fullmatch(new):
        raise Refused("A block id is letters, digits and hyphens only")
    note = view.graph.notes[what.note]
    if new.casefold() != what.name.casefold() and find_block(note, new) is not None:
        raise Refused(f"{what.note} already has a block ^{new}")
    if new == what.name:
        return Change()
    line_of = _line_reader(view)
    text = line_of(what.note, what.line)
    at = text.rfind("^" + what.name)
    if at < 0:
        raise StaleText(what.note)
    edits = [Edit(what.note, Span.on_line(text, what.line, at + 1, at + 1 + len(what.name)), new)]
    for item in view.graph.inlinks(what.note):
        if (item.link.block or "").casefold() != what.name.casefold():
            continue
        line = line_of(item.source, item.link.span.line)
        parts = link_parts(line, item.link)
        if parts is None or parts.anchor is None:
            raise StaleText(item.source)
        start, end = parts.anchor
        edits.append(
            Edit(item.source, Span.on_line(line, item.link.span.line, start + 1, end), new)
        )
    return Change(tuple(edits))


# -- tags --------------------------------------------------------------------------------------


def _rename_tag(view: VaultView, old: str, new_name: str) -> Change:
    new = new_name.strip().lstrip("#").strip("/")
    if not _TAG.fullmatch(new) or new.replace("/", "").replace("-", "").replace("_", "").isdigit():
        raise Refused(f"“{new_name}” is not a tag: letters, digits, _ - and / only, not all digits")
    if new == old:
        return Change()
    wanted = name_key(old)
    edits: list[Edit] = []
    unplaced: list[str] = []
    for path in sorted(view.graph.notes):
        tags = [
            tag
            for tag in view.graph.notes[path].tags
            if name_key(tag.name) == wanted or name_key(tag.name).startswith(wanted + "/")
        ]
        if not tags:
            continue
        lines = _lines(view, path)
        for tag in tags:
            if tag.span is None:
                unplaced.append(path)
                continue
            text = lines[tag.span.line] if tag.span.line < len(lines) else ""
            start = tag.span.start + (text[tag.span.start : tag.span.start + 1] == "#")
            if name_key(text[start : start + len(old)]) != wanted:
                raise StaleText(path)
            span = Span.on_line(text, tag.span.line, start, start + len(old))
            edits.append(Edit(path, span, new))
    if unplaced:
        raise Refused(
            f"#{old} in the frontmatter of {unplaced[0]} is not written where it can be renamed"
            " (YAML built it some other way): change it there first"
        )
    return Change(tuple(edits))
