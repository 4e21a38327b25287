"""Keep links working when files move or are renamed: the text edits that make every link lead
where it led before.

Each link that could be affected is resolved again, from its note's new place, against the names
the vault will have after the moves. A link that still leads to the same file is left as it is
(a link by name to a note moved to another folder, a link by alias, a relative link between two
notes moved together); any other is rewritten in the shape it was written in when that shape opens
the file (a name, a path with as many folders or the whole path, a relative path, a Markdown
destination), else as the shortest link that leads only there. Keeping the shape is what makes a
rename and its reverse give back every byte. Anchors and labels are kept as written.
Besides the links into moved files and the links inside them, the links that look up one of the
new names are checked too: a note renamed to a name another note already answers to must not
take that note's links.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from memlsp.model import Link, LinkKind, LinkStatus, ResolvedLink, Span
from memlsp.navigation.edits import Edit
from memlsp.parse.links import link_parts
from memlsp.parse.markdown import split_lines
from memlsp.vault.linktext import markdown_destination, wikilink_target
from memlsp.vault.names import NameTable, file_name, is_note_path, name_key, strip_note_suffix
from memlsp.vault.resolve import by_relative_path, resolve
from memlsp.vault.view import VaultView


class StaleText(Exception):
    """A note's text no longer has a link where its index says: it changed since; try again."""


def relink(view: VaultView, moves: Mapping[str, str]) -> list[Edit]:
    """Edits, on the paths files have before the moves, that keep every link's target."""
    graph = view.graph
    table = moved_table(view, moves)
    new_names: set[str] = set()
    for old, new in moves.items():
        note = graph.notes.get(old)
        new_names |= NameTable.names_of(new, note.aliases if note else ())
    looking_up = graph.sources_looking_up(new_names)
    into = {source for old in moves for source in graph.inlink_sources(old)}
    edits: list[Edit] = []
    for source in sorted(into | looking_up | (set(moves) & set(graph.notes))):
        check_all = source in moves or source in looking_up
        items = [
            item
            for item in graph.outlinks(source)
            if item.link.target
            and item.resolution.status in (LinkStatus.RESOLVED, LinkStatus.AMBIGUOUS)
            and (check_all or any(target in moves for target in item.resolution.targets))
        ]
        edits += _relink_note(view, table, moves, source, items)
    return edits


def moved_table(view: VaultView, moves: Mapping[str, str]) -> NameTable:
    """The vault's names once the moves are done."""
    table = view.graph.table.copy()
    for old in moves:
        table.remove(old)
    for old, new in moves.items():
        note = view.graph.notes.get(old)
        table.add(new, note.aliases if note else ())
    return table


def _relink_note(
    view: VaultView,
    table: NameTable,
    moves: Mapping[str, str],
    source: str,
    items: list[ResolvedLink],
) -> list[Edit]:
    new_source = moves.get(source, source)
    lines: list[str] | None = None
    edits = []
    for item in items:
        link = item.link
        wanted = moves.get(item.resolution.targets[0], item.resolution.targets[0])
        if _still_leads(view, table, item, new_source, wanted):
            continue
        if lines is None:
            lines = split_lines(view.read(source) or "")
        line = lines[link.span.line] if link.span.line < len(lines) else ""
        parts = link_parts(line, link)
        if parts is None:
            raise StaleText(source)
        start, end = parts.target
        old_target = item.resolution.targets[0]
        written = rewritten(table, new_source, line[start:end], link, wanted, old_target)
        edits.append(Edit(source, Span.on_line(line, link.span.line, start, end), written))
    return edits


def _still_leads(
    view: VaultView, table: NameTable, item: ResolvedLink, source: str, wanted: str
) -> bool:
    """Whether the link, from its note's new place, leads to `wanted` as it did: a Markdown link
    that led there by its path must still, not only through Obsidian's fallback to the name."""
    link = item.link
    if resolve(link, source, table).targets[:1] != (wanted,):
        return False
    if link.kind is not LinkKind.MARKDOWN:
        return True
    by_path = by_relative_path(link, item.source, view.graph.table) == item.resolution.targets[0]
    return not by_path or by_relative_path(link, source, table) == wanted


def rewritten(
    table: NameTable, source: str, written: str, link: Link, target: str, old: str
) -> str:
    """A link's target text that leads from `source` to `target` (which was at `old`), in the
    shape of `written`."""
    suffix = written.lower().endswith(".md")

    def shown(path: str) -> str:
        return path if suffix or not is_note_path(path) else strip_note_suffix(path)

    if link.kind is LinkKind.MARKDOWN:
        if written.startswith("/"):
            return "/" + markdown_destination("", shown(target))
        destination = markdown_destination(source, shown(target))
        keeps_dot = written.startswith("./") and not destination.startswith("../")
        return "./" + destination if keeps_dot else destination
    if written.startswith(("./", "../")):
        relative = posixpath.relpath(target, posixpath.dirname(source) or ".")
        return shown(relative if relative.startswith("../") else "./" + relative)
    folders = written.rstrip("/").count("/")
    parts = shown(target).split("/")
    if folders and name_key(strip_note_suffix(written)) == name_key(strip_note_suffix(old)):
        folders = len(parts) - 1  # written as the whole path: keep writing the whole path
    same_shape = "/".join(parts[-folders - 1 :]) if folders else shown(file_name(target))
    if suffix and not folders:
        same_shape = posixpath.basename(target)
    probe = Link(LinkKind.WIKI, same_shape, (), None, None, False, link.span)
    if resolve(probe, source, table).targets[:1] == (target,):
        return same_shape  # it opens that note (when others share the name too, as before)
    return wikilink_target(table, source, target)
