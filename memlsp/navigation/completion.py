"""Completion: what can be typed at the cursor, from what the vault holds.

- `[[` or `![[`: notes by title, file name and alias (and other files), fuzzy-matched
  (navigation/fuzzy.py), ranked by match, then by how many notes link to them, then by the most
  recently changed (an open buffer first); the text inserted is
  the shortest that leads to the note (vault/linktext.py), and `]]` when the link is not closed yet.
  An alias item writes `[[note|alias]]`.
- `[[note#`: the note's headings (`[[note#A#` those under A); `[[note#^`: its block ids; `[[#`: the
  headings of the note being edited, from its unsaved text. `[[note|`: the note's title and aliases.
- `[text](`: files by path, written relative to the note (spaces as `%20`); `[text](note.md#`: the
  note's headings by slug.
- `#` where a tag can start: the vault's tags, nested ones and their parents, with their counts.

Nothing is offered inside code. Lists are cut at `MAX_ITEMS` and then say they are incomplete, so
that the client asks again as more is typed.
"""

from __future__ import annotations

import heapq
import posixpath
import re
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from urllib.parse import unquote

from memlsp.model import Heading, Note
from memlsp.navigation.fuzzy import SCATTERED, Names, fold
from memlsp.parse.links import TAG_MAY_FOLLOW
from memlsp.parse.markdown import parse_markdown
from memlsp.parse.mask import iter_masked
from memlsp.vault.anchors import find_heading
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.linktext import follows, markdown_destination, wikilink_target
from memlsp.vault.names import file_name
from memlsp.vault.view import VaultView

MAX_ITEMS = 50


class Kind(StrEnum):
    NOTE = "note"
    FILE = "file"  # an attachment
    ALIAS = "alias"
    HEADING = "heading"
    BLOCK = "block"
    TAG = "tag"


@dataclass(frozen=True, slots=True)
class Item:
    label: str
    kind: Kind
    new_text: str  # replaces the code points [start, end) of the cursor's line
    start: int
    end: int
    detail: str = ""  # the note's path, a tag's count
    filter_text: str = ""  # what a client matches the typed text against; the label if empty


@dataclass(frozen=True, slots=True)
class Completions:
    items: tuple[Item, ...] = ()
    incomplete: bool = False
    # How many names hold what was typed as it was typed (not only its letters in order): few
    # means a phrase is about something rather than a name (navigation/meaning.py).
    close: int = 0
    # After `[[` (no `#` or `|` yet): what was typed of the name, and the `]]` an item adds.
    naming: tuple[str, str] | None = None


NOTHING = Completions()

_MARKDOWN_DESTINATION = re.compile(r"\[[^\[\]\n]*\]\(([^()\s]*)$")
_TAG_TYPED = re.compile(rf"(?<![^{TAG_MAY_FOLLOW}])#([\w\-/]*)$")


def complete(
    view: VaultView, path: str, lines: Sequence[str], line: int, column: int
) -> Completions:
    """Completions at a code-point `column` of `line` in the note `path`, whose text (unsaved
    edits included) is `lines`."""
    if line >= len(lines) or column > len(lines[line]) or _in_code(lines, line, column):
        return NOTHING
    text = lines[line]
    before, after = text[:column], text[column:]
    wikilink = _open_wikilink(text, column)
    if wikilink is not None:
        inner, closing = wikilink
        return _in_wikilink(view, path, lines, inner, column, closing)
    destination = _MARKDOWN_DESTINATION.search(before)
    if destination:
        closing = "" if after.startswith(")") else ")"
        return _in_destination(view, path, destination.group(1), column, closing)
    tag = _TAG_TYPED.search(before)
    if tag:  # also `#` alone at a line's start: a heading once a space follows, and then no list
        return _tags(view, tag.group(1), column)
    return NOTHING


def _in_code(lines: Sequence[str], line: int, column: int) -> bool:
    masked = deque(iter_masked(lines[: line + 1]), maxlen=1)[0]  # a fence opened above counts
    if masked.in_block:
        return True
    original = lines[line]
    return column > 0 and masked.text[column - 1] != original[column - 1]


# -- inside [[ ... ---------------------------------------------------------------------------------


def _open_wikilink(text: str, column: int) -> tuple[str, str] | None:
    """What is typed after an unclosed `[[` before the column, and the `]]` an item must add."""
    before, after = text[:column], text[column:]
    opened = before.rfind("[[")
    if opened == -1 or "]]" in before[opened:]:
        return None
    return before[opened + 2 :], "" if after.startswith("]]") else "]]"


def _in_wikilink(
    view: VaultView, path: str, lines: Sequence[str], inner: str, column: int, closing: str
) -> Completions:
    if "|" in inner:
        written, typed = inner.split("|", 1)
        target = follows(view.graph.table, path, written.split("#", 1)[0].strip())
        return _labels(view.graph, target, typed, column, closing)
    if "#" in inner:
        written, anchor = inner.split("#", 1)
        if written:
            target = follows(view.graph.table, path, written.strip())
            note = view.graph.notes.get(target) if target else None
        else:
            note = parse_markdown(path, "\n".join(lines))  # this note as it is being edited
        if note is None:
            return NOTHING
        if anchor.startswith("^"):
            return _blocks(note, anchor[1:], column, closing)
        *parents, typed = anchor.split("#")
        return _headings(note, tuple(parents), typed, column, closing, slugs=False)
    return _notes(view, path, inner, column, closing)


def _notes(view: VaultView, source: str, typed: str, column: int, closing: str) -> Completions:
    graph = view.graph
    index = _names_in(view).index
    query = fold(typed.strip())
    # (path, alias) -> its best (tier, -inlinks, -last change, length, name shown)
    ranked: dict[tuple[str, str], tuple[int, int, int, int, str]] = {}
    # Many names start with one or two letters: the first tier alone then fills the list.
    found, cut = index.names.best(query, enough=4 * MAX_ITEMS)
    close = (
        len(found)  # only names that start with it, more than enough of them
        if cut
        else len({index.entries[position].path for tier, position in found if tier < SCATTERED})
    )
    for tier, position in found:
        entry = index.entries[position]
        key = (entry.path, entry.alias)
        inlinks, changed = graph.inlink_count(entry.path), view.modified(entry.path)
        rank = (tier, -inlinks, -changed, len(entry.shown), entry.shown)
        if key not in ranked or rank < ranked[key]:
            ranked[key] = rank
    best = heapq.nsmallest(
        MAX_ITEMS, ranked.items(), key=lambda item: (item[1][:4], item[0][0], item[0][1])
    )
    start = column - len(typed)
    items = []
    for (target, alias), (*_, shown) in best:
        written = wikilink_target(graph.table, source, target)
        kind = Kind.ALIAS if alias else Kind.NOTE if target in graph.table.notes else Kind.FILE
        new_text = f"{written}|{alias}" if alias else written
        items.append(
            Item(shown, kind, new_text + closing, start, column, target, filter_text=shown)
        )
    incomplete = cut or len(ranked) > MAX_ITEMS
    return Completions(tuple(items), incomplete, close, naming=(typed, closing))


@dataclass(frozen=True, slots=True)
class _Entry:
    path: str
    shown: str  # the title, file name or alias matched
    alias: str = ""


@dataclass(frozen=True, slots=True)
class _NameIndex:
    entries: tuple[_Entry, ...]
    names: Names


@dataclass(frozen=True, slots=True)
class _VaultNames:
    """What completion reads of every note, kept between requests: typing in a note makes a new
    `Note` per keystroke, but rarely new names or tags, and rebuilding the index of 10,000 notes'
    names costs more than a keystroke may."""

    files: frozenset[str]
    sets: tuple[set[str], set[str]]  # the name table's sets `files` was made from (vault/names.py)
    notes: dict[str, tuple[Note, tuple[str, ...], frozenset[str]]]  # path -> note, names, tags
    index: _NameIndex
    tags: Counter[str]
    # The index of every file's path, made when a destination is first completed and kept with
    # these names while no file comes or goes (a `replace` keeps the same list).
    paths: list[_NameIndex] = field(default_factory=list)


_last: list[_VaultNames] = []  # one, replaced whole: requests on threads read it without a lock


def _names_in(view: VaultView) -> _VaultNames:
    """The vault's names as completion reads them, looked over once per revision (the view's
    memo): several completions are asked of one revision as a word is typed."""
    return view.memo(("completion names",), lambda: _vault_names(view.graph))


def _vault_names(graph: LinkGraph) -> _VaultNames:
    table = graph.table
    known = _last[0] if _last else None
    if known is None:
        return _remember(_build(graph))
    if known.sets[0] is not table.notes or known.sets[1] is not table.files:
        # The name table copies its sets when a name changes (vault/names.py), not always a file.
        if known.files != table.notes | table.files:
            return _remember(_build(graph))
        known = replace(known, sets=(table.notes, table.files))
        _remember(known)
    notes = known.notes
    if len(notes) != len(graph.notes):
        return _remember(_build(graph))
    changed: dict[str, tuple[Note, tuple[str, ...], frozenset[str]]] = {}
    for path, note in graph.notes.items():
        seen = notes.get(path)
        if seen is not None and seen[0] is note:
            continue
        entry = (note, _names_of(note), _tags_of(note))
        if seen is None or entry[1:] != seen[1:]:
            return _remember(_build(graph))  # a name or a tag changed: a new index
        changed[path] = entry
    if changed:
        known = _remember(replace(known, notes={**notes, **changed}))
    return known


def _remember(names: _VaultNames) -> _VaultNames:
    _last[:] = [names]
    return names


def _names_of(note: Note) -> tuple[str, ...]:
    return (note.title, *note.aliases)


def _tags_of(note: Note) -> frozenset[str]:
    """A note's tags with their parents (`#a/b` is also `#a`)."""
    names: set[str] = set()
    for tag in note.tags:
        parts = tag.name.split("/")
        names.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return frozenset(names)


def _build(graph: LinkGraph) -> _VaultNames:
    table = graph.table
    files = frozenset(table.notes | table.files)
    entries: list[_Entry] = []
    notes: dict[str, tuple[Note, tuple[str, ...], frozenset[str]]] = {}
    tags: Counter[str] = Counter()
    for path in sorted(files):
        name = file_name(path)
        entries.append(_Entry(path, name))
        note = graph.notes.get(path)
        if note is None:
            continue
        if note.title and fold(note.title) != fold(name):
            entries.append(_Entry(path, note.title))
        entries.extend(_Entry(path, alias, alias) for alias in note.aliases)
        notes[path] = (note, _names_of(note), _tags_of(note))
        tags.update(notes[path][2])
    index = _NameIndex(tuple(entries), Names([entry.shown for entry in entries]))
    return _VaultNames(files, (table.notes, table.files), notes, index, tags)


def _labels(
    graph: LinkGraph, target: str | None, typed: str, column: int, closing: str
) -> Completions:
    note = graph.notes.get(target) if target else None
    if note is None:
        return NOTHING
    names = list(dict.fromkeys([note.title, note.stem, *note.aliases]))
    return _listed(names, Kind.ALIAS, typed, column, closing, detail=note.path)


def _blocks(note: Note, typed: str, column: int, closing: str) -> Completions:
    ids = [block.id for block in note.blocks]
    return _listed(ids, Kind.BLOCK, typed, column, closing, detail=note.path)


def _headings(
    note: Note,
    parents: tuple[str, ...],
    typed: str,
    column: int,
    closing: str,
    *,
    slugs: bool,
) -> Completions:
    headings = _under(note, parents)
    texts = [heading.slug if slugs else heading.text for heading in headings]
    return _listed(texts, Kind.HEADING, typed, column, closing, detail=note.path)


def _under(note: Note, parents: tuple[str, ...]) -> list[Heading]:
    """The note's headings nested under the heading path `parents` (all of them without one)."""
    if not parents:
        return list(note.headings)
    parent = find_heading(note, parents)
    if parent is None:
        return []
    inside = []
    for heading in note.headings:
        if heading.line <= parent.line:
            continue
        if heading.level <= parent.level:
            break
        inside.append(heading)
    return inside


def _listed(
    names: Sequence[str], kind: Kind, typed: str, column: int, closing: str, detail: str
) -> Completions:
    """Items for a short list (a note's headings, blocks, labels), matched as notes are."""
    unique = list(dict.fromkeys(name for name in names if name))
    matched = sorted(Names(unique).matches(fold(typed)))
    start = column - len(typed)
    items = tuple(
        Item(unique[i], kind, unique[i] + closing, start, column, detail)
        for _, i in matched[:MAX_ITEMS]
    )
    return Completions(items, incomplete=len(matched) > MAX_ITEMS)


# -- inside [text]( ... ----------------------------------------------------------------------------


def _in_destination(
    view: VaultView, source: str, typed: str, column: int, closing: str
) -> Completions:
    graph = view.graph
    if "#" in typed:
        written, anchor = typed.split("#", 1)
        target = posixpath.normpath(posixpath.join(posixpath.dirname(source), unquote(written)))
        note = graph.notes.get(target) if written else graph.notes.get(source)
        if note is None:
            return NOTHING
        return _headings(note, (), anchor, column, closing, slugs=True)
    index = _path_index(view)
    query = fold(unquote(typed))  # as the parser reads a destination (parse/links.py)
    matched = index.names.matches(query)
    # The path ends the key: paths are unique, so equal matches with equal inlinks are in a
    # fixed order (and the entries themselves, having no order, are never compared).
    best = heapq.nsmallest(
        MAX_ITEMS,
        matched,
        key=lambda m: (
            m[0],
            -graph.inlink_count(index.entries[m[1]].path),
            index.entries[m[1]].path,
        ),
    )
    start = column - len(typed)
    items = []
    for _, position in best:
        target = index.entries[position].path
        destination = markdown_destination(source, target)
        kind = Kind.NOTE if target in graph.notes else Kind.FILE
        items.append(Item(destination, kind, destination + closing, start, column, target))
    return Completions(tuple(items), incomplete=len(matched) > MAX_ITEMS)


def _path_index(view: VaultView) -> _NameIndex:
    names = _names_in(view)
    if not names.paths:  # two threads may both build it: either answer is the same
        names.paths.append(_paths(names.files))
    return names.paths[0]


def _paths(files: frozenset[str]) -> _NameIndex:
    paths = sorted(files)
    return _NameIndex(tuple(_Entry(path, path) for path in paths), Names(paths))


# -- tags --------------------------------------------------------------------------------------------


def _tags(view: VaultView, typed: str, column: int) -> Completions:
    counts = _names_in(view).tags
    names = sorted(counts, key=lambda tag: (-counts[tag], tag))
    matched = sorted(Names(names).matches(fold(typed)))
    start = column - len(typed)
    items = tuple(
        Item(names[i], Kind.TAG, names[i], start, column, _notes_count(counts[names[i]]))
        for _, i in matched[:MAX_ITEMS]
    )
    return Completions(items, incomplete=len(matched) > MAX_ITEMS)


def _notes_count(count: int) -> str:
    return f"{count} note" if count == 1 else f"{count} notes"
