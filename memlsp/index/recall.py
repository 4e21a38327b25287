"""How often each note was recalled (shown to whoever asked a search) and when last: kept in the
vault's cache folder beside the index (`recall.sqlite3`), never in the vault.

Several processes add to the same counts at once: an editor's language server, `memlsp serve`,
a command line answering from the index read-only, an MCP server. SQLite in WAL mode takes that:
each operation opens its own connection (so any thread may call it, with no lock of ours), adds
in one transaction, and waits up to `BUSY_SECONDS` for another writer. That is how a process that
does not write the index hands its counts to the one that does: they share this file.

Counts are keyed by vault-relative path. A note renamed starts again from none under its new path;
a deleted note's row stays (its count is history; `recent --recalled` lists notes that exist).
Recall is never worth failing a search for: a store that cannot be read or written is logged and
answers "never recalled".
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memlsp.model import Recall

log = logging.getLogger(__name__)

RECALL_FILE = "recall.sqlite3"
BUSY_SECONDS = 10.0  # another process's transaction is a few rows: this is a stuck one
_PARAMETERS = 500  # paths per `IN (...)`: well under SQLite's limit on parameters
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS recall ("
    "path TEXT PRIMARY KEY, count INTEGER NOT NULL, last_ns INTEGER NOT NULL) WITHOUT ROWID"
)
_ADD = (
    "INSERT INTO recall (path, count, last_ns) VALUES (?, 1, ?) ON CONFLICT (path) DO UPDATE "
    "SET count = count + 1, last_ns = max(last_ns, excluded.last_ns)"
)


@dataclass(frozen=True, slots=True)
class RecallTotals:
    notes: int = 0  # paths recalled at least once (notes renamed or deleted since included)
    recalls: int = 0  # every count added up
    last_ns: int | None = None  # the latest recall of any note


class RecallStore:
    """The recall counts of one vault, in its cache folder (`cache_dir`)."""

    def __init__(self, cache_dir: Path) -> None:
        self.path = cache_dir / RECALL_FILE

    def record(self, paths: Sequence[str], now_ns: int) -> dict[str, Recall]:
        """Each of `paths` recalled once more at `now_ns` (a path given twice counts once); their
        counts after it, read in the same transaction."""
        unique = list(dict.fromkeys(paths))
        if not unique:
            return {}
        try:
            with self._connection() as connection:
                connection.execute("BEGIN IMMEDIATE")
                connection.executemany(_ADD, [(path, now_ns) for path in unique])
                found = _select(connection, unique)
                connection.execute("COMMIT")
                return found
        except sqlite3.Error as error:
            log.warning("recall counts not written to %s: %s", self.path, error)
            return {}

    def recalls(self, paths: Sequence[str]) -> dict[str, Recall]:
        """The counts of those of `paths` ever recalled."""
        if not paths or not self.path.exists():
            return {}
        try:
            with self._connection() as connection:
                return _select(connection, list(dict.fromkeys(paths)))
        except sqlite3.Error as error:
            log.warning("recall counts not read from %s: %s", self.path, error)
            return {}

    def recalled_since(self, since_ns: int) -> dict[str, Recall]:
        """Every path last recalled at `since_ns` or later."""
        rows = self._rows("SELECT path, count, last_ns FROM recall WHERE last_ns >= ?", since_ns)
        return {path: Recall(count, last) for path, count, last in rows}

    def totals(self) -> RecallTotals:
        rows = self._rows("SELECT count(*), coalesce(sum(count), 0), max(last_ns) FROM recall")
        return RecallTotals(*rows[0]) if rows else RecallTotals()

    def _rows(self, query: str, *values: int) -> list[tuple[Any, ...]]:
        if not self.path.exists():
            return []
        try:
            with self._connection() as connection:
                return list(connection.execute(query, values))
        except sqlite3.Error as error:
            log.warning("recall counts not read from %s: %s", self.path, error)
            return []

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """A connection of its own, in autocommit mode (transactions are begun explicitly)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(
            sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None)
        ) as connection:
            connection.execute("PRAGMA journal_mode=WAL")  # kept in the file once set
            # Counts are worth no fsync per search: WAL stays consistent, a crash of the machine
            # may lose the last few.
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute(_SCHEMA)
            yield connection


def _select(connection: sqlite3.Connection, paths: list[str]) -> dict[str, Recall]:
    found: dict[str, Recall] = {}
    for start in range(0, len(paths), _PARAMETERS):
        part = paths[start : start + _PARAMETERS]
        marks = ",".join("?" * len(part))
        query = f"SELECT path, count, last_ns FROM recall WHERE path IN ({marks})"
        for path, count, last in connection.execute(query, part):
            found[path] = Recall(count, last)
    return found
