"""Vectors by content: (embedder id, digest of the embedded text) -> vector, in SQLite.

A chunk's id changes when its note is renamed or when it moves to a Chroma server; its text does
not. Looking the text up here first means unchanged text is never embedded twice, whatever happened
to the chunk around it."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class VectorCache:
    def __init__(self, path: Path | None) -> None:
        """`None` keeps the cache in memory (tests, read-only indexes)."""
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path) if path else ":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors ("
                " embedder TEXT NOT NULL, digest TEXT NOT NULL, vector BLOB NOT NULL,"
                " PRIMARY KEY (embedder, digest)) WITHOUT ROWID"
            )

    def get(self, embedder: str, digests: Iterable[str]) -> dict[str, np.ndarray]:
        wanted = list(dict.fromkeys(digests))
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                part = wanted[start : start + 500]
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT digest, vector FROM vectors WHERE embedder = ? AND digest IN ({marks})",
                    (embedder, *part),
                )
                for digest, blob in rows:
                    found[digest] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put(self, embedder: str, vectors: Mapping[str, np.ndarray]) -> None:
        rows = [
            (embedder, digest, np.asarray(vector, dtype=np.float32).tobytes())
            for digest, vector in vectors.items()
        ]
        with self._lock, self._db:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)

    def keep_only(self, embedder: str, digests: set[str]) -> int:
        """Forget this embedder's vectors for texts no longer in the vault; returns how many."""
        with self._lock:
            stored = [
                row[0]
                for row in self._db.execute(
                    "SELECT digest FROM vectors WHERE embedder = ?", (embedder,)
                )
            ]
            gone = [(embedder, digest) for digest in stored if digest not in digests]
            with self._db:
                self._db.executemany("DELETE FROM vectors WHERE embedder = ? AND digest = ?", gone)
        return len(gone)

    def close(self) -> None:
        with self._lock:
            self._db.close()
