"""A live vault's status as one value, and the plain words a person reads it in (the status bar,
progress, `memlsp status`); the values of a whole status report (commands/status.py makes it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from memlsp.index.recall import RecallTotals
from memlsp.index.semantic import VectorStatus
from memlsp.settings.table import Settings


@dataclass(frozen=True, slots=True)
class VaultStatus:
    root: str
    state: str  # "opening", "indexing", "ready", "failed", "stopped"
    notes: int
    chunks: int
    revision: int
    files_done: int
    files_total: int
    pending: int
    message: str = ""
    vectors: VectorStatus | None = None
    read_only: bool = False  # another process writes the index; this one answers from it

    @property
    def name(self) -> str:
        return Path(self.root).name

    @property
    def busy(self) -> bool:
        """Work is moving: opening, indexing, or (in the writing process) finding meaning."""
        if self.state in ("opening", "indexing"):
            return True
        vectors = self.vectors
        if self.read_only or vectors is None:
            return False
        # Before it connects the vector side knows of nothing pending: connecting is work too.
        return vectors.state == "connecting" or (vectors.state == "ready" and vectors.pending > 0)

    @property
    def summary(self) -> str:
        """One line in plain words for a person: the status bar, progress, `memlsp status`."""
        if self.state == "opening":
            return _sentence(self.message) if self.message else "Opening"
        if self.state == "indexing":
            if self.files_total:
                return f"Indexing {notes_done(self.files_done, self.files_total)}"
            return "Looking for changed notes"
        if self.state == "failed":
            return f"Not indexed: {self.message}"
        if self.state == "stopped":
            return "Stopped"
        ready = f"Ready: {self.notes:,} notes"
        if self.read_only:
            return f"{ready}, read-only (another memlsp process keeps this vault's index)"
        vectors = self.vectors
        if vectors is None or vectors.state == "off":
            return ready
        if vectors.state == "unavailable":
            return f"Ready, keyword search only: {vectors.problem or 'semantic search unavailable'}"
        if vectors.state == "connecting":
            return f"{ready}; starting semantic search"
        if vectors.pending:
            return f"Finding meaning: {sections_done(vectors)}"
        return ready


@dataclass(frozen=True, slots=True)
class EmbeddingPace:
    """How fast embedding goes now: the chunks embedded since this run of steps began (it ends
    when embedding caught up or cannot go on), and when. Swapped whole by the embedding thread."""

    started: float = 0.0  # monotonic seconds
    embedded: int = 0
    last: float = 0.0  # the last step that embedded something
    running: bool = False

    def after(self, embedded: int, finished: bool, now: float) -> EmbeddingPace:
        if finished:
            return EmbeddingPace()
        if not embedded:
            return self
        if not self.running:
            # The first step's own chunks are not timed from its start: counted from its end.
            return EmbeddingPace(now, 0, now, True)
        return EmbeddingPace(self.started, self.embedded + embedded, now, True)

    @property
    def rate(self) -> float | None:
        """Chunks a second since this run began; None until two steps tell."""
        elapsed = self.last - self.started
        return self.embedded / elapsed if self.running and self.embedded and elapsed > 0 else None


def notes_done(done: int, total: int) -> str:
    return f"{done:,} of {total:,} notes"


def sections_done(vectors: VectorStatus) -> str:
    return f"{vectors.stored:,} of {vectors.stored + vectors.pending:,} sections"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


# -- a status report ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    kind: str  # one of PROCESS_KINDS
    pid: int | None = None
    since: float | None = None  # when it started, seconds since the epoch


@dataclass(frozen=True, slots=True)
class Group:
    """Files (or notes) that share a reason or a kind of problem: how many, and the first ones."""

    kind: str
    count: int
    paths: tuple[str, ...]
    detail: str = ""
    rule: str | None = None
    source: str | None = None


@dataclass(frozen=True, slots=True)
class VectorsReport:
    status: VectorStatus
    running: bool = False  # embedding now
    rate_per_second: float | None = None
    off_reason: str | None = None  # why there is no vector side
    models: tuple[tuple[str, int], ...] = ()  # each collection of the store and its size

    @property
    def eta_seconds(self) -> float | None:
        if self.rate_per_second is None or not self.status.pending:
            return None
        return self.status.pending / self.rate_per_second


@dataclass(frozen=True, slots=True)
class StatusReport:
    root: Path
    status: VaultStatus  # state, summary, notes, chunks, revision
    read_only: bool  # this process does not write the index
    links: Mapping[str, int]  # "links", "unresolved", "ambiguous"
    last_changed: float | None  # seconds since the epoch
    vectors: VectorsReport
    not_notes: tuple[Group, ...]
    problems: tuple[Group, ...]
    unseen_changes: tuple[str, ...]  # changed, added or deleted on disk since the index read them
    cache_dir: Path
    cache_bytes: int
    process: ProcessInfo
    settings: Settings
    messages: tuple[str, ...] = field(default_factory=tuple)
    recall: RecallTotals = field(
        default_factory=RecallTotals
    )  # how often searches recalled the vault's notes
