"""What one request is about: a note of a vault, read from one snapshot, and where the cursor is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memlsp.engine.snapshot import Snapshot
from memlsp.settings.table import Settings
from memlsp.vault.view import VaultView


@dataclass(frozen=True, slots=True)
class NoteRequest:
    """A request about a note: its vault as of one snapshot, taken when the request began."""

    snapshot: Snapshot
    path: str  # vault-relative
    # The open buffer's lines as they were when the request came: the position is in that
    # version, and the client may send more edits while the request runs on a thread. (A request
    # at a cursor holds the lines its column was found on, from the buffer or the file.)
    buffer: Sequence[str] | None

    @property
    def view(self) -> VaultView:
        return self.snapshot.view

    @property
    def root(self) -> Path:
        return self.snapshot.root

    @property
    def settings(self) -> Settings:
        return self.snapshot.settings

    def lines(self) -> list[str]:
        """The note's lines as the request sees them (its buffer, else the file), no line ends."""
        lines = (
            self.buffer
            if self.buffer is not None
            else (self.snapshot.read(self.path) or "").splitlines()
        )
        return [line.rstrip("\r\n") for line in lines]


@dataclass(frozen=True, slots=True)
class CursorRequest(NoteRequest):
    """A request at a position in a note: 0-based line, code-point column."""

    line: int
    column: int
