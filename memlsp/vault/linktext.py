"""What to write to link to a file: the shortest text our resolution rules (vault/resolve.py) take
to that file and no other, as Obsidian writes it ("shortest path when possible")."""

from __future__ import annotations

import posixpath

from memlsp.model import Link, LinkKind, LinkStatus, Span
from memlsp.vault.names import NameTable, is_note_path, strip_note_suffix
from memlsp.vault.resolve import resolve

_NOWHERE = Span(0, 0, 0)
# What ends or breaks a Markdown link's destination, or would be read as an escape or an anchor;
# other characters (Chinese ones too) stay as they are, readable.
_ESCAPES = {c: f"%{ord(c):02X}" for c in " %()<>[]#^"}


def wikilink_target(table: NameTable, source: str, target: str) -> str:
    """The text between `[[` and `]]` (before any `#` or `|`) that leads from the note `source` to
    `target` unambiguously: the file name (a note's without `.md`), with as many of its folders
    in front as it takes; the whole path when nothing shorter does."""
    shown = strip_note_suffix(target) if is_note_path(target) else target
    parts = shown.split("/")
    for keep in range(len(parts) - 1, -1, -1):
        text = "/".join(parts[keep:])
        if leads_only_to(table, source, text, target):
            return text
    return shown


def leads_only_to(table: NameTable, source: str, written: str, target: str) -> bool:
    link = Link(LinkKind.WIKI, written, (), None, None, False, _NOWHERE)
    resolution = resolve(link, source, table)
    return resolution.status is LinkStatus.RESOLVED and resolution.targets == (target,)


def markdown_destination(source: str, target: str) -> str:
    """The destination of `[text](...)` from `source` to `target`: relative to the source's folder,
    with what would end or break the destination percent-encoded (spaces as `%20`)."""
    relative = posixpath.relpath(target, posixpath.dirname(source) or ".")
    return "".join(_ESCAPES.get(character, character) for character in relative)


def follows(table: NameTable, source: str, written: str) -> str | None:
    """The file `[[written]]` in `source` opens: its one target, or the first of an ambiguous
    link's candidates (or of a shared alias's notes)."""
    link = Link(LinkKind.WIKI, written, (), None, None, False, _NOWHERE)
    resolution = resolve(link, source, table)
    return resolution.targets[0] if resolution.targets else None
