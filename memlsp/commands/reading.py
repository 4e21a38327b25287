"""The printed answers to `memlsp read` and `memlsp recent`, from one snapshot of the vault, in a
process of its own or on the vault's socket alike (commands/answers.py lists them there)."""

from __future__ import annotations

import argparse
import datetime as dt
import math
import re
import time
from typing import TextIO

from memlsp import wire
from memlsp.commands.arguments import UsageError
from memlsp.engine.snapshot import Snapshot
from memlsp.model import printable, printable_lines
from memlsp.navigation.reading import ReadError, ReadRequest, read_passage
from memlsp.navigation.recent import recent_changes
from memlsp.vault.rules import VaultRules

_DRIVE = re.compile(r"[A-Za-z]:/")  # `C:/notes/a.md`, as Windows writes an absolute path


def read(snapshot: Snapshot, args: argparse.Namespace, out: TextIO) -> None:
    """The lines as they are, and after a blank line `(cut: ...)` when the budget cut them."""
    if args.budget_tokens is not None and args.budget_tokens < 1:
        raise UsageError(f"--budget-tokens must be at least 1, not {args.budget_tokens}")
    path = _note(snapshot, args)
    request = ReadRequest(args.heading, args.start_line, args.end_line, args.budget_tokens)
    records = VaultRules.of(snapshot.settings).is_records(path)
    try:
        passage = read_passage(snapshot.view, path, request, records=records)
    except ReadError as error:
        raise UsageError(printable(str(error))) from error
    if args.json:
        print(wire.json_text(wire.read_json(passage)), file=out)
        return
    # The text is the note's own, but for what would drive the terminal (ESC, BEL, bidi controls).
    print(printable_lines(passage.text), file=out)
    if passage.cut:
        print(f"\n(cut: {passage.cut})", file=out)


def _note(snapshot: Snapshot, args: argparse.Namespace) -> str:
    """The note NOTE names. Only the snapshot's notes can be named, and only their text is read,
    through the snapshot: a path that leaves the vault is refused before it is looked up."""
    reference = args.note.strip().replace("\\", "/")
    if reference.startswith("/") or _DRIVE.match(reference) or ".." in reference.split("/"):
        raise UsageError(
            f"{args.note!r} is outside the vault: give a vault-relative path or a note name"
        )
    path = snapshot.find_note(args.note)
    if path is None:
        raise UsageError(f"no note {args.note!r} in {args.vault}")
    return path


def recent(snapshot: Snapshot, args: argparse.Namespace, out: TextIO) -> None:
    """`2026-12-03 21:40  path  title` a line (local time), newest first, then `N more`."""
    if not (math.isfinite(args.days) and args.days > 0):
        raise UsageError(f"--days must be a number of days above 0, not {args.days:g}")
    if args.limit < 1:
        raise UsageError(f"--limit must be at least 1, not {args.limit}")
    notes = snapshot.graph.notes
    answer = recent_changes(
        ((path, snapshot.last_saved(path)) for path in notes),
        now_ns=time.time_ns(),
        days=args.days,
        limit=args.limit,
    )
    if args.json:
        print(wire.json_text(wire.recent_json(answer, notes)), file=out)
        return
    for change in answer.changes:
        unsaved = "  [unsaved]" if change.unsaved else ""
        line = f"{_local_minute(change.modified_ns)}  {change.path}  {notes[change.path].title}"
        print(printable(line + unsaved), file=out)
    if answer.more:
        print(f"{answer.more} more", file=out)
    if not answer.changes:
        print(f"no notes changed in the last {args.days:g} days", file=out)


def _local_minute(ns: int) -> str:
    """`2026-12-03 21:40` in local time; the UTC time (`wire.utc_text`) when out of range."""
    try:
        return dt.datetime.fromtimestamp(ns / 1e9).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return wire.utc_text(ns)[:16].replace("T", " ")
