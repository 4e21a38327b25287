"""Unlinked mentions across the vault: another note's name (its file name, or an alias) written
as plain text, which could be a link (docs/mentions.md has the rules).

The vault's names (`NameIndex`) and the matcher that finds them in a note's text
(`mentions_in_text`) serve both questions asked of them: a note's own mentions of other notes,
for its diagnostics and quick fixes (navigation/mentions.py), and `mentions_of`, a note's
mentions in the rest of the vault, among the notes the keyword index says hold its names, each
then read with the same matcher (what `Snapshot.mentions` answers for `memlsp mentions`, the
`memlsp/mentions` request, the `N unlinked` lens and "Link all").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from memlsp.model import Span
from memlsp.parse.names_in_text import (
    NameMatcher,
    find_names,
    name_matcher,
    name_text,
    prose_lines,
)
from memlsp.parse.stopwords import COMMON_WORDS
from memlsp.text import CJK_RUN
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.names import file_name, name_key
from memlsp.vault.view import VaultView

NAMES_PER_NOTE = 64  # a note's file name and its first aliases; a longer alias list is cut
MENTIONS_LIMIT = 200  # mentions in one answer: beyond, no one links them one by one
# The most notes read for one note's unlinked mentions (each read and matched exactly).
MENTION_CANDIDATES = 5000
KEPT_NOTES = 8  # notes whose mentions elsewhere are kept across revisions: the lenses on screen
CHANGED_NAMES = 64  # more names than this came or went at once: nothing found is carried over
_WORD = re.compile(r"\w")


@dataclass(frozen=True, slots=True)
class Mention:
    path: str  # the note where the text is
    span: Span
    text: str  # as written in the note
    targets: tuple[str, ...]  # every note with that name, sorted; more than one = shared name


@dataclass(frozen=True, slots=True)
class MentionsAnswer:
    note: str
    mentions: tuple[Mention, ...]  # sorted by (path, line, start)
    left_out: int = 0  # beyond the cap, in the notes read
    warning: str = ""
    unread: int = 0  # candidate notes not read once the list was full


def name_weight(name: str) -> int:
    """How long a name counts as for `mention_min_length`: a CJK character counts as two (one
    carries about as much as a short Latin word), spaces not at all."""
    cjk = sum(len(run) for run in CJK_RUN.findall(name))
    return len(name) - sum(map(str.isspace, name)) + cjk


def name_of(text: str) -> str:
    """A name or a mention's text as names are compared: Obsidian's key, one space a run."""
    return name_text(name_key(text))


@dataclass(frozen=True, slots=True)
class NameIndex:
    """Every note's names that can be mentioned, from one revision of the link graph."""

    targets: Mapping[str, tuple[str, ...]]  # name -> the notes with it, sorted
    names: Mapping[str, tuple[str, ...]]  # note -> its names, as written (file name first)
    matcher: NameMatcher
    cut_notes: frozenset[str]  # notes with more names than NAMES_PER_NOTE


def _names_written(path: str, aliases: tuple[str, ...]) -> tuple[str, ...]:
    return (file_name(path), *aliases)[:NAMES_PER_NOTE]


def build_name_index(notes: Iterable[tuple[str, tuple[str, ...]]], min_length: int) -> NameIndex:
    """From each note's path and aliases: the names long enough and not common words."""
    targets: dict[str, list[str]] = {}
    written: dict[str, tuple[str, ...]] = {}
    cut = set()
    for path, aliases in notes:
        if len(aliases) + 1 > NAMES_PER_NOTE:
            cut.add(path)
        kept = []
        for name in dict.fromkeys(_names_written(path, aliases)):
            key = name_of(name)
            if name_weight(key) < min_length or key in COMMON_WORDS:
                continue
            kept.append(name)
            paths = targets.setdefault(key, [])
            if path not in paths:
                paths.append(path)
        written[path] = tuple(kept)
    return NameIndex(
        {key: tuple(sorted(paths)) for key, paths in targets.items()},
        written,
        name_matcher(targets),
        frozenset(cut),
    )


def name_index(graph: LinkGraph, min_length: int) -> NameIndex:
    """The names of the graph's notes. A frozen graph's are kept while its revisions change no
    name: an edit makes a new revision, and building 10,000 notes' names costs more than a
    keystroke may. (The one cache here that outlives a revision, on purpose; a request reaches it
    through `names_of`, once per revision.)"""
    global _built
    if not graph.frozen:
        return _build(graph, min_length)
    token = graph.table.names_token
    for known, length, names in _built:
        if known is token and length == min_length:
            return names
    names = _build(graph, min_length)
    _built = [(token, min_length, names), *_built[: KEPT_INDEXES - 1]]
    return names


KEPT_INDEXES = 4  # a few vaults open at once, or a vault and a changed setting
# Read and replaced whole by requests on threads: a new list each time, never changed in place.
_built: list[tuple[object, int, NameIndex]] = []


def names_of(view: VaultView, min_length: int) -> NameIndex:
    """The names of the view's notes, asked once per revision (the view's memo)."""
    return view.memo(("names", min_length), lambda: name_index(view.graph, min_length))


def _build(graph: LinkGraph, min_length: int) -> NameIndex:
    return build_name_index(
        ((path, note.aliases) for path, note in graph.notes.items()), min_length
    )


def mentions_in_text(
    path: str, text: str, names: NameIndex, near: Collection[str] = ()
) -> tuple[Mention, ...]:
    """The mentions in `text`, the text of `path`; with `near` (names as `name_of` gives them),
    only those that touch where one of these is written."""
    found = []
    for line in prose_lines(text, near):
        if near and not any(key in line.folded for key in near):
            continue
        for occurrence in find_names(names.matcher, line, near):
            targets = names.targets[occurrence.name]
            if path in targets:
                continue  # its own name: a note does not mention itself
            span = Span.on_line(line.text, line.line, occurrence.start, occurrence.end)
            written = line.text[occurrence.start : occurrence.end]
            found.append(Mention(path, span, written, targets))
    return tuple(found)


Candidates = Callable[[Sequence[str]], Collection[str]]  # the notes that may hold these names
# A note read for another's mentions -> the version of its text read, and its mentions found there.
Found = dict[str, tuple[Hashable, tuple[Mention, ...]]]


class FoundBefore:
    """What `mentions_of` found of a note's names in each other note, kept from one revision to
    the next, so that a revision after an edit reads again only the notes whose text changed, not
    the thousands that hold a hub's name (mostly in links to it). Found under one `NameIndex`;
    when the vault's names change, what was found is kept but in the notes that may hold a name
    that came or went (the keyword index says which), since only the names written in a text
    change what is found in it. Requests on several threads share it without a lock: a `Found`
    changes one item at a time, and the list of them is replaced whole."""

    def __init__(self) -> None:
        self._kept: list[tuple[str, NameIndex, Found]] = []

    def of(self, note: str, names: NameIndex, candidates: Candidates) -> Found:
        """What was found of `note`'s names, valid under `names`: to be added to."""
        kept = self._kept
        earlier = next(((old, found) for path, old, found in kept if path == note), None)
        if earlier is not None and earlier[0] is names:
            return earlier[1]
        found = _carried(note, *earlier, names, candidates) if earlier is not None else {}
        others = [entry for entry in kept if entry[0] != note]
        self._kept = [(note, names, found), *others][:KEPT_NOTES]
        return found


def _carried(note: str, old: NameIndex, found: Found, names: NameIndex, ask: Candidates) -> Found:
    """What was found under the `old` names that still holds under `names`: all but the notes
    that may hold a name that came or went; nothing when the note's own names, or the notes
    that share them, changed, or when the change is too wide to look for."""
    own = names.names.get(note, ())
    if old.names.get(note, ()) != own:
        return {}
    if any(old.targets.get(key) != names.targets.get(key) for key in map(name_of, own)):
        return {}  # a mention's targets changed
    changed = sorted(old.targets.keys() ^ names.targets.keys())
    if len(changed) > CHANGED_NAMES or not all(map(_WORD.search, changed)):
        return {}  # too many to look for, or one the keyword index cannot find (no word in it)
    holding = set(ask(changed)) if changed else set()
    if len(holding) >= MENTION_CANDIDATES:
        return {}  # the index's answer may be cut short
    # A copy first (one step for the interpreter): a request of the old names may still add to it.
    return {path: item for path, item in dict(found).items() if path not in holding}


@dataclass(frozen=True, slots=True)
class Earlier:
    """What `mentions_of` may take from earlier revisions rather than read a note again: what
    they found, and which text of a note this revision reads (`version`: equal versions, equal
    texts; None: not known, read it)."""

    found: FoundBefore
    version: Callable[[str], Hashable | None]


def mentions_of(
    view: VaultView,
    path: str,
    candidates: Candidates,
    min_length: int,
    limit: int = MENTIONS_LIMIT,
    earlier: Earlier | None = None,
) -> MentionsAnswer:
    """The unlinked mentions of the note `path`'s names in the other notes: the notes
    `candidates(names)` gives, each read with the same matcher as the note's own mentions
    (`mentions_in_text`), unless `earlier` found them in the same text. `Snapshot.mentions` asks
    it once per revision: a note's lens, its first line's code actions and a picker ask the same
    question within moments."""
    names = names_of(view, min_length)
    own = names.names.get(path, ())
    warning = ""
    if path in names.cut_notes:
        warning = f"only the first {NAMES_PER_NOTE} names of {path} are looked for"
    if not own:
        why = f"{path} has no name of at least {min_length} (a CJK character counts as 2)"
        return MentionsAnswer(path, (), 0, why)
    keys = {name_of(name) for name in own}
    before = earlier.found.of(path, names, candidates) if earlier is not None else None

    def found_in(other: str) -> tuple[Mention, ...]:
        version = earlier.version(other) if earlier is not None else None
        known = before.get(other) if before is not None and version is not None else None
        if known is not None and known[0] == version:
            return known[1]
        text = view.read(other)
        mentions = tuple(
            mention
            for mention in (mentions_in_text(other, text, names, keys) if text is not None else ())
            if path in mention.targets
        )
        if before is not None and version is not None:
            before[other] = (version, mentions)
        return mentions

    found: list[Mention] = []
    others = [o for o in sorted(set(candidates(own))) if o != path and o in view.graph.notes]
    read = 0
    # In the order of their paths, until the list is full: a name that is a common word (因为,
    # "because") is written in thousands of places, and reading them all would take seconds.
    for other in others:
        if len(found) > limit:
            break
        read += 1
        found += found_in(other)
    kept, unread = tuple(found[:limit]), len(others) - read
    if unread:
        more = f"{unread} more notes may name it too; they were not read"
        warning = f"{warning}; {more}" if warning else more
    return MentionsAnswer(path, kept, len(found) - len(kept), warning, unread)
