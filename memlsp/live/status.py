"""A live vault's status as one value, and the plain words a person reads it in (the status bar,
progress, `memlsp status`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memlsp.index.semantic import VectorStatus


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


def notes_done(done: int, total: int) -> str:
    return f"{done:,} of {total:,} notes"


def sections_done(vectors: VectorStatus) -> str:
    return f"{vectors.stored:,} of {vectors.stored + vectors.pending:,} sections"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
