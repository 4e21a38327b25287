"""`memlsp read` and `memlsp recent`: a note's lines as they are now, and the notes changed
lately, from one snapshot; each as the domain value its JSON and its text are made from."""

from __future__ import annotations

import argparse
import datetime as dt
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace

from memlsp import wire
from memlsp.commands.arguments import UsageError
from memlsp.commands.calls import ReadCall, RecentCall
from memlsp.commands.links import note_path
from memlsp.engine.snapshot import Snapshot
from memlsp.model import NEVER, Note, printable, printable_lines, quoted
from memlsp.queries.reading import Passage, ReadError, ReadRequest, read_passage
from memlsp.queries.recent import RecentChanges, recalled_notes, recent_changes, window_start
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
    """The notes changed lately, each with its recall; or (`by` "recalled") the notes recalled
    lately that are notes now (a deleted or renamed note's count stays in the store)."""
    notes = snapshot.graph.notes
    scope = NoteScope.from_entries((), (), call.where)
    allowed = notes_in(snapshot.graph, scope, snapshot.properties)

    def wanted(path: str) -> bool:
        return path in notes and (allowed is None or path in allowed)

    now = time.time_ns()
    store = snapshot.recall
    if call.by == "recalled":
        since = window_start(now, call.days)
        recalls = store.recalled_since(since) if store is not None else {}
        answer = recalled_notes(
            (
                (path, snapshot.last_saved(path), recall)
                for path, recall in recalls.items()
                if wanted(path)
            ),
            now_ns=now,
            days=call.days,
            limit=call.limit,
        )
        return Recent(answer, notes)
    answer = recent_changes(
        ((path, snapshot.last_saved(path)) for path in notes if wanted(path)),
        now_ns=now,
        days=call.days,
        limit=call.limit,
    )
    listed = [change.path for change in answer.changes]
    found = store.recalls(listed) if store is not None else {}
    changes = tuple(replace(c, recall=found.get(c.path, NEVER)) for c in answer.changes)
    return Recent(replace(answer, changes=changes), notes)


def recent_json(answer: Recent) -> wire.RecentJson:
    return wire.recent_json(answer.changes, answer.notes)


def recent_text(answer: Recent, _: argparse.Namespace) -> str:
    """`2026-12-03 21:40  path  title` a line (local time), newest first, then `N more`; for the
    notes recalled, `2026-12-03 21:40  12×  path  title`, the time of the last recall."""
    lines = []
    recalled = answer.changes.by == "recalled"
    for change in answer.changes.changes:
        unsaved = "  [unsaved]" if change.unsaved else ""
        title = answer.notes[change.path].title
        when = change.recall.last_recalled_at if recalled else change.modified_ns
        count = f"{change.recall.recall_count:,}×  " if recalled else ""
        lines.append(
            printable(f"{_local_minute(when or 0)}  {count}{change.path}  {title}{unsaved}")
        )
    if answer.changes.more:
        lines.append(f"{answer.changes.more} more")
    if not answer.changes.changes:
        what = "recalled" if recalled else "changed"
        lines.append(f"no notes {what} in the last {answer.changes.days:g} days")
    return "\n".join(lines)


def _local_minute(ns: int) -> str:
    """`2026-12-03 21:40` in local time; the UTC time (`wire.utc_text`) when out of range."""
    try:
        return dt.datetime.fromtimestamp(ns / 1e9).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return wire.utc_text(ns)[:16].replace("T", " ")
