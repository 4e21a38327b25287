"""`memlsp status`: a vault's state in one report, from one snapshot, by one code path.

The process that has the vault open answers it (its snapshot, its watcher's waiting changes, how
fast it embeds: `live_report`); else the command line opens the index read-only, indexes
nothing, loads no model and asks no store but the vector store's own file (`read_only_report`).
Both end in `status_report`. The files that are not notes are told by `sync/not_notes.py`, the
link problems by `navigation/diagnostics.py`: the same answers `--explain` and the editor give.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from memlsp.engine.engine import Engine
from memlsp.engine.snapshot import Snapshot
from memlsp.index.recall import RecallTotals
from memlsp.index.semantic import VectorStatus
from memlsp.index.store import last_written
from memlsp.index.vectors import StoredCounts, VectorStoreError, stored_counts, vault_prefix
from memlsp.live.status import (
    EmbeddingPace,
    Group,
    ProcessInfo,
    StatusReport,
    VaultStatus,
    VectorsReport,
)
from memlsp.live.vault import LiveVault
from memlsp.model import printable
from memlsp.navigation.diagnostics import Code, problem_notes
from memlsp.parse.prose import embeds
from memlsp.settings.table import DEFAULTS, SETTINGS, Settings
from memlsp.sync.not_notes import NotNote, not_notes
from memlsp.sync.scan import problem_kinds, scan_vault
from memlsp.wire.status import iso_time, settings_json

STILL = EmbeddingPace()  # no embedding going on
FIRST_PATHS = 10  # paths listed per group; the count says how many there are
TEXT_PATHS = 3  # of which the text report shows

# The diagnostics' codes as the report's problem kinds.
LINK_KINDS = {
    Code.UNRESOLVED: "unresolved_link",
    Code.AMBIGUOUS: "ambiguous_link",
    Code.MISSING_HEADING: "missing_anchor",
    Code.MISSING_BLOCK: "missing_anchor",
    Code.OUTSIDE: "link_outside_vault",
}
PROCESS_KINDS = ("language server", "memlsp serve", "memlsp mcp", "none")


# -- which process answers ----------------------------------------------------------------------


NO_PROCESS = ProcessInfo("none")
_process = NO_PROCESS  # this process, once it says what it is


def announce_process(kind: str) -> None:
    """Called once by a process that keeps vaults open (the language server, `memlsp serve`,
    `memlsp mcp`): its reports name it."""
    global _process
    assert kind in PROCESS_KINDS, kind
    _process = ProcessInfo(kind, os.getpid(), time.time())


def this_process() -> ProcessInfo:
    return _process


# -- the report ---------------------------------------------------------------------------------


def status_report(
    snapshot: Snapshot,
    status: VaultStatus,
    *,
    cache_dir: Path,
    read_only: bool,
    process: ProcessInfo,
    pace: EmbeddingPace = STILL,
    waiting: Iterable[str] = (),
    messages: Sequence[str] = (),
) -> StatusReport:
    """The report of the vault `snapshot` is of; `waiting`: changes reported and not applied."""
    settings = snapshot.settings
    scan = scan_vault(snapshot.root, settings, avoid=(cache_dir,))
    unseen = set(waiting)
    for path, stat in scan.indexable.items():
        record = snapshot.records.get(path)
        if record is None or (record.mtime_ns, record.size) != (stat.mtime_ns, stat.size):
            unseen.add(path)
    unseen.update(path for path in snapshot.records if path not in scan.indexable)
    unseen.difference_update(snapshot.buffers)  # an open buffer is what the index holds
    groups = not_notes(scan, snapshot.records, settings).groups
    return StatusReport(
        root=snapshot.root,
        status=status,
        read_only=read_only,
        links=snapshot.graph.counts(),
        last_changed=last_written(cache_dir),
        vectors=_vectors(snapshot, status, cache_dir, pace),
        not_notes=tuple(_group(reason, paths) for reason, paths in groups),
        problems=_problems(snapshot),
        unseen_changes=tuple(sorted(unseen)),
        cache_dir=cache_dir,
        cache_bytes=folder_bytes(cache_dir),
        process=process,
        settings=settings,
        messages=tuple(messages),
        recall=snapshot.recall.totals() if snapshot.recall is not None else RecallTotals(),
    )


def _group(reason: NotNote, paths: Sequence[str]) -> Group:
    first = tuple(paths[:FIRST_PATHS])
    return Group(reason.reason, len(paths), first, reason.detail, reason.rule, reason.source)


def _problems(snapshot: Snapshot) -> tuple[Group, ...]:
    """Warnings the index keeps on notes (invalid frontmatter...), then the links' problems."""
    found: dict[str, list[str]] = {}
    for path, record in snapshot.records.items():
        if record.note is not None and record.problem:
            for kind in problem_kinds(record.problem):
                found.setdefault(kind, []).append(path)
    groups = [Group(kind, len(p), tuple(sorted(p)[:FIRST_PATHS])) for kind, p in found.items()]
    links: dict[str, tuple[int, set[str]]] = {}
    for code, (count, notes) in problem_notes(snapshot.view).items():
        kind = LINK_KINDS.get(code, code)
        before, paths = links.get(kind, (0, set()))
        links[kind] = (before + count, paths | set(notes))
    for kind, (count, paths) in links.items():
        groups.append(Group(kind, count, tuple(sorted(paths)[:FIRST_PATHS]), "links"))
    return tuple(sorted(groups, key=lambda group: group.kind))


def _vectors(
    snapshot: Snapshot, status: VaultStatus, cache_dir: Path, pace: EmbeddingPace
) -> VectorsReport:
    settings = snapshot.settings
    vectors = status.vectors or snapshot.vectors.status
    if settings.embedder == "none":
        source = settings.source_of("embedder")
        return VectorsReport(vectors, off_reason=f"embedder = none ({source})")
    if settings.chroma_url:
        return VectorsReport(vectors, pace.running, pace.rate)
    try:
        counts = stored_counts(cache_dir / "vectors", str(snapshot.root.resolve()))
    except VectorStoreError as error:
        return VectorsReport(_unavailable(vectors, str(error)))
    models = _models(counts, str(snapshot.root.resolve()))
    return VectorsReport(vectors, pace.running, pace.rate, models=models)


def _unavailable(vectors: VectorStatus, problem: str) -> VectorStatus:
    return VectorStatus("unavailable", vectors.embedder, vectors.stored, vectors.pending, problem)


def _models(counts: StoredCounts | None, vault: str) -> tuple[tuple[str, int], ...]:
    if counts is None:
        return ()
    prefix = vault_prefix(vault)
    return tuple((name.removeprefix(prefix), size) for name, size in counts.collections)


def folder_bytes(folder: Path) -> int:
    """What the files under `folder` take on disk (sizes; symlinks not followed)."""
    total = 0
    stack = [folder]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
    return total


# -- where it is asked --------------------------------------------------------------------------


class NotOpen(Exception):
    """The vault has no index to report on (or this process has not opened it yet)."""


def live_report(vault: LiveVault) -> StatusReport:
    """The report of a vault this process has open."""
    engine = vault.engine
    snapshot = vault.read()
    if engine is None or snapshot is None:
        raise NotOpen(f"{vault.root} is not open: {vault.status().summary}")
    return status_report(
        snapshot,
        vault.status(snapshot),
        cache_dir=engine.cache_dir,
        read_only=engine.read_only,
        process=this_process(),
        pace=vault.pace,
        waiting=vault.queue.disk_changes(),
        messages=engine.messages,
    )


def read_only_report(root: Path, settings: Settings) -> StatusReport:
    """The report of a vault no process has open: its index as it is, opened read-only."""
    from memlsp.index.keyword.writer import IndexUnavailable

    try:
        engine = Engine.open(root, settings, read_only=True)
    except IndexUnavailable as error:
        raise NotOpen(f"{root} is not indexed: {error}") from error
    try:
        snapshot = engine.read()
        notes, chunks = snapshot.counts()
        writes = not engine.writer_available()  # another process writes it (and did not answer)
        vectors = _stored_status(snapshot, engine.cache_dir, _embeddable(snapshot))
        status = VaultStatus(
            str(root), "ready", notes, chunks, snapshot.revision, notes, notes, 0, "", vectors,
            writes,
        )  # fmt: skip
        report = status_report(
            snapshot,
            status,
            cache_dir=engine.cache_dir,
            read_only=True,
            process=NO_PROCESS,
            messages=engine.messages,
        )
    finally:
        engine.close()
    return report


def _embeddable(snapshot: Snapshot) -> int:
    """The chunks that get a vector: prose only (their ids say so), as the backfill plans."""
    return sum(
        embeds(chunk_id)
        for record in snapshot.records.values()
        if record.note is not None
        for chunk_id in record.chunk_ids
    )


def _stored_status(snapshot: Snapshot, cache_dir: Path, chunks: int) -> VectorStatus:
    """The vector side as its store's file says, no store opened and no model loaded: `chunks`
    is how many chunks should have a vector."""
    settings = snapshot.settings
    if settings.embedder == "none":
        return VectorStatus("off", "none", 0, 0)
    if settings.chroma_url:
        why = "the vectors are on a Chroma server, which only a running memlsp process asks"
        return VectorStatus("unavailable", settings.embedder, 0, 0, why)
    try:
        counts = stored_counts(cache_dir / "vectors", str(snapshot.root.resolve()))
    except VectorStoreError as error:
        return VectorStatus("unavailable", settings.embedder, 0, chunks, str(error))
    stored = 0 if counts is None else counts.chunks
    return VectorStatus("ready", settings.embedder, stored, max(chunks - stored, 0))


# -- as text ------------------------------------------------------------------------------------


def status_text(report: StatusReport) -> str:
    """A short report for a person: what `memlsp status` prints without `--json`."""
    status = report.status
    links = report.links
    lines = [
        f"{printable(str(report.root))}: {status.summary}",
        f"{status.notes:,} notes, {status.chunks:,} chunks, {links['links']:,} links "
        f"({links['unresolved']:,} unresolved, {links['ambiguous']:,} ambiguous); "
        f"revision {status.revision}, last changed {_when(report.last_changed)}",
        _vectors_text(report.vectors),
    ]
    for title, groups in (("not notes", report.not_notes), ("problems", report.problems)):
        if groups:
            lines.append(f"{title}:")
            lines += [_group_text(group) for group in groups]
    if report.unseen_changes:
        lines.append(
            f"changed on disk since indexed: {_paths(len(report.unseen_changes), report.unseen_changes)}"
        )
    recall = report.recall
    if recall.notes:
        last = None if recall.last_ns is None else recall.last_ns / 1e9
        lines.append(
            f"recalled: {recall.notes:,} notes, {recall.recalls:,} times by searches, "
            f"last {_when(last)}"
        )
    else:
        lines.append("recalled: no note yet")
    lines.append(f"cache: {printable(str(report.cache_dir))} ({_size(report.cache_bytes)})")
    process = report.process
    if process.pid is None:
        lines.append("answered by: this command, from the index as it is (no process has it open)")
    else:
        lines.append(
            f"answered by: {process.kind} (pid {process.pid}, since {_when(process.since)})"
        )
    changed = [
        f"  {name} = {settings_json(report.settings)[name]['value']!r} "
        f"({report.settings.source_of(name)})"
        for name in SETTINGS
        if getattr(report.settings, name) != getattr(DEFAULTS, name)
    ]
    if changed:
        lines += ["settings not at their default:", *changed]
    lines += [f"note: {message}" for message in report.messages]
    return "\n".join(printable(line) for line in lines)


def _vectors_text(vectors: VectorsReport) -> str:
    status = vectors.status
    if vectors.off_reason:
        return f"vectors: off ({vectors.off_reason})"
    if status.state == "unavailable":
        return f"vectors: unavailable ({status.problem or 'no store'})"
    line = f"vectors: {status.stored:,} chunks by {status.embedder}, {status.pending:,} pending"
    if vectors.running and vectors.rate_per_second:
        line += f", {vectors.rate_per_second:,.1f}/s"
        if vectors.eta_seconds is not None:
            line += f", about {vectors.eta_seconds:,.0f} s left"
    return line


def _group_text(group: Group) -> str:
    what = group.kind + (f" ({group.detail})" if group.detail and group.detail != "links" else "")
    return f"  {what}: {_paths(group.count, group.paths)}"


def _paths(count: int, paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:TEXT_PATHS])
    more = f", and {count - TEXT_PATHS:,} more" if count > TEXT_PATHS else ""
    return f"{count:,}: {shown}{more}"


def _size(size: int) -> str:
    if size < 1000:
        return f"{size:,} bytes"
    scaled = float(size)
    for unit in ("KB", "MB", "GB"):
        scaled /= 1000
        if scaled < 1000 or unit == "GB":
            break
    return f"{scaled:,.1f} {unit}"


def _when(seconds: float | None) -> str:
    return "never" if seconds is None else iso_time(seconds) or "never"
