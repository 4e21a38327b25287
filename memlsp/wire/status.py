"""The JSON of a vault's state: `memlsp/status` and `memlsp/reindex`, and the notifications
`memlsp/indexed`, `memlsp/vectors` and `memlsp/changed`."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

from memlsp.index.semantic import VectorStatus
from memlsp.model import IndexSummary
from memlsp.navigation.diagnostics import ProblemCounts
from memlsp.settings.table import SETTINGS, Settings

if TYPE_CHECKING:  # the command line has no live vault: it need not load the watcher
    from memlsp.live.status import Group, StatusReport, VaultStatus

# The values `VaultStatus.state` (memlsp/live/status.py) and `VectorStatus.state`
# (memlsp/index/semantic.py) take; a client switches on them, so they are spelled out.
VaultState = Literal["opening", "indexing", "ready", "failed", "stopped"]
VectorState = Literal["off", "connecting", "ready", "unavailable"]
# Which process answered a status report (`memlsp status`, commands/status.py `PROCESS_KINDS`).
ProcessKind = Literal["language server", "memlsp serve", "memlsp mcp", "none"]
# Where a setting's value came from (settings/table.py `SOURCES`).
SettingSource = Literal["default", "user config", "vault", "editor", "flag"]


class VectorsJson(TypedDict):
    """The vector side of a vault."""

    state: VectorState
    embedder: str
    embedded: int  # chunks with their vector
    pending: int  # chunks still waiting for one
    problem: str  # why it is unavailable, "" when it is not


class _VaultStatusJson(TypedDict):
    root: str
    name: str
    summary: str  # one line in plain words
    busy: bool
    state: VaultState
    notes: int
    chunks: int
    revision: int
    indexed_files: int
    files_to_index: int
    pending_changes: int  # edits and file events not indexed yet
    message: str
    read_only: bool
    vectors: VectorsJson | None  # None before the index is open
    problems: ProblemsJson | None  # None before the index is open


class VaultStatusJson(_VaultStatusJson, total=False):
    """One vault of `memlsp/status`."""

    report: StatusReportJson  # asked for with `"report": true`, once the index is open


class ProblemsJson(TypedDict):
    """How many links of the vault have each kind of problem (the diagnostics' kinds)."""

    unresolved: int
    missing_anchors: int
    ambiguous: int
    outside: int


class LinkCountsJson(TypedDict):
    """How many links the vault's notes have, and how many do not lead to one note."""

    total: int
    unresolved: int  # to no note (or out of the vault)
    ambiguous: int  # to a name several notes have


class ModelJson(TypedDict):
    """One collection of the vector store (one per model, or per block of the bilingual one)."""

    name: str
    embedded: int


class ReportVectorsJson(TypedDict):
    """The vector side in a status report."""

    state: VectorState
    embedder: str
    embedded: int
    pending: int
    failed: int  # chunks the embedder could not embed
    running: bool  # embedding now
    rate_per_second: float | None
    eta_seconds: float | None
    problem: str
    off_reason: str | None  # why there is no vector side ("embedder = none (default)")
    models: list[ModelJson]


class NotNotesJson(TypedDict):
    """Files of the vault that are not notes, for one reason (sync/not_notes.py `REASONS`)."""

    reason: str
    detail: str
    count: int
    paths: list[str]  # the first ten
    rule: str | None  # `ignored`: the rule ("exclude = node_modules", "dot files and folders")
    source: str | None  # `ignored`: where the rule comes from ("built in", "user config"...)


class ProblemGroupJson(TypedDict):
    """One kind of problem: `invalid_frontmatter`, `unresolved_link`, `ambiguous_link`..."""

    kind: str
    count: int  # links for a link problem, notes otherwise
    paths: list[str]  # the first ten notes


class UnseenChangesJson(TypedDict):
    """Files changed, added or deleted on disk since the index read them."""

    count: int
    paths: list[str]


class CacheJson(TypedDict):
    path: str
    bytes: int


class RecallTotalsJson(TypedDict):
    """How often searches shown to someone recalled the vault's notes (index/recall.py)."""

    notes: int  # notes recalled at least once (renamed or deleted ones included)
    recalls: int  # all their counts added up
    last: str | None  # the latest recall, ISO 8601 UTC; None: never


class ProcessJson(TypedDict):
    """The process that answered."""

    kind: ProcessKind
    pid: int | None
    since: str | None  # ISO 8601, UTC


class SettingJson(TypedDict):
    value: object
    source: SettingSource


class StatusReportJson(TypedDict):
    """`memlsp status --json`, the MCP tool `status`, and `memlsp/status` with `report`."""

    root: str
    name: str
    summary: str
    state: VaultState
    read_only: bool  # the answering process does not write the index
    notes: int
    chunks: int
    links: LinkCountsJson
    revision: int
    last_changed: str | None  # when the index last changed, ISO 8601, UTC
    vectors: ReportVectorsJson
    not_notes: list[NotNotesJson]
    problems: list[ProblemGroupJson]
    unseen_changes: UnseenChangesJson
    cache: CacheJson
    process: ProcessJson
    settings: dict[str, SettingJson]
    messages: list[str]  # what a user should know about this index
    recall: RecallTotalsJson


class StatusAnswerJson(TypedDict):
    """`memlsp/status`."""

    version: str
    vaults: list[VaultStatusJson]


class ReindexAnswerJson(TypedDict):
    """`memlsp/reindex`: the vaults being scanned again."""

    vaults: list[str]


class IndexedJson(TypedDict):
    """`memlsp/indexed`, each time a vault's indexing finished."""

    root: str
    notes: int
    chunks: int
    links: int
    unresolved: int
    ambiguous: int
    skipped_count: int  # files left out (their list is in `memlsp index --json`'s `skipped`)
    seconds: float


class VectorsNoticeJson(TypedDict):
    """`memlsp/vectors`, when embedding caught up or cannot go on."""

    root: str
    vectors: VectorsJson


class ChangedJson(TypedDict):
    """`memlsp/changed`, after an update of the index."""

    root: str
    revision: int


def vectors_json(status: VectorStatus) -> VectorsJson:
    return {
        "state": cast(VectorState, status.state),
        "embedder": status.embedder,
        "embedded": status.stored,
        "pending": status.pending,
        "problem": status.problem,
    }


def vault_status_json(
    root: str,
    status: VaultStatus,
    problems: ProblemCounts | None = None,
    report: StatusReportJson | None = None,
) -> VaultStatusJson:
    answer: VaultStatusJson = {
        "root": root,
        "name": status.name,
        "summary": status.summary,
        "busy": status.busy,
        "state": cast(VaultState, status.state),
        "notes": status.notes,
        "chunks": status.chunks,
        "revision": status.revision,
        "indexed_files": status.files_done,
        "files_to_index": status.files_total,
        "pending_changes": status.pending,
        "message": status.message,
        "read_only": status.read_only,
        "vectors": None if status.vectors is None else vectors_json(status.vectors),
        "problems": None if problems is None else problems_json(problems),
    }
    if report is not None:
        answer["report"] = report
    return answer


def problems_json(counts: ProblemCounts) -> ProblemsJson:
    return {
        "unresolved": counts.unresolved,
        "missing_anchors": counts.missing_anchors,
        "ambiguous": counts.ambiguous,
        "outside": counts.outside,
    }


def status_answer_json(version: str, vaults: Sequence[VaultStatusJson]) -> StatusAnswerJson:
    return {"version": version, "vaults": list(vaults)}


def reindex_answer_json(roots: Sequence[str]) -> ReindexAnswerJson:
    return {"vaults": list(roots)}


def indexed_json(root: str, summary: IndexSummary) -> IndexedJson:
    return {
        "root": root,
        "notes": summary.notes,
        "chunks": summary.chunks,
        "links": summary.links,
        "unresolved": summary.unresolved,
        "ambiguous": summary.ambiguous,
        "skipped_count": len(summary.skipped),
        "seconds": round(summary.seconds, 3),
    }


def vectors_notice_json(root: str, status: VectorStatus) -> VectorsNoticeJson:
    return {"root": root, "vectors": vectors_json(status)}


def changed_json(root: str, revision: int) -> ChangedJson:
    return {"root": root, "revision": revision}


def status_report_json(report: StatusReport) -> StatusReportJson:
    status, vectors = report.status, report.vectors
    process = report.process
    settings = settings_json(report.settings)
    return {
        "root": str(report.root),
        "name": status.name,
        "summary": status.summary,
        "state": cast(VaultState, status.state),
        "read_only": report.read_only,
        "notes": status.notes,
        "chunks": status.chunks,
        "links": {
            "total": report.links["links"],
            "unresolved": report.links["unresolved"],
            "ambiguous": report.links["ambiguous"],
        },
        "revision": status.revision,
        "last_changed": iso_time(report.last_changed),
        "vectors": {
            "state": cast(VectorState, vectors.status.state),
            "embedder": vectors.status.embedder,
            "embedded": vectors.status.stored,
            "pending": vectors.status.pending,
            # No chunk is given up on: a batch that fails makes the side unavailable until it is
            # tried again (index/semantic.py).
            "failed": 0,
            "running": vectors.running,
            "rate_per_second": None
            if vectors.rate_per_second is None
            else round(vectors.rate_per_second, 2),
            "eta_seconds": None if vectors.eta_seconds is None else round(vectors.eta_seconds, 1),
            "problem": vectors.status.problem,
            "off_reason": vectors.off_reason,
            "models": [{"name": name, "embedded": size} for name, size in vectors.models],
        },
        "not_notes": [_not_notes_json(group) for group in report.not_notes],
        "problems": [
            {"kind": group.kind, "count": group.count, "paths": list(group.paths)}
            for group in report.problems
        ],
        "unseen_changes": {
            "count": len(report.unseen_changes),
            "paths": list(report.unseen_changes[:10]),
        },
        "cache": {"path": str(report.cache_dir), "bytes": report.cache_bytes},
        "process": {
            "kind": cast(ProcessKind, process.kind),
            "pid": process.pid,
            "since": iso_time(process.since),
        },
        "settings": settings,
        "messages": list(report.messages),
        "recall": {
            "notes": report.recall.notes,
            "recalls": report.recall.recalls,
            "last": None
            if report.recall.last_ns is None
            else iso_time(report.recall.last_ns / 1e9),
        },
    }


def _not_notes_json(group: Group) -> NotNotesJson:
    return {
        "reason": group.kind,
        "detail": group.detail,
        "count": group.count,
        "paths": list(group.paths),
        "rule": group.rule,
        "source": group.source,
    }


def iso_time(seconds: float | None) -> str | None:
    """ISO 8601 in UTC, to the second: `2026-12-06T07:18:52Z`."""
    if seconds is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def settings_json(settings: Settings) -> dict[str, SettingJson]:
    """Every setting in force, as JSON values, with where it came from."""
    return {
        name: {
            "value": _plain(getattr(settings, name)),
            "source": cast(SettingSource, settings.source_of(name)),
        }
        for name in SETTINGS
    }


def _plain(value: object) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list | frozenset | set):
        return [_plain(item) for item in value]
    return value
