"""The JSON of a vault's state: `memlsp/status` and `memlsp/reindex`, and the notifications
`memlsp/indexed`, `memlsp/vectors` and `memlsp/changed`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypedDict, cast

from memlsp.index.semantic import VectorStatus
from memlsp.model import IndexSummary
from memlsp.navigation.diagnostics import ProblemCounts

if TYPE_CHECKING:  # the command line has no live vault: it need not load the watcher
    from memlsp.live.status import VaultStatus

# The values `VaultStatus.state` (memlsp/live/status.py) and `VectorStatus.state`
# (memlsp/index/semantic.py) take; a client switches on them, so they are spelled out.
VaultState = Literal["opening", "indexing", "ready", "failed", "stopped"]
VectorState = Literal["off", "connecting", "ready", "unavailable"]


class VectorsJson(TypedDict):
    """The vector side of a vault."""

    state: VectorState
    embedder: str
    embedded: int  # chunks with their vector
    pending: int  # chunks still waiting for one
    problem: str  # why it is unavailable, "" when it is not


class VaultStatusJson(TypedDict):
    """One vault of `memlsp/status`."""

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


class ProblemsJson(TypedDict):
    """How many links of the vault have each kind of problem (the diagnostics' kinds)."""

    unresolved: int
    missing_anchors: int
    ambiguous: int
    outside: int


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
    root: str, status: VaultStatus, problems: ProblemCounts | None = None
) -> VaultStatusJson:
    return {
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
