"""Unlinked mentions: another note's name (its file name, or an alias) written as plain text, which
could be a link (docs/mentions.md has the rules).

`mentions_in` finds them in one note, for its diagnostics and quick fixes; `mentions_of` finds a
note's own in the rest of the vault, among the notes the keyword index says hold its names, each
then read with the same matcher. Nothing here writes: a fix is an `Action`, the edits a client
applies when the user picks it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from memlsp.model import Span
from memlsp.navigation.actions import REWRITE, Action
from memlsp.navigation.diagnostics import Code, Problem, Severity
from memlsp.navigation.edits import Edit
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
from memlsp.vault.linktext import wikilink_target
from memlsp.vault.names import file_name, name_key, strip_note_suffix
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
    keystroke may."""
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


def _build(graph: LinkGraph, min_length: int) -> NameIndex:
    return build_name_index(
        ((path, note.aliases) for path, note in graph.notes.items()), min_length
    )


def mentions_in(view: VaultView, path: str, names: NameIndex) -> tuple[Mention, ...]:
    """Every unlinked mention in the note `path` as it is now, of any note's name but its own."""
    text = view.read(path)
    return () if text is None else mentions_in_text(path, text, names)


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
    `candidates(names)` gives, each read with the same matcher as `mentions_in`. The answers
    for the last few notes asked are kept for that revision: a note's lens, its first line's
    code actions and a picker ask the same question within moments."""
    global _answered
    if not view.graph.frozen:  # changed in place: nothing can be kept
        return _mentions_of(view, path, candidates, min_length, limit)
    asked = (path, min_length, limit)
    for graph, key, answer in _answered:
        if graph is view.graph and key == asked:
            return answer
    answer = _mentions_of(view, path, candidates, min_length, limit)
    _answered = [(view.graph, asked, answer), *_answered[: KEPT_ANSWERS - 1]]
    return answer


KEPT_ANSWERS = 8
# (graph of the revision, question, answer); replaced whole, as `_built`.
_answered: list[tuple[LinkGraph, tuple[str, int, int], MentionsAnswer]] = []


def _mentions_of(
    view: VaultView,
    path: str,
    candidates: Callable[[Sequence[str]], Iterable[str]],
    min_length: int,
    limit: int,
) -> MentionsAnswer:
    names = name_index(view.graph, min_length)
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


def link_edit(view: VaultView, mention: Mention, target: str) -> Edit:
    """The mention replaced by a wikilink to `target`: `[[X]]` when the shortest link text X
    is the text as written, else `[[X|text as written]]`."""
    written = wikilink_target(view.graph.table, mention.path, target)
    link = f"[[{written}]]" if written == mention.text else f"[[{written}|{mention.text}]]"
    return Edit(mention.path, mention.span, link)


def mention_actions(
    view: VaultView, names: NameIndex, path: str, lines: list[str], line: int, start: int, end: int
) -> list[Action]:
    """Fixes for the mentions in `path` (its text now: `lines`) that touch line:start..end."""
    mentions = mentions_in_text(path, "\n".join(lines), names)
    here = [
        m for m in mentions if m.span.line == line and m.span.start <= end and m.span.end >= start
    ]
    actions: list[Action] = []
    for mention in here:
        shared = len(mention.targets) > 1
        for target in mention.targets:
            edit = link_edit(view, mention, target)
            title = f"Link “{mention.text}” to {_wikilink(view, path, target)}"
            actions.append(
                Action(title, (edit,), fixes=Code.UNLINKED_MENTION, preferred=not shared)
            )
        if shared:
            continue
        same = [
            m
            for m in mentions
            if m.targets == mention.targets and name_of(m.text) == name_of(mention.text)
        ]
        if len(same) > 1:
            edits = tuple(link_edit(view, m, m.targets[0]) for m in same)
            title = f"Link all {len(same)} mentions of “{mention.text}” in this note"
            actions.append(Action(title, edits, fixes=Code.UNLINKED_MENTION))
    return actions


def link_all_action(view: VaultView, answer: MentionsAnswer) -> Action | None:
    """One action linking every unlinked mention of `answer.note` in every note; a mention of a
    name other notes share is left for the user to choose."""
    sure = [m for m in answer.mentions if len(m.targets) == 1]
    if not sure:
        return None
    shared = len(answer.mentions) - len(sure)
    title = f"Link all {len(sure)} unlinked mentions of {file_name(answer.note)}"
    notes = []
    if shared:
        notes.append(f"{shared} of a shared name left out")
    if answer.left_out:
        notes.append(f"{answer.left_out} beyond the first {len(answer.mentions)} not listed")
    if notes:
        title += f" ({'; '.join(notes)})"
    edits = tuple(link_edit(view, m, answer.note) for m in sure)
    return Action(title, edits, kind=REWRITE)


def mention_problems(mentions: Sequence[Mention], severity: Severity) -> list[Problem]:
    """A hint for each mention: the text could be a link (to which notes)."""
    problems = []
    for mention in mentions:
        if len(mention.targets) == 1:
            where = f"[[{file_name(mention.targets[0])}]]"
        else:
            where = " or ".join(f"[[{strip_note_suffix(t)}]]" for t in mention.targets)
        message = f"“{mention.text}” could link to {where}"
        problems.append(
            Problem(mention.span, severity, Code.UNLINKED_MENTION, message, mention.targets)
        )
    return problems


def _wikilink(view: VaultView, source: str, target: str) -> str:
    return f"[[{wikilink_target(view.graph.table, source, target)}]]"
