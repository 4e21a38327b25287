"""The vault as of one revision, immutable: what every request reads.

The engine's single writer applies a change as one batch and then publishes a new `Snapshot`;
a request takes the current one without a lock and keeps it for as long as it runs, so it never
sees half of a change, and a long request never holds up the writer. Only note texts are read
at the time they are asked for (an open buffer of this revision wins over the disk).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from memlsp.config import Settings
from memlsp.index.keyword import KeywordReader
from memlsp.index.manifest import FileRecord
from memlsp.sync.scan import read_text, stat_path
from memlsp.vault.graph import LinkGraph
from memlsp.vault.view import VaultView

EMPTY: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Snapshot:
    revision: int
    graph: LinkGraph  # frozen
    keyword: KeywordReader  # the keyword index as committed for this revision
    records: Mapping[str, FileRecord]  # every indexed file, notes and skipped ones
    buffers: Mapping[str, str]  # open editor buffers, which win over the disk
    root: Path
    settings: Settings

    @property
    def view(self) -> VaultView:
        """What navigation reads of it."""
        return VaultView(self.revision, self.graph, self.read, self.modified)

    def modified(self, path: str) -> int:
        """When a file last changed (ns); an open buffer is being changed now."""
        if path in self.buffers:
            return sys.maxsize
        record = self.records.get(path)
        return record.mtime_ns if record is not None else 0

    def read(self, path: str) -> str | None:
        """The text of a vault file: its open buffer, else the file on disk now."""
        buffered = self.buffers.get(path)
        if buffered is not None:
            return buffered
        stat = stat_path(self.root, path, self.settings)
        if stat is None:
            return None
        return read_text(self.root, stat, self.settings).text

    def counts(self) -> tuple[int, int]:
        """Notes and chunks."""
        notes = chunks = 0
        for record in self.records.values():
            notes += record.note is not None
            chunks += len(record.chunk_ids)
        return notes, chunks
