"""The one writer of a vault's index: changes go in as batches, and each batch ends by publishing
a new immutable `Snapshot` for readers.

A batch upserts and forgets notes and attachments in the keyword index, the manifest and a
writable copy of the link graph; publishing commits the keyword index once and swaps in a
snapshot of all three. `refresh`, `refresh_paths`, `apply_text` and `release_text` decide what
changed and hand it to a batch, each under the writer's plain lock, taken once. Only the writer
thread writes, so the lock never makes a reader wait: readers take the published snapshot.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType

from memlsp.engine.batch import Batch, Counts, loaded_graph
from memlsp.engine.note_rows import SavedRows
from memlsp.engine.snapshot import EMPTY, Snapshot
from memlsp.index.note_table import FILE_NAME as NOTE_TABLE
from memlsp.index.note_table import NoteTable
from memlsp.index.store import IndexStore
from memlsp.model import IndexSummary, Skipped, printable
from memlsp.queries.mentions import FoundBefore
from memlsp.settings.table import Settings
from memlsp.sync.prepare import PreparedFile, prepare_file, prepare_files, prepare_text
from memlsp.sync.scan import (
    FileStat,
    buffer_problem,
    is_indexable,
    scan_vault,
    stat_path,
    text_digest,
)
from memlsp.vault.link_graph import LinkGraph

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
PUBLISH_EVERY = 1.0  # seconds between snapshots while a progressive refresh goes on


class VaultWriter:
    """Only the vault's writer thread calls it (and `close`, once that thread has stopped); each
    public method takes the lock once, for the whole operation, and readers never take it."""

    def __init__(
        self,
        root: Path,
        settings: Settings,
        store: IndexStore,
        messages: list[str],
        pause: Callable[[], object] | None = None,
    ):
        """`pause`: called now and then by work that can wait (the note table's rows), to let
        what someone waits for go first."""
        self.root = root
        self.settings = settings
        self.store = store
        self._messages = messages
        self._lock = threading.Lock()
        manifest = store.manifest
        saved = manifest.graph
        if isinstance(saved, LinkGraph):
            graph = saved  # saved with these very notes: nothing to resolve again
        else:
            graph = loaded_graph(manifest.records.values(), manifest.files)
        self._revision = 0
        self._manifest_dirty = False
        self._buffers: dict[str, str] = {}  # open editor buffers, which win over the disk
        # Open buffers whose file was deleted or renamed by another program: not notes of the
        # vault until the file exists again (a tab left open must not leave a ghost note).
        self._orphans: set[str] = set()
        # Open buffers whose file has existed since they opened: only those can be orphaned. A
        # note opened in the editor and never saved has no file to lose.
        self._saved: set[str] = set()
        self._symlinks_to: dict[str, set[str]] = {}  # a file -> the notes that are links to it
        self._found_before = FoundBefore()  # unlinked mentions found, for the next revisions
        self.snapshot = self._snapshot(graph.freeze())
        # The manifest row by row, for a process that answers without loading it (lean.py).
        table = NoteTable(store.cache_dir / NOTE_TABLE)
        self._rows = SavedRows(table, manifest.fingerprint, pause)
        if not store.read_only:
            self._rows.loaded(store.manifest_path, self.snapshot.graph, manifest.records)

    # -- batches ----------------------------------------------------------------------------

    @contextmanager
    def _batch(self, *, buffers_changed: bool = False) -> Iterator[Batch]:
        """One unit of change, published once at the end (or at each `publish` before it)."""
        batch = Batch(self.store, self.snapshot.graph, self._buffers, self._publish)
        batch.buffers_changed = buffers_changed
        try:
            yield batch
        finally:
            batch.publish()
            self._manifest_dirty |= batch.manifest_changed

    def _snapshot(self, graph: LinkGraph) -> Snapshot:
        return Snapshot(
            self._revision,
            graph,
            self.store.keyword.reader(),
            MappingProxyType(dict(self.store.manifest.records)),
            MappingProxyType(dict(self._buffers)) if self._buffers else EMPTY,
            self.root,
            self.settings,
            found_before=self._found_before,
        )

    def _publish(self, graph: LinkGraph, uncommitted: set[str]) -> None:
        """Commit the keyword index and hand readers the new revision (a batch's `publish`)."""
        self._revision += 1
        self._manifest_dirty = True
        if uncommitted:
            # Journaled first: if this process dies after the commit, the next one knows these
            # paths' indexed text is not what the saved manifest says.
            self.store.journal.add(uncommitted)
            self.store.keyword.commit()
        self.snapshot = self._snapshot(graph)

    # -- changes ----------------------------------------------------------------------------

    def refresh(
        self,
        progress: Progress | None = None,
        *,
        progressive: bool = False,
        cancel: threading.Event | None = None,
    ) -> IndexSummary:
        """Bring the index up to date with the whole vault: only changed files are read.

        `progressive` (the language server) publishes what is indexed about once a second, so
        requests answer from it meanwhile; otherwise a first index builds the link graph once at
        the end, which is three times faster. Setting `cancel` stops early and keeps what is
        done: the next refresh goes on from there."""
        started = time.perf_counter()
        scan = scan_vault(self.root, self.settings, avoid=(self.store.cache_dir,))
        with self._lock:
            self._symlinks_to = {}
            for link, target in scan.symlinked.items():
                self._symlinks_to.setdefault(target, set()).add(link)
            records = self.store.manifest.records
            deleted = [p for p in records if p not in scan.indexable]
            stale = [s for s in scan.indexable.values() if self._stat_changed(s)]
            stale = [s for s in stale if s.path not in self._buffers]
            bulk = not self.snapshot.graph.notes and not progressive
            with self._batch() as batch:
                published = time.monotonic()
                for done, prepared in enumerate(prepare_files(self.root, self.settings, stale), 1):
                    if cancel is not None and cancel.is_set():
                        deleted = []
                        break
                    batch.upsert(prepared, link=not bulk)
                    if progressive and time.monotonic() - published > PUBLISH_EVERY:
                        batch.publish()
                        published = time.monotonic()
                    if progress is not None and (done % 100 == 0 or done == len(stale)):
                        progress(done, len(stale))
                for path in deleted:
                    batch.forget(path)
                if bulk:
                    batch.relink_all(scan.files)
                else:
                    batch.attachments(scan.files)
                # A scan also sees an open buffer's file come or go (inside a folder moved in or
                # out, or while the watcher was starting over), which no event reported.
                for path in sorted(self._buffers):
                    self._refresh_buffered(path, batch)
            self._save_manifest()
            return self.summary(started, batch.counts, scan.skipped)

    def refresh_paths(self, paths: Iterable[str]) -> IndexSummary:
        """Re-index just these vault-relative paths (changed, added or deleted files, or folders:
        a folder stands for everything known under it, so one moved out of the vault is forgot).
        A path that fails is logged and left as it was; the others still apply."""
        started = time.perf_counter()
        with self._lock:
            counts = self._refresh_paths(paths)
            return self.summary(started, counts, [])

    def _refresh_paths(self, paths: Iterable[str], *, buffers_changed: bool = False) -> Counts:
        given = list(paths)
        reported = set(given)
        with self._batch(buffers_changed=buffers_changed) as batch:
            for path in self._with_contents(given):
                try:
                    self._refresh_path(path, batch, reported=path in reported)
                except Exception:
                    log.exception("%s: could not be indexed", printable(path))
        return batch.counts

    def apply_text(self, path: str, text: str) -> None:
        """Index an editor buffer's text for `path`; it wins over the disk until `release_text`."""
        self.apply_texts({path: text})

    def apply_texts(self, texts: Mapping[str, str]) -> None:
        """`apply_text` for each buffer, in one batch: an editor applying an edit to a thousand
        notes (a rename) sends them at once, and one revision each would cost a thousand."""
        ready = []
        for path, text in texts.items():
            if not is_indexable(path, self.settings):
                continue
            # A client may send lone surrogates (JSON allows "\ud800"): no store can encode them.
            text = _LONE_SURROGATE.sub("\ufffd", text)
            prepared = self._prepared_buffer(path, text)  # pure, and seconds on a huge note
            exists = path not in self._saved and self._stat(path) is not None  # before the lock
            ready.append((path, text, prepared, exists))
        if not ready:
            return
        with self._lock, self._batch(buffers_changed=True) as batch:
            for path, text, prepared, exists in ready:
                record = self.store.manifest.records.get(path)
                if exists or (record is not None and record.mtime_ns != -1):  # indexed from disk
                    self._saved.add(path)
                self._buffers[path] = text
                if path not in self._orphans:  # its file is gone: held for when it is saved again
                    batch.upsert(prepared)

    def release_text(self, path: str) -> None:
        """The buffer closed: the file on disk (or its absence) is the truth again."""
        with self._lock:
            self._orphans.discard(path)
            self._saved.discard(path)
            if self._buffers.pop(path, None) is not None:
                # Published even when the file did not change: readers stop seeing the buffer.
                self._refresh_paths([path], buffers_changed=True)

    def _with_contents(self, paths: Iterable[str]) -> list[str]:
        """`paths`, with the notes that are symlinks to one of them, and each followed by the known
        notes and attachments under it when it is (or was) a folder: the watcher reports a moved
        or deleted folder by its own path only, and an edit by the edited file's own path."""
        given = list(dict.fromkeys(paths))
        given += sorted({link for path in given for link in self._symlinks_to.get(path, ())})
        records, files = self.store.manifest.records, self.snapshot.graph.table.files
        folders = {
            path.rstrip("/")
            for path in given
            if path not in records and path not in files and not (self.root / path).is_file()
        }
        if not folders:
            return given
        known = records.keys() | files | self._orphans
        inside = [p for p in sorted(known) if not folders.isdisjoint(_parents(p))]
        return list(dict.fromkeys(given + inside))

    def _refresh_path(self, path: str, batch: Batch, *, reported: bool = False) -> None:
        if path in self._buffers:
            self._refresh_buffered(path, batch, reported=reported)
            return
        if not is_indexable(path, self.settings):
            batch.attachment(path, (self.root / path).is_file())
            return
        stat = self._stat(path)
        if stat is None:
            batch.forget(path)
        elif self._stat_changed(stat):
            batch.upsert(prepare_file(self.root, self.settings, stat))

    def _refresh_buffered(self, path: str, batch: Batch, *, reported: bool = False) -> None:
        """The file of an open buffer changed on disk: the buffer's text still wins while the
        file exists; once a file it had is gone the path leaves the index, and comes back when it
        returns. A buffer that never had a file stays a note whatever happens around it.

        `reported`: a disk event named this very path, so its file was there at some moment (it
        was created, written, or deleted or moved away), even if it is gone again by now: a file
        written and deleted within one batch of events was still a file the buffer had."""
        exists = self._stat(path) is not None
        if exists or reported:
            self._saved.add(path)
        if not exists and path in self._saved and path not in self._orphans:
            self._orphans.add(path)
            batch.forget(path, orphaned=True)
        elif exists and path in self._orphans:
            self._orphans.discard(path)
            batch.upsert(self._prepared_buffer(path, self._buffers[path]))

    def _prepared_buffer(self, path: str, text: str) -> PreparedFile:
        # An impossible stat: once the buffer is released, the disk version is read again.
        stat = FileStat(path, -1, -1)
        problem = buffer_problem(text)
        if problem is None:
            return prepare_text(self.settings, stat, text)
        return PreparedFile(stat, text_digest(text.encode()), None, (), problem)

    def _stat(self, path: str) -> FileStat | None:
        return stat_path(self.root, path, self.settings)

    def _stat_changed(self, stat: FileStat) -> bool:
        record = self.store.manifest.records.get(stat.path)
        return record is None or (record.mtime_ns, record.size) != (stat.mtime_ns, stat.size)

    # -- saving -----------------------------------------------------------------------------

    def save_manifest(self) -> None:
        """Write the manifest if it changed. Rewriting it takes ~0.3 s at 10k notes, so single-note
        updates leave it to the next full refresh or `close`; a crash in between only means the
        notes changed since (the journal names them) are indexed again on the next start."""
        with self._lock:
            self._save_manifest()

    def _save_manifest(self) -> None:
        """Save the manifest if it changed, then the note table's rows of what changed; the
        table alone when it is older than the manifest (an index made before it had one)."""
        if self.store.read_only:
            return
        path, manifest, graph = self.store.manifest_path, self.store.manifest, self.snapshot.graph
        if self._manifest_dirty:
            manifest.graph = graph
            saved = manifest.save(path)
            if not saved:
                self._rows.table.forget()
            self._manifest_dirty = False
            self.store.journal.clear()
        else:
            saved = self._rows.behind and path.exists()
        if saved:
            self._rows.save(path, graph, manifest.records)

    def close(self) -> None:
        """Waits for a batch operation under way, then saves and lets go of the index."""
        with self._lock:
            self._save_manifest()
            self.store.close()
            self._rows.close()

    def summary(self, started: float, counts: Counts, skipped: list[Skipped]) -> IndexSummary:
        notes = chunks = 0
        skipped_files = list(skipped)
        problems = []
        snapshot = self.snapshot
        for record in snapshot.records.values():
            chunks += len(record.chunk_ids)
            if record.note is None:
                skipped_files.append(Skipped(record.path, record.problem or "skipped"))
                continue
            notes += 1
            if record.problem:
                problems.append(Skipped(record.path, record.problem))
        links = snapshot.graph.counts()
        return IndexSummary(
            notes=notes,
            chunks=chunks,
            links=links["links"],
            unresolved=links["unresolved"],
            ambiguous=links["ambiguous"],
            added=counts.added,
            modified=counts.modified,
            deleted=counts.deleted,
            skipped=tuple(sorted(skipped_files, key=lambda s: s.path)),
            problems=tuple(sorted(problems, key=lambda s: s.path)),
            seconds=time.perf_counter() - started,
            read_only=self.store.read_only,
            messages=tuple(self._messages),
        )


def _parents(path: str) -> Iterator[str]:
    """`a/b/c.md` -> `a`, `a/b`."""
    parts = path.split("/")
    for end in range(1, len(parts)):
        yield "/".join(parts[:end])
