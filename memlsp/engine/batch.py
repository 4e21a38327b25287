"""One batch of changes to a vault's index: notes and attachments upserted and forgot in the
keyword index, the manifest and a writable copy of the link graph, made visible together when
the batch publishes. Only the vault's writer (writer.py) makes batches, under its lock."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from memlsp.index.manifest import FileRecord, gc_paused
from memlsp.index.store import IndexStore
from memlsp.model import printable
from memlsp.sync.prepare import PreparedFile
from memlsp.vault.link_graph import LinkGraph

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Counts:
    added: int = 0
    modified: int = 0
    deleted: int = 0
    files: bool = False  # attachments came or went


class Batch:
    """Changes to the keyword index, the manifest and a writable copy of the link graph, made
    by the writer while it holds its lock; `publish` makes everything done so far visible at
    once. The batch owns what it changes until then: the graph, the paths not yet committed."""

    def __init__(
        self,
        store: IndexStore,
        graph: LinkGraph,
        buffers: Mapping[str, str],
        publish: Callable[[LinkGraph, set[str]], None],
    ) -> None:
        self._store = store
        self._base = graph  # frozen: the graph last published
        self._graph: LinkGraph | None = None  # writable, once changed (`_edited`)
        self._buffers = buffers  # the writer's open buffers: they win over the disk
        self._publish = publish
        self._uncommitted: set[str] = set()  # changed in the keyword index since its last commit
        self.counts = Counts()
        self.buffers_changed = False  # the open buffers changed: readers must see it
        self.manifest_changed = False  # a record changed that no publish will save
        self._published = (0, 0, 0, False)  # the counts last made visible

    def _key(self) -> tuple[int, int, int, bool]:
        c = self.counts
        return (c.added, c.modified, c.deleted, c.files)

    def publish(self) -> None:
        """Make everything done so far visible."""
        if self._key() == self._published and not self.buffers_changed:
            return
        self._published = self._key()
        self.buffers_changed = False
        graph = self._base if self._graph is None else self._graph.freeze()
        self._publish(graph, self._uncommitted)
        self._uncommitted = set()
        self._base, self._graph = graph, None

    def _current(self) -> LinkGraph:
        return self._base if self._graph is None else self._graph

    def _edited(self) -> LinkGraph:
        """The graph to change, copied from the published one on the batch's first change to it
        since it last published: a copy costs O(notes), which a batch that changes no link (a
        file touched, a rescan that finds nothing) must not pay."""
        if self._graph is None:
            self._graph = self._base.edited()
        return self._graph

    def upsert(self, prepared: PreparedFile, *, link: bool = True) -> None:
        """A note's (or a skipped file's) new state. An open buffer wins over the disk: a file
        read while its buffer opened is left out."""
        stat = prepared.stat
        if stat.mtime_ns != -1 and stat.path in self._buffers:
            return
        records = self._store.manifest.records
        record = records.get(stat.path)
        if record and prepared.digest and record.digest == prepared.digest:
            # Touched, not changed: nothing to publish, but the new stat is worth saving,
            # or every start reads the file again to find it unchanged.
            records[stat.path] = replace(record, mtime_ns=stat.mtime_ns, size=stat.size)
            self.manifest_changed = True
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
            keyword = self._store.keyword
            if not keyword.read_only:
                self._uncommitted.add(stat.path)
                keyword.replace_note(stat.path, list(prepared.documents))
            if link:
                self._edited().upsert(note)
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

    def forget(self, path: str, *, orphaned: bool = False) -> None:
        """The file is gone. An open buffer wins, unless it is `orphaned` (its file went)."""
        if path in self._buffers and not orphaned:
            return
        if self._store.manifest.records.pop(path, None) is not None:
            self.counts.deleted += 1
            self._drop(path)

    def _drop(self, path: str) -> None:
        if not self._store.keyword.read_only:
            self._uncommitted.add(path)
            self._store.keyword.delete_note(path)
        self._edited().remove(path)

    def attachment(self, path: str, exists: bool) -> None:
        """A file that is not a note came, went or changed."""
        known = path in self._current().table.files
        if exists and not known:
            self._edited().add_file(path)
        elif known and not exists:
            self._edited().remove(path)
        else:
            return
        self.counts.files = True

    def attachments(self, files: list[str]) -> None:
        """The vault's attachments are exactly `files`."""
        current = set(files)
        known = self._current().table.files - self._store.manifest.records.keys()
        for path in sorted(known - current):
            self._edited().remove(path)
        for path in sorted(current - known):
            self._edited().add_file(path)
        self._store.manifest.files = tuple(files)
        self.counts.files |= known != current

    def relink_all(self, files: list[str]) -> None:
        """Resolve every link once, after a first index upserted notes without linking them."""
        manifest = self._store.manifest
        manifest.files = tuple(files)
        self._graph = loaded_graph(manifest.records.values(), files)
        self.counts.files = True


def loaded_graph(records: Iterable[FileRecord], files: Iterable[str]) -> LinkGraph:
    graph = LinkGraph()
    with gc_paused():
        graph.load((r.note for r in records if r.note is not None), files)
    return graph
