"""What has been indexed, file by file, so a restart re-parses nothing that did not change.

A record keeps the file's stat, content digest, parsed note and chunk ids. The manifest is written
after the keyword index commits: if a crash comes between the two, the files that changed since the
last manifest are simply indexed again on the next start (replacing a note is idempotent).
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memlsp.model import Note

log = logging.getLogger(__name__)

FORMAT_VERSION = 4


@dataclass(frozen=True, slots=True)
class FileRecord:
    path: str
    mtime_ns: int
    size: int
    digest: str
    note: Note | None  # None: skipped (unreadable, binary, too large), kept to avoid rereading it
    chunk_ids: tuple[str, ...]
    problem: str | None = None  # the reason it was skipped, or a warning such as invalid YAML


@dataclass(slots=True)
class Manifest:
    fingerprint: str  # settings that shape parsing and chunking; a change means re-index all
    records: dict[str, FileRecord] = field(default_factory=dict)
    files: tuple[str, ...] = ()  # the other files (attachments) links could point at
    # The engine's link graph over these notes, saved with them so a warm start resolves nothing.
    # Opaque here: the index layer does not know the vault layer's types.
    graph: Any = None

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        with open(temporary, "wb") as handle, gc_paused():
            pickle.dump(
                {
                    "format": FORMAT_VERSION,
                    "fingerprint": self.fingerprint,
                    "records": self.records,
                    "files": self.files,
                    "graph": self.graph,
                },
                handle,
                protocol=pickle.HIGHEST_PROTOCOL,
            )
        os.replace(temporary, path)

    @classmethod
    def load(cls, path: Path, fingerprint: str) -> tuple[Manifest, str | None]:
        """The saved manifest, or an empty one and the reason the saved one cannot be used."""
        if not path.exists():
            return cls(fingerprint), None
        try:
            with open(path, "rb") as handle, gc_paused():
                data = pickle.load(handle)  # our own cache file, written above
            if data.get("format") != FORMAT_VERSION:
                return cls(
                    fingerprint
                ), f"manifest format {data.get('format')} is not {FORMAT_VERSION}"
            if data.get("fingerprint") != fingerprint:
                return cls(fingerprint), "indexing settings changed"
            records = data["records"]
            if not isinstance(records, dict):
                raise TypeError("records is not a mapping")
        except Exception as error:
            return cls(fingerprint), f"manifest unreadable ({type(error).__name__}: {error})"
        return cls(fingerprint, records, data["files"], data["graph"]), None


@contextmanager
def gc_paused() -> Iterator[None]:
    """For bulk loads of long-lived objects: ~100k objects and no cycles.

    Collections in between only cost time, and afterwards the loaded objects are moved out of the
    collector's sight (`gc.freeze`) so later collections do not walk them again and again.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
