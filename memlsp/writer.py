"""The one writer of a vault's index: changes go in as batches, and each batch ends by publishing
a new immutable `Snapshot` for readers.

A batch (`with writer.batch() as batch:`) upserts and forgets notes and attachments in the keyword
index, the manifest and a writable copy of the link graph; publishing commits the keyword index
once and swaps in a snapshot of all three. `refresh`, `refresh_paths`, `apply_text` and
`release_text` decide what changed and hand it to a batch. Files are read before a change is
applied, never while the writer's lock is held.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from memlsp.config import Settings
from memlsp.index.manifest import FileRecord, gc_paused
from memlsp.index.store import IndexStore
from memlsp.model import IndexSummary, Skipped, printable
from memlsp.snapshot import EMPTY, Snapshot
from memlsp.sync.prepare import PreparedFile, prepare_file, prepare_files, prepare_text
from memlsp.sync.scan import (
    FileStat,
    buffer_problem,
    is_indexable,
    scan_vault,
    stat_path,
    text_digest,
)
from memlsp.vault.graph import LinkGraph

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
PUBLISH_EVERY = 1.0  # seconds between snapshots while a progressive refresh goes on


@dataclass(slots=True)
class _Counts:
    added: int = 0
    modified: int = 0
    deleted: int = 0
    files: bool = False  # attachments came or went


class VaultWriter:
    def __init__(self, root: Path, settings: Settings, store: IndexStore, messages: list[str]):
        self.root = root
        self.settings = settings
        self.store = store
        self._messages = messages
        self._lock = threading.RLock()  # one batch operation at a time; readers never take it
        manifest = store.manifest
        saved = manifest.graph
        if isinstance(saved, LinkGraph):
            graph = saved  # saved with these very notes: nothing to resolve again
        else:
            graph = _loaded(manifest.records.values(), manifest.files)
        self._revision = 0
        self._uncommitted: set[str] = set()  # changed in the keyword index since its last commit
        self._manifest_dirty = False
        self.buffers: dict[str, str] = {}  # open editor buffers, which win over the disk
        self._buffers_changed = False  # since the last snapshot
        # Open buffers whose file was deleted or renamed by another program: not notes of the
        # vault until the file exists again (a tab left open must not leave a ghost note).
        self._orphans: set[str] = set()
        self._symlinks_to: dict[str, set[str]] = {}  # a file -> the notes that are links to it
        self.snapshot = self._snapshot(graph.freeze())
        self._graph = graph.edited()

    # -- batches ----------------------------------------------------------------------------

    @contextmanager
    def batch(self) -> Iterator[Batch]:
        """One unit of change, published once at the end (or at each `publish` before it)."""
        batch = Batch(self)
        try:
            yield batch
        finally:
            batch.publish()

    def _snapshot(self, graph: LinkGraph) -> Snapshot:
        return Snapshot(
            self._revision,
            graph,
            self.store.keyword.reader(),
            MappingProxyType(dict(self.store.manifest.records)),
            MappingProxyType(dict(self.buffers)) if self.buffers else EMPTY,
            self.root,
            self.settings,
        )

    def _publish(self) -> None:
        """Commit the keyword index and hand readers the new revision."""
        self._revision += 1
        self._manifest_dirty = True
        self._buffers_changed = False
        if self._uncommitted:
            # Journaled first: if this process dies after the commit, the next one knows these
            # paths' indexed text is not what the saved manifest says.
            self.store.journal.add(self._uncommitted)
            self._uncommitted.clear()
            self.store.keyword.commit()
        graph = self._graph.freeze()
        self.snapshot = self._snapshot(graph)
        self._graph = graph.edited()

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
            stale = [s for s in stale if s.path not in self.buffers]
            bulk = not self._graph.notes and not progressive
        with self.batch() as batch:
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
            for path in sorted(self._orphans & scan.indexable.keys()):  # saved again meanwhile
                self._refresh_buffered(path, batch)
        self.save_manifest()
        return self.summary(started, batch.counts, scan.skipped)

    def refresh_paths(self, paths: Iterable[str]) -> IndexSummary:
        """Re-index just these vault-relative paths (changed, added or deleted files, or folders:
        a folder stands for everything known under it, so one moved out of the vault is forgot).
        A path that fails is logged and left as it was; the others still apply."""
        started = time.perf_counter()
        with self._lock:
            paths = self._with_contents(paths)
        with self.batch() as batch:
            for path in paths:
                try:
                    self._refresh_path(path, batch)
                except Exception:
                    log.exception("%s: could not be indexed", printable(path))
        return self.summary(started, batch.counts, [])

    def apply_text(self, path: str, text: str) -> None:
        """Index an editor buffer's text for `path`; it wins over the disk until `release_text`."""
        if not is_indexable(path, self.settings):
            return
        # A client may send lone surrogates (JSON allows "\ud800"): no store can encode them.
        text = _LONE_SURROGATE.sub("\ufffd", text)
        prepared = self._prepared_buffer(path, text)  # pure, and seconds on a huge note
        with self._lock, self.batch() as batch:
            self.buffers[path] = text
            self._buffers_changed = True
            if path not in self._orphans:  # its file is gone: held for when it is saved again
                batch.upsert(prepared)

    def release_text(self, path: str) -> None:
        """The buffer closed: the file on disk (or its absence) is the truth again."""
        with self._lock:
            self._orphans.discard(path)
            held = self.buffers.pop(path, None) is not None
            self._buffers_changed |= held
        if held:
            self.refresh_paths([path])  # reads the file: outside the lock

    def _with_contents(self, paths: Iterable[str]) -> list[str]:
        """`paths`, with the notes that are symlinks to one of them, and each followed by the known
        notes and attachments under it when it is (or was) a folder: the watcher reports a moved
        or deleted folder by its own path only, and an edit by the edited file's own path."""
        given = list(dict.fromkeys(paths))
        given += sorted({link for path in given for link in self._symlinks_to.get(path, ())})
        records, files = self.store.manifest.records, self._graph.table.files
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

    def _refresh_path(self, path: str, batch: Batch) -> None:
        if path in self.buffers:
            self._refresh_buffered(path, batch)
            return
        if not is_indexable(path, self.settings):
            batch.attachment(path)
            return
        stat = self._stat(path)
        if stat is None:
            batch.forget(path)
        elif self._stat_changed(stat):
            batch.upsert(prepare_file(self.root, self.settings, stat))

    def _refresh_buffered(self, path: str, batch: Batch) -> None:
        """The file of an open buffer changed on disk: the buffer's text still wins while the
        file exists; once it is gone the path leaves the index, and comes back when it returns."""
        exists = self._stat(path) is not None
        if not exists and path not in self._orphans:
            self._orphans.add(path)
            batch.forget(path)
        elif exists and path in self._orphans:
            self._orphans.discard(path)
            batch.upsert(self._prepared_buffer(path, self.buffers[path]))

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
            if not self._manifest_dirty or self.store.read_only:
                return
            manifest = self.store.manifest
            manifest.graph = self.snapshot.graph
            manifest.save(self.store.manifest_path)
            self._manifest_dirty = False
            self.store.journal.clear()

    def close(self) -> None:
        """Waits for a batch operation under way, then saves and lets go of the index."""
        with self._lock:
            self.save_manifest()
            self.store.close()

    def open_buffers(self) -> dict[str, str]:
        with self._lock:
            return dict(self.buffers)

    def summary(self, started: float, counts: _Counts, skipped: list[Skipped]) -> IndexSummary:
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


class Batch:
    """Changes to the index, the manifest and the link graph, each taken whole under the
    writer's lock; `publish` makes everything done so far visible at once."""

    def __init__(self, writer: VaultWriter) -> None:
        self._writer = writer
        self.counts = _Counts()
        self._published = (0, 0, 0, False)  # the counts last made visible

    def _key(self) -> tuple[int, int, int, bool]:
        c = self.counts
        return (c.added, c.modified, c.deleted, c.files)

    def publish(self) -> None:
        with self._writer._lock:
            if self._key() == self._published and not self._writer._buffers_changed:
                return
            self._published = self._key()
            self._writer._publish()

    def upsert(self, prepared: PreparedFile, *, link: bool = True) -> None:
        """A note's (or a skipped file's) new state. An open buffer wins over the disk: a file
        read while its buffer opened is left out."""
        writer = self._writer
        stat = prepared.stat
        with writer._lock:
            if stat.mtime_ns != -1 and stat.path in writer.buffers:
                return
            records = writer.store.manifest.records
            record = records.get(stat.path)
            if record and prepared.digest and record.digest == prepared.digest:
                # Touched, not changed: nothing to publish, but the new stat is worth saving,
                # or every start reads the file again to find it unchanged.
                records[stat.path] = replace(record, mtime_ns=stat.mtime_ns, size=stat.size)
                writer._manifest_dirty = True
                return
            if record is None:
                self.counts.added += 1
            else:
                self.counts.modified += 1
            note = prepared.note
            if note is None:
                log.warning("%s: %s", printable(stat.path), printable(prepared.problem or ""))
                self._drop(stat.path)
            else:
                keyword = writer.store.keyword
                if not keyword.read_only:
                    writer._uncommitted.add(stat.path)
                    keyword.replace_note(stat.path, list(prepared.documents))
                if link:
                    writer._graph.upsert(note)
            chunk_ids = tuple(doc.chunk.id for doc in prepared.documents)
            records[stat.path] = FileRecord(
                stat.path,
                stat.mtime_ns,
                stat.size,
                prepared.digest,
                note,
                chunk_ids,
                prepared.problem,
            )

    def forget(self, path: str) -> None:
        writer = self._writer
        with writer._lock:
            if path in writer.buffers and path not in writer._orphans:
                return  # the open buffer wins
            if writer.store.manifest.records.pop(path, None) is not None:
                self.counts.deleted += 1
                self._drop(path)

    def _drop(self, path: str) -> None:
        writer = self._writer
        if not writer.store.keyword.read_only:
            writer._uncommitted.add(path)
            writer.store.keyword.delete_note(path)
        writer._graph.remove(path)

    def attachment(self, path: str) -> None:
        """A file that is not a note came, went or changed."""
        writer = self._writer
        with writer._lock:
            graph = writer._graph
            exists = (writer.root / path).is_file()
            known = path in graph.table.files
            if exists and not known:
                graph.add_file(path)
            elif known and not exists:
                graph.remove(path)
            else:
                return
            self.counts.files = True

    def attachments(self, files: list[str]) -> None:
        """The vault's attachments are exactly `files`."""
        writer = self._writer
        with writer._lock:
            graph = writer._graph
            current = set(files)
            known = graph.table.files - writer.store.manifest.records.keys()
            for path in sorted(known - current):
                graph.remove(path)
            for path in sorted(current - known):
                graph.add_file(path)
            writer.store.manifest.files = tuple(files)
            self.counts.files |= known != current

    def relink_all(self, files: list[str]) -> None:
        """Resolve every link once, after a first index upserted notes without linking them."""
        writer = self._writer
        with writer._lock:
            manifest = writer.store.manifest
            manifest.files = tuple(files)
            writer._graph = _loaded(manifest.records.values(), files)
            self.counts.files = True


def _loaded(records: Iterable[FileRecord], files: Iterable[str]) -> LinkGraph:
    graph = LinkGraph()
    with gc_paused():
        graph.load((r.note for r in records if r.note is not None), files)
    return graph


def _parents(path: str) -> Iterator[str]:
    """`a/b/c.md` -> `a`, `a/b`."""
    parts = path.split("/")
    for end in range(1, len(parts)):
        yield "/".join(parts[:end])
