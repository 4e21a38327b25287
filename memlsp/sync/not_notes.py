"""Why a file of a vault is not a note: for one path (`why_not_a_note`, which `--explain` asks) and
for every file the scan met (`not_notes`, which a vault's status counts), by the same rules.

A reason is a word of a fixed vocabulary (`REASONS`); the scan's and the reader's own messages get
theirs from `problem_kind` (sync/scan.py), so no message is matched anywhere else. A file that is
read as a note with a warning (invalid frontmatter, text that is not valid UTF-8, decoded with
replacement) is a note: its warning is a problem of the vault's, not a reason here.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mode
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from memlsp.index.manifest import FileRecord
from memlsp.settings.files import SETTINGS_FILE
from memlsp.settings.table import Settings
from memlsp.sync.scan import (
    FileStat,
    VaultScan,
    name_problem,
    problem_kind,
    read_text,
)
from memlsp.vault.rules import VaultRules

# Every reason a file is not a note; `problem_kind` gives the scan's own reasons one of these.
REASONS = (
    "missing",  # no such file
    "ignored",  # a dot-file or -folder, or an excluded name: never read nor watched
    "bad_name",  # a name that is not valid UTF-8, or a path with empty, "." or ".." parts
    "not_a_file",  # a folder, a FIFO, a device
    "symlink_outside",
    "symlink_loop",
    "broken_symlink",
    "not_markdown",  # an attachment: its suffix is not a note's
    "too_large",
    "binary",
    "unreadable",
    "other",
)
DOT_RULE = "dot files and folders"
BUILT_IN = "built in"


@dataclass(frozen=True, slots=True)
class NotNote:
    reason: str  # one of REASONS
    detail: str  # in words, for a person
    rule: str | None = None  # `ignored`: the rule, e.g. "exclude = node_modules"
    source: str | None = None  # `ignored`: where the rule comes from, e.g. "built in"


def why_not_a_note(
    root: Path, path: str, settings: Settings, record: FileRecord | None = None
) -> NotNote | None:
    """Why the file at vault-relative `path` is not (or would not be) a note; None when it is.

    `record` is what the index holds for it, if anything: its reason is used while the file is
    as the index read it, so a status and this answer agree without reading the file again."""
    rules = VaultRules.of(settings)
    parts = path.split("/")
    problem = name_problem(path)
    if problem is not None:
        return NotNote("bad_name", problem)
    if {"", ".", ".."} & set(parts):
        return NotNote("bad_name", "not a path inside the vault (empty, '.' or '..' parts)")
    full = root / path
    if not os.path.lexists(full):
        return NotNote("missing", "no such file")
    ignored = ignored_by(path, settings)
    if ignored is not None:
        return ignored
    try:
        if full.is_symlink():
            refused = _refused_symlink(full, root)
            if refused is not None:
                return refused
        found = full.stat()
    except (OSError, RuntimeError, ValueError) as error:
        return NotNote("unreadable", f"unreadable: {error}")
    if not stat_mode.S_ISREG(found.st_mode):
        what = "a folder" if stat_mode.S_ISDIR(found.st_mode) else "not a regular file"
        return NotNote("not_a_file", what)
    if not rules.indexable(path):
        return not_markdown(settings)
    if record is not None and (record.mtime_ns, record.size) == (found.st_mtime_ns, found.st_size):
        return skipped_record(record)
    text = read_text(root, FileStat(path, found.st_mtime_ns, found.st_size), settings)
    return None if text.text is not None else from_reason(text.problem or "skipped")


def ignored_by(path: str, settings: Settings) -> NotNote | None:
    """The rule that ignores `path` (a dot-file or -folder, an excluded name), or None."""
    for part in path.split("/"):
        if part.startswith("."):
            detail = f"{part}: {DOT_RULE} are ignored ({BUILT_IN})"
            return NotNote("ignored", detail, DOT_RULE, BUILT_IN)
        if part in settings.exclude:
            rule = f"exclude = {part}"
            source = _source_of(settings, "exclude")
            return NotNote("ignored", f"{part}: {rule} ({source})", rule, source)
    return None


def _source_of(settings: Settings, name: str) -> str:
    """Where a setting came from, naming the vault's own file when that is it."""
    source = settings.source_of(name)
    return f"vault ({SETTINGS_FILE})" if source == "vault" else source


def not_markdown(settings: Settings) -> NotNote:
    suffixes = ", ".join(settings.note_suffixes + settings.record_suffixes)
    return NotNote("not_markdown", f"its suffix is none of {suffixes}; links may still point at it")


def skipped_record(record: FileRecord) -> NotNote | None:
    """Why an indexed file's record holds no note (None: it does)."""
    if record.note is not None or record.chunk_ids:
        return None
    return from_reason(record.problem or "skipped")


def from_reason(reason: str) -> NotNote:
    """A reason the scan or the reader wrote, with its kind."""
    kind = problem_kind(reason)
    return NotNote(kind if kind in REASONS else "other", reason)


def _refused_symlink(full: Path, root: Path) -> NotNote | None:
    try:
        target = full.resolve(strict=True)
    except (OSError, RuntimeError) as error:
        if isinstance(error, RuntimeError) or getattr(error, "errno", None) == errno.ELOOP:
            return NotNote("symlink_loop", "symlink loop; not followed")
        return NotNote("broken_symlink", "broken symlink")
    if not target.is_relative_to(root.resolve()):
        return NotNote("symlink_outside", "symlink points outside the vault; not followed")
    return None


# -- every file the scan met ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NotNotes:
    """The files of a vault that are not notes, by reason (and rule, for `ignored`)."""

    groups: tuple[tuple[NotNote, tuple[str, ...]], ...]  # a group's reason and its sorted paths


def not_notes(scan: VaultScan, records: Mapping[str, FileRecord], settings: Settings) -> NotNotes:
    """Every file `scan` met that is not a note: ignored ones (as the scan met them, a folder
    once, never walked into), the scan's skipped ones, attachments, and the records of files the
    index read and skipped (too large, binary...)."""
    found: list[tuple[str, NotNote]] = []
    for path in scan.ignored:
        ignored = ignored_by(path.rstrip("/"), settings)
        found.append((path, ignored or NotNote("ignored", "ignored")))
    found += [(skipped.path, from_reason(skipped.reason)) for skipped in scan.skipped]
    attachment = not_markdown(settings)
    found += [(path, attachment) for path in scan.files]
    # Each file too large names its own size; the group names the limit.
    too_large = NotNote("too_large", f"larger than max_file_bytes = {settings.max_file_bytes:,}")
    for path, record in records.items():
        reason = skipped_record(record)
        if reason is not None and path in scan.indexable:
            found.append((path, too_large if reason.reason == "too_large" else reason))
    return NotNotes(_grouped(found))


def _grouped(found: Iterable[tuple[str, NotNote]]) -> tuple[tuple[NotNote, tuple[str, ...]], ...]:
    """Grouped by reason and rule; a group's detail is its first file's (details of files too
    large name each its size: the group says the limit)."""
    groups: dict[tuple[str, str | None, str | None], tuple[NotNote, list[str]]] = {}
    for path, reason in found:
        key = (reason.reason, reason.rule, reason.source)
        if key not in groups:
            groups[key] = (reason, [])
        groups[key][1].append(path)
    ordered = sorted(groups.values(), key=lambda group: (-len(group[1]), group[0].reason))
    return tuple((reason, tuple(sorted(paths))) for reason, paths in ordered)
