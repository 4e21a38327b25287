"""Unlinked mentions in the note in front of the user: each found (queries/mentions.py, which also
finds a note's mentions in the rest of the vault), a hint on it, and the fixes that make it a
link. Nothing here writes: a fix is an `Action`, the edits a client applies when the user picks
it.
"""

from __future__ import annotations

from collections.abc import Sequence

from memlsp.navigation.actions import REWRITE, Action
from memlsp.navigation.diagnostics import Code, Problem, Severity
from memlsp.navigation.edits import Edit
from memlsp.queries.mentions import (
    Mention,
    MentionsAnswer,
    NameIndex,
    mentions_in_text,
    name_of,
    names_of,
)
from memlsp.vault.linktext import wikilink_target
from memlsp.vault.names import file_name, strip_note_suffix
from memlsp.vault.view import VaultView


def mentions_in(view: VaultView, path: str, names: NameIndex) -> tuple[Mention, ...]:
    """Every unlinked mention in the note `path` as it is now, of any note's name but its own."""
    text = view.read(path)
    return () if text is None else mentions_in_text(path, text, names)


def note_mentions(
    view: VaultView, path: str, lines: Sequence[str], min_length: int
) -> tuple[Mention, ...]:
    """The mentions in the note `path` whose lines (without their ends) are `lines`, found once
    per revision and text (the view's memo): an open note's hints and the code actions asked on
    it as the cursor moves ask the same question of the same text."""
    text = "\n".join(lines)
    return view.memo(
        note_mentions_key(path, min_length, text),
        lambda: mentions_in_text(path, text, names_of(view, min_length)),
    )


def note_mentions_key(path: str, min_length: int, text: str) -> tuple[str, str, int, str]:
    """Where a revision's memo keeps the mentions of `path` as it reads `text`: the diagnostics
    of an open note put there what they found, and its code actions find it."""
    return ("note mentions", path, min_length, text)


def link_edit(view: VaultView, mention: Mention, target: str) -> Edit:
    """The mention replaced by a wikilink to `target`: `[[X]]` when the shortest link text X
    is the text as written, else `[[X|text as written]]`."""
    written = wikilink_target(view.graph.table, mention.path, target)
    link = f"[[{written}]]" if written == mention.text else f"[[{written}|{mention.text}]]"
    return Edit(mention.path, mention.span, link)


def mention_actions(
    view: VaultView, mentions: Sequence[Mention], path: str, line: int, start: int, end: int
) -> list[Action]:
    """Fixes for the mentions in `path` (all of them: `mentions`) that touch line:start..end."""
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
