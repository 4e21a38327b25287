"""`memlsp read` and `memlsp recent`: a note's lines as they are now, and the notes changed
lately, from one snapshot; each as the domain value its JSON and its text are made from."""

from __future__ import annotations

import argparse
import datetime as dt
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass

from memlsp import wire
from memlsp.commands.arguments import UsageError
from memlsp.commands.calls import ReadCall, RecentCall
from memlsp.commands.links import note_path
from memlsp.engine.snapshot import Snapshot
from memlsp.model import Note, printable, printable_lines, quoted
from memlsp.queries.reading import Passage, ReadError, ReadRequest, read_passage
from memlsp.queries.recent import RecentChanges, recent_changes
from memlsp.search.scope import NoteScope, notes_in
from memlsp.text import from_home
from memlsp.vault.rules import VaultRules

_DRIVE = re.compile(r"[A-Za-z]:/")  # `C:/notes/a.md`, as Windows writes an absolute path


def read(snapshot: Snapshot, call: ReadCall) -> Passage:
    path = _note(snapshot, call.note)
    request = ReadRequest(call.heading, call.start_line, call.end_line, call.budget_tokens)
    records = VaultRules.of(snapshot.settings).is_records(path)
    try:
        return read_passage(snapshot.view, path, request, records=records)
    except ReadError as error:
        raise UsageError(printable(str(error))) from error


def read_text(passage: Passage, _: argparse.Namespace) -> str:
    """The lines as they are, and after a blank line `(cut: ...)` when the budget cut them."""
    # The text is the note's own, but for what would drive the terminal (ESC, BEL, bidi controls).
    text = printable_lines(passage.text)
    return f"{text}\n\n(cut: {passage.cut})" if passage.cut else text


def _note(snapshot: Snapshot, note: str) -> str:
    """The note NOTE names. Only the snapshot's notes can be named, and only their text is read,
    through the snapshot: a path that leaves the vault is refused before it is looked up."""
    reference = note.strip().replace("\\", "/")
    outside = reference.startswith("/") or _DRIVE.match(reference) or from_home(reference)
    if outside or ".." in reference.split("/"):
        raise UsageError(
            f"{quoted(note)} is outside the vault: give a vault-relative path or a note name"
        )
    return note_path(snapshot, note)


@dataclass(frozen=True, slots=True)
class Recent:
    """The notes changed lately, and the notes they are (for their titles)."""

    changes: RecentChanges
    notes: Mapping[str, Note]


def recent(snapshot: Snapshot, call: RecentCall) -> Recent:
    notes = snapshot.graph.notes
    scope = NoteScope.from_entries((), (), call.where)
    allowed = notes_in(snapshot.graph, scope, snapshot.properties())
    answer = recent_changes(
        ((path, snapshot.last_saved(path)) for path in notes if allowed is None or path in allowed),
        now_ns=time.time_ns(),
        days=call.days,
        limit=call.limit,
    )
    return Recent(answer, notes)


def recent_json(answer: Recent) -> wire.RecentJson:
    return wire.recent_json(answer.changes, answer.notes)


def recent_text(answer: Recent, _: argparse.Namespace) -> str:
    """`2026-12-03 21:40  path  title` a line (local time), newest first, then `N more`."""
    lines = []
    for change in answer.changes.changes:
        unsaved = "  [unsaved]" if change.unsaved else ""
        title = answer.notes[change.path].title
        lines.append(
            printable(f"{_local_minute(change.modified_ns)}  {change.path}  {title}{unsaved}")
        )
    if answer.changes.more:
        lines.append(f"{answer.changes.more} more")
    if not answer.changes.changes:
        lines.append(f"no notes changed in the last {answer.changes.days:g} days")
    return "\n".join(lines)


def _local_minute(ns: int) -> str:
    """`2026-12-03 21:40` in local time; the UTC time (`wire.utc_text`) when out of range."""
    try:
        return dt.datetime.fromtimestamp(ns / 1e9).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return wire.utc_text(ns)[:16].replace("T", " ")
