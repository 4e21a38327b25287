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

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
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


def mentions_of(
    view: VaultView,
    path: str,
    candidates: Callable[[Sequence[str]], Iterable[str]],
    min_length: int,
    limit: int = MENTIONS_LIMIT,
) -> MentionsAnswer:
    """The unlinked mentions of the note `path`'s names in the other notes: the notes
    `candidates(names)` gives, each read with the same matcher as the note's own mentions
    (`mentions_in_text`). `Snapshot.mentions` asks it once per revision: a note's lens, its first
    line's code actions and a picker ask the same question within moments."""
    names = names_of(view, min_length)
    own = names.names.get(path, ())
    warning = ""
    if path in names.cut_notes:
        warning = f"only the first {NAMES_PER_NOTE} names of {path} are looked for"
    if not own:
        why = f"{path} has no name of at least {min_length} (a CJK character counts as 2)"
        return MentionsAnswer(path, (), 0, why)
    keys = {name_of(name) for name in own}

    found: list[Mention] = []
    others = [o for o in sorted(set(candidates(own))) if o != path and o in view.graph.notes]
    read = 0
    # In the order of their paths, until the list is full: a name that is a common word (因为,
    # "because") is written in thousands of places, and reading them all would take seconds.
    for other in others:
        if len(found) > limit:
            break
        read += 1
        text = view.read(other)
        if text is not None:
            found += (
                mention
                for mention in mentions_in_text(other, text, names, keys)
                if path in mention.targets
            )
    kept, unread = tuple(found[:limit]), len(others) - read
    if unread:
        more = f"{unread} more notes may name it too; they were not read"
        warning = f"{warning}; {more}" if warning else more
    return MentionsAnswer(path, kept, len(found) - len(kept), warning, unread)
