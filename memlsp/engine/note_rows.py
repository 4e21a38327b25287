"""Keeps the note table (index/note_table.py) in step with the manifest: each time the writer
saves the manifest, the rows of what changed since the last save, found by identity (an edit
replaces what it changes), or every row when the table cannot vouch for the manifest before."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from memlsp.index.manifest import FileRecord
from memlsp.index.note_table import Changes, FileRow, NoteTable, files_digest, stamp_of
from memlsp.vault.link_graph import LinkGraph

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _State:
    """What one save of the manifest saved."""

    stamp: str
    graph: LinkGraph  # frozen: its table's files are the attachments saved
    records: dict[str, FileRecord]


class SavedRows:
    """Writes the rows on a thread of its own, since writing every row takes seconds at 50,000
    notes and the writer must go on meanwhile; `close` waits for what is queued."""

    def __init__(
        self, table: NoteTable, fingerprint: str, pause: Callable[[], object] | None = None
    ) -> None:
        self.table = table
        self.fingerprint = fingerprint
        self._pause = pause  # between slices of rows: a server's requests go first
        # What the table holds rows of: the graph and records of the last save (None: nothing
        # it can be compared with, so the next save writes every row). The thread's own.
        self._graph: LinkGraph | None = None
        self._records: dict[str, FileRecord] = {}
        self._vouched = False  # the table is, or is being made, that of the manifest
        self._lock = threading.Lock()  # guards the next state to write and the thread
        self._next: _State | None = None
        self._thread: threading.Thread | None = None

    def loaded(self, manifest: Path, graph: LinkGraph, records: Mapping[str, FileRecord]) -> None:
        """The writer opened the manifest at `manifest` as `graph` and `records`: what the
        table holds, if it matches that file."""
        try:
            matches = manifest.exists() and self.table.matches(stamp_of(manifest), self.fingerprint)
        except (OSError, sqlite3.Error):
            matches = False
        if matches:
            self._graph, self._records, self._vouched = graph, dict(records), True

    @property
    def behind(self) -> bool:
        """The table holds no rows it can vouch for: saved whole at the next chance, even if
        the manifest is not (an index made before there was a table)."""
        return not self._vouched

    def save(self, manifest: Path, graph: LinkGraph, records: Mapping[str, FileRecord]) -> None:
        """After `manifest` was saved with this frozen graph and these records: their rows are
        written soon, or those of a later save if one comes first."""
        try:
            stamp = stamp_of(manifest)  # now: a later save changes the file, and the stamp
        except OSError as error:
            log.warning("the note table in %s was not saved: %s", self.table.path, error)
            return
        self._vouched = True
        with self._lock:
            self._next = _State(stamp, graph, dict(records))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="note table", daemon=True)
                self._thread.start()

    def close(self) -> None:
        """Wait for the rows queued to be written, then let the table go."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join()
        self.table.close()

    def _run(self) -> None:
        while True:
            with self._lock:
                state, self._next = self._next, None
                if state is None:
                    self._thread = None
                    return
            self._write(state)

    def _write(self, state: _State) -> None:
        try:
            self.table.save(self._changes(state), self._pause)
        except (OSError, sqlite3.Error) as error:
            log.warning("the note table in %s was not saved: %s", self.table.path, error)
            self.table.forget()
            self._graph, self._vouched = None, False
            return
        self._graph, self._records = state.graph, state.records

    def _changes(self, state: _State) -> Changes:
        graph, records, files = state.graph, state.records, state.graph.table.files
        older = self._graph
        if older is None:
            changed: set[str] | Mapping[str, FileRecord] = records
            targets = {t for t in (*records, *files) if graph.inlink_count(t)}
            names = True
        else:
            sources, targets = graph.changed_since(older)
            changed = {p for p, r in records.items() if self._records.get(p) is not r}
            changed |= sources & records.keys()
            names = graph.table.names_token is not older.table.names_token
        rows = [FileRow(records[path], graph.outlinks(path)) for path in changed]
        return Changes(
            stamp=state.stamp,
            fingerprint=self.fingerprint,
            files=files_digest(
                ((r.path, r.mtime_ns, r.size) for r in records.values()), files - records.keys()
            ),
            everything=older is None,
            rows=rows,
            gone=() if older is None else self._records.keys() - records.keys(),
            links={target: graph.inlink_sources(target) for target in targets},
            names=list(graph.table.rows()) if names else None,
        )
