"""The facade over everything below it: open a vault, bring the index up to date, answer questions.

One writer: `refresh` and `refresh_paths` change the state; `search`, `links` and the other queries
only read it. The vault is only ever read; everything written goes to the per-vault cache folder.
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

from memlsp.config import Settings, cache_dir_for
from memlsp.embed.base import Embedder
from memlsp.index.journal import ChangeJournal
from memlsp.index.keyword import FORMAT_VERSION as KEYWORD_FORMAT
from memlsp.index.keyword import IndexUnavailable, KeywordIndex
from memlsp.index.manifest import FileRecord, Manifest, gc_paused
from memlsp.index.semantic import VectorSide, VectorStatus
from memlsp.index.writer_lock import WriterLock
from memlsp.model import (
    IndexSummary,
    LinkStatus,
    ResolvedLink,
    SearchRequest,
    SearchResponse,
    Skipped,
    printable,
)
from memlsp.search import hybrid
from memlsp.sync.prepare import PreparedFile, prepare_file, prepare_files, prepare_text
from memlsp.sync.scan import (
    FileStat,
    buffer_problem,
    is_indexable,
    read_text,
    scan_vault,
    stat_path,
    text_digest,
)
from memlsp.vault.graph import LinkGraph
from memlsp.vault.names import name_key
from memlsp.vault.view import VaultView

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
_READ_ONLY = (
    "another memlsp process is updating this vault's index; "
    "answering read-only from the index as it is"
)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_LATIN_WORD = re.compile("[A-Za-z]+")
Wait = Callable[[float], bool]  # wait this many seconds; False: stop waiting
PARSER_VERSION = 2


@dataclass(frozen=True, slots=True)
class NoteLinks:
    path: str
    outlinks: tuple[ResolvedLink, ...]
    inlinks: tuple[ResolvedLink, ...]

    @property
    def unresolved(self) -> tuple[ResolvedLink, ...]:
        bad = (LinkStatus.UNRESOLVED, LinkStatus.OUTSIDE)
        return tuple(item for item in self.outlinks if item.resolution.status in bad)

    @property
    def ambiguous(self) -> tuple[ResolvedLink, ...]:
        return tuple(i for i in self.outlinks if i.resolution.status is LinkStatus.AMBIGUOUS)


@dataclass(slots=True)
class _Changes:
    added: int = 0
    modified: int = 0
    deleted: int = 0
    files: bool = False  # attachments came or went
    published: tuple[int, int, int, bool] = (0, 0, 0, False)  # the counts last made visible


class Engine:
    def __init__(
        self,
        root: Path,
        settings: Settings,
        embedder: Embedder | None = None,
        *,
        wait: Wait | None = None,
    ) -> None:
        self.root = root
        self.settings = settings
        self.messages: list[str] = []  # what a user should know about this index, said once
        self.cache_dir = cache_dir_for(root, settings, tell=self._tell)  # never inside the vault
        self._manifest_path = self.cache_dir / "manifest.pickle"
        self._writer_lock = WriterLock(self.cache_dir / "writer.lock")
        self._journal = ChangeJournal(self.cache_dir / "unsaved.jsonl")
        self._uncommitted: set[str] = set()  # changed in the keyword index since its last commit
        self.keyword, self.manifest = self._open_index(wait or _sleep)
        saved = self.manifest.graph
        if isinstance(saved, LinkGraph):
            self.graph = saved  # saved with these very notes: nothing to resolve again
        else:
            self.graph = LinkGraph()
            with gc_paused():
                notes = (r.note for r in self.manifest.records.values() if r.note is not None)
                self.graph.load(notes, self.manifest.files)
        self.revision = 0
        self._manifest_dirty = False
        self.buffers: dict[str, str] = {}  # open editor buffers, which win over the disk
        # Open buffers whose file was deleted or renamed by another program: not notes of the
        # vault until the file exists again (a tab left open must not leave a ghost note).
        self._orphans: set[str] = set()
        self._symlinks_to: dict[str, set[str]] = {}  # a file -> the notes that are links to it
        # Vectors: connected and filled by memlsp.backfill, from a background thread or the CLI.
        self.vectors = VectorSide(settings, root, self.cache_dir, embedder)
        self._planned_revision = -1
        self._connect_on_search = True  # see `open`
        # One writer at a time; readers (requests) take it too, briefly. Writers hold it per file.
        self.lock = threading.RLock()

    def _tell(self, message: str) -> None:
        log.warning("%s", message)
        self.messages.append(message)

    @classmethod
    def open(
        cls,
        root: Path,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        *,
        wait: Wait | None = None,
        connect_on_search: bool = True,
    ) -> Engine:
        """Open the vault's index: as its writer, or read-only while another process writes it.

        `connect_on_search`: whether a search may load the models and open the vector store
        itself (the CLI's one-shot searches); the language server connects them on its embedding
        thread instead, so no request waits for a model.

        While another process is still building a first index there is nothing to read: `wait`
        is called with a number of seconds between looks, and opening gives up with
        `IndexUnavailable` when it returns False (the default sleeps and goes on waiting)."""
        if not root.is_dir():
            raise FileNotFoundError(f"vault folder not found: {root}")
        engine = cls(root, settings or Settings(), embedder, wait=wait)
        engine._connect_on_search = connect_on_search
        return engine

    def _open_index(self, wait: Wait) -> tuple[KeywordIndex, Manifest]:
        said = False
        while True:
            if self._writer_lock.acquire():
                return self._open_writable()
            opened = self._open_read_only()
            if opened is not None:
                self._tell(_READ_ONLY)
                return opened
            if not said:
                log.warning("another memlsp process is building this vault's index; waiting")
                said = True
            if not wait(0.2):
                raise IndexUnavailable("another memlsp process is building this vault's index")

    def _open_writable(self) -> tuple[KeywordIndex, Manifest]:
        keyword = KeywordIndex(self.cache_dir / "keyword")
        manifest, reason = Manifest.load(self._manifest_path, self._fingerprint())
        if keyword.read_only:  # a process that does not take our lock (an older memlsp)
            self._tell(_READ_ONLY)
            return keyword, manifest
        if keyword.rebuilt_reason:
            manifest = Manifest(self._fingerprint())
            self._tell(f"keyword index {keyword.rebuilt_reason}; rebuilt from the vault")
            self._journal.clear()
        elif reason:
            self._tell(f"{reason}; re-indexed the vault")
            keyword.clear()
            self._journal.clear()
        else:
            manifest = self._recover(keyword, manifest)
        return keyword, manifest

    def _open_read_only(self) -> tuple[KeywordIndex, Manifest] | None:
        """The index as the writer left it, once it has one; None while it is building it."""
        if not self._manifest_path.exists():
            return None
        try:
            keyword = KeywordIndex(self.cache_dir / "keyword", writable=False)
        except IndexUnavailable:
            return None
        manifest, reason = Manifest.load(self._manifest_path, self._fingerprint())
        if reason:
            # Written by a writer with other indexing settings (or an older format): waiting
            # would never end. The notes and links are read from the vault by the next refresh.
            self._tell(f"{reason}; notes and links read from the vault")
            manifest = Manifest(self._fingerprint())
        return keyword, manifest

    def _recover(self, keyword: KeywordIndex, manifest: Manifest) -> Manifest:
        """Undo what a process that died left in the index beyond its last manifest: each path
        it journaled is read again from the disk, or forgotten when the manifest never had it."""
        paths = self._journal.read()
        if paths is None:
            self._tell("the index cannot tell what changed before memlsp stopped; re-indexed")
            keyword.clear()
            self._journal.clear()
            return Manifest(self._fingerprint())
        if not paths:
            return manifest
        if not manifest.records:  # a first index that never finished: start it again
            keyword.clear()
            keyword.commit()
            return manifest
        for path in paths:
            record = manifest.records.get(path)
            if record is not None:
                # An impossible stat and no digest: the next refresh reads and indexes it again.
                manifest.records[path] = replace(record, mtime_ns=-1, size=-1, digest="")
            else:
                keyword.delete_note(path)
        keyword.commit()
        log.info("%d files changed after the index was last saved; checking them again", len(paths))
        return manifest

    @property
    def read_only(self) -> bool:
        """Another process writes this vault's index; this one answers from it as it is."""
        return self.keyword.read_only

    def writer_available(self) -> bool:
        """Whether the process that wrote the index has gone, so this one could write it."""
        if not self.read_only:
            return False
        probe = WriterLock(self._writer_lock.path)
        free = probe.acquire()
        probe.release()
        return free

    def _fingerprint(self) -> str:
        s = self.settings
        return (
            f"parser={PARSER_VERSION};keyword={KEYWORD_FORMAT};cap={s.max_chunk_tokens};"
            f"max={s.max_file_bytes};suffixes={s.note_suffixes + s.record_suffixes}"
        )

    # -- writing ------------------------------------------------------------------------------

    def refresh(
        self,
        progress: Progress | None = None,
        *,
        progressive: bool = False,
        cancel: threading.Event | None = None,
    ) -> IndexSummary:
        """Bring the index up to date with the whole vault: only changed files are read.

        `progressive` (the language server) holds the lock one file at a time and publishes
        what is indexed about once a second, so requests answer from it meanwhile; otherwise a
        first index builds the link graph once at the end, which is three times faster.
        Setting `cancel` stops early and keeps what is done: the next refresh goes on from there.
        """
        started = time.perf_counter()
        scan = scan_vault(self.root, self.settings, avoid=(self.cache_dir,))
        with self.lock:
            self._symlinks_to = {}
            for link, target in scan.symlinked.items():
                self._symlinks_to.setdefault(target, set()).add(link)
            changes = _Changes()
            deleted = [p for p in self.manifest.records if p not in scan.indexable]
            stale = [s for s in scan.indexable.values() if self._stat_changed(s)]
            stale = [s for s in stale if s.path not in self.buffers]
            bulk = not self.graph.notes and not progressive
        published = time.monotonic()
        for done, prepared in enumerate(prepare_files(self.root, self.settings, stale), 1):
            if cancel is not None and cancel.is_set():
                deleted = []
                break
            with self.lock:
                if prepared.stat.path not in self.buffers:  # the open buffer wins
                    self._apply(prepared, changes, link=not bulk)
                if progressive and time.monotonic() - published > 1.0:
                    self._publish(changes)
                    published = time.monotonic()
            if progress is not None and (done % 100 == 0 or done == len(stale)):
                progress(done, len(stale))
        with self.lock:
            for path in deleted:
                if path not in self.buffers:
                    self._forget(path, changes)
            if bulk:
                self.graph = LinkGraph()
                with gc_paused():
                    notes = (r.note for r in self.manifest.records.values() if r.note is not None)
                    self.graph.load(notes, scan.files)
            else:
                changes.files = self._sync_files(scan.files)
            for path in sorted(self._orphans & scan.indexable.keys()):  # saved again meanwhile
                self._refresh_buffered(path, changes)
            self._commit(changes, files=tuple(scan.files))
            self.save_manifest()
            return self._summary(started, changes, scan.skipped)

    def refresh_paths(self, paths: Iterable[str]) -> IndexSummary:
        """Re-index just these vault-relative paths (changed, added or deleted files, or folders:
        a folder stands for everything known under it, so one moved out of the vault is forgot).
        A path that fails is logged and left as it was; the others still apply."""
        started = time.perf_counter()
        with self.lock:
            changes = _Changes()
            for path in self._with_contents(paths):
                try:
                    self._refresh_path(path, changes)
                except Exception:
                    log.exception("%s: could not be indexed", printable(path))
            self._commit(changes)
            return self._summary(started, changes, [])

    def _with_contents(self, paths: Iterable[str]) -> list[str]:
        """`paths`, with the notes that are symlinks to one of them, and each followed by the known
        notes and attachments under it when it is (or was) a folder: the watcher reports a moved
        or deleted folder by its own path only, and an edit by the edited file's own path."""
        given = list(dict.fromkeys(paths))
        given += sorted({link for path in given for link in self._symlinks_to.get(path, ())})
        records, files = self.manifest.records, self.graph.table.files
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

    def _refresh_path(self, path: str, changes: _Changes) -> None:
        if path in self.buffers:
            self._refresh_buffered(path, changes)
            return
        if not is_indexable(path, self.settings):
            changes.files |= self._refresh_attachment(path)
            return
        stat = self._stat(path)
        if stat is None:
            self._forget(path, changes)
        elif self._stat_changed(stat):
            self._apply(prepare_file(self.root, self.settings, stat), changes)

    def _refresh_buffered(self, path: str, changes: _Changes) -> None:
        """The file of an open buffer changed on disk: the buffer's text still wins while the
        file exists; once it is gone the path leaves the index, and comes back when it returns."""
        exists = self._stat(path) is not None
        if not exists and path not in self._orphans:
            self._orphans.add(path)
            self._forget(path, changes)
        elif exists and path in self._orphans:
            self._orphans.discard(path)
            self._apply(self._prepared_buffer(path, self.buffers[path]), changes)

    def _prepared_buffer(self, path: str, text: str) -> PreparedFile:
        # An impossible stat: once the buffer is released, the disk version is read again.
        stat = FileStat(path, -1, -1)
        problem = buffer_problem(text)
        if problem is None:
            return prepare_text(self.settings, stat, text)
        return PreparedFile(stat, text_digest(text.encode()), None, (), problem)

    def apply_text(self, path: str, text: str) -> None:
        """Index an editor buffer's text for `path`; it wins over the disk until `release_text`."""
        if not is_indexable(path, self.settings):
            return
        # A client may send lone surrogates (JSON allows "\ud800"): no store can encode them.
        text = _LONE_SURROGATE.sub("\ufffd", text)
        # Parsing is pure and can take seconds on a huge note: requests need not wait for it.
        prepared = self._prepared_buffer(path, text)
        with self.lock:
            self.buffers[path] = text
            if path in self._orphans:
                return  # its file is gone: held for when it is saved again, not indexed
            changes = _Changes()
            self._apply(prepared, changes)
            self._commit(changes)

    def release_text(self, path: str) -> None:
        """The buffer closed: the file on disk (or its absence) is the truth again."""
        with self.lock:
            self._orphans.discard(path)
            if self.buffers.pop(path, None) is not None:
                self.refresh_paths([path])

    def _refresh_attachment(self, path: str) -> bool:
        exists = (self.root / path).is_file()
        known = path in self.graph.table.files
        if exists and not known:
            self.graph.add_file(path)
        elif known and not exists:
            self.graph.remove(path)
        else:
            return False
        return True

    def _stat(self, path: str) -> FileStat | None:
        return stat_path(self.root, path, self.settings)

    def _stat_changed(self, stat: FileStat) -> bool:
        record = self.manifest.records.get(stat.path)
        return record is None or (record.mtime_ns, record.size) != (stat.mtime_ns, stat.size)

    def _apply(self, prepared: PreparedFile, changes: _Changes, *, link: bool = True) -> None:
        stat = prepared.stat
        record = self.manifest.records.get(stat.path)
        if record and prepared.digest and record.digest == prepared.digest:
            self.manifest.records[stat.path] = _restat(record, stat)
            return
        if record is None:
            changes.added += 1
        else:
            changes.modified += 1
        note = prepared.note
        if note is None:
            log.warning("%s: %s", printable(stat.path), printable(prepared.problem or ""))
            self._drop_from_index(stat.path)
        else:
            if not self.keyword.read_only:
                self._uncommitted.add(stat.path)
                self.keyword.replace_note(stat.path, list(prepared.documents))
            if link:
                self.graph.upsert(note)
        chunk_ids = tuple(doc.chunk.id for doc in prepared.documents)
        self.manifest.records[stat.path] = FileRecord(
            stat.path, stat.mtime_ns, stat.size, prepared.digest, note, chunk_ids, prepared.problem
        )

    def _drop_from_index(self, path: str) -> None:
        if not self.keyword.read_only:
            self._uncommitted.add(path)
            self.keyword.delete_note(path)
        self.graph.remove(path)

    def _forget(self, path: str, changes: _Changes) -> None:
        if self.manifest.records.pop(path, None) is not None:
            changes.deleted += 1
            self._drop_from_index(path)

    def _commit(self, changes: _Changes, files: tuple[str, ...] | None = None) -> None:
        """Make changes visible to searches; the manifest follows in `save_manifest`."""
        if files is not None:
            self.manifest.files = files
        self._publish(changes)

    def _publish(self, changes: _Changes) -> None:
        if not (changes.added or changes.modified or changes.deleted or changes.files):
            return
        if changes.published == (changes.added, changes.modified, changes.deleted, changes.files):
            return
        changes.published = (changes.added, changes.modified, changes.deleted, changes.files)
        self.revision += 1
        self._manifest_dirty = True
        if self._uncommitted:
            # Journaled first: if this process dies after the commit, the next one knows these
            # paths' indexed text is not what the saved manifest says.
            self._journal.add(self._uncommitted)
            self._uncommitted.clear()
            self.keyword.commit()

    def save_manifest(self) -> None:
        """Write the manifest if it changed. Rewriting it takes ~0.3 s at 10k notes, so single-note
        updates leave it to the next full refresh or `close`; a crash in between only means the
        notes changed since (the journal names them) are indexed again on the next start."""
        if not self._manifest_dirty or self.keyword.read_only:
            return
        self.manifest.graph = self.graph
        self.manifest.save(self._manifest_path)
        self._manifest_dirty = False
        self._journal.clear()

    def _sync_files(self, files: list[str]) -> bool:
        """Bring the graph's attachments in line with the scan; True if any came or went."""
        current = set(files)
        known = self.graph.table.files - self.manifest.records.keys()
        for path in sorted(known - current):
            self.graph.remove(path)
        for path in sorted(current - known):
            self.graph.add_file(path)
        return known != current

    def plan_vectors(self) -> bool:
        """Connect the vector side and plan which chunks lack a vector (when the vault changed
        since the last plan); False when the side cannot run now. memlsp.backfill drives this."""
        side = self.vectors
        if self.keyword.read_only or not side.connect():
            return False
        with self.lock:
            plan = None
            if self._planned_revision != self.revision or side.needs_plan:
                plan = self._vector_plan()
                self._planned_revision = self.revision
        if plan is not None:
            side.reconcile(*plan)
        return side.ready

    def embed_step(self, limit: int) -> int:
        """Plan if needed, then give up to `limit` chunks that lack one a vector; how many got
        one. Never holds the engine's lock while embedding, so indexing and requests go on."""
        if not self.plan_vectors() or limit <= 0:
            return 0
        return self.vectors.step(self.keyword.chunks_of, limit)

    def forget_unused_vectors(self) -> int:
        """Drop cached vectors of texts no chunk of the vault has now; how many went."""
        with self.lock:
            paths = [path for path, record in self.manifest.records.items() if record.chunk_ids]
        return self.vectors.prune_cache(
            chunk for path in paths for chunk in self.keyword.chunks_of(path)
        )

    def _vector_plan(self) -> tuple[dict[str, tuple[str, ...]], dict[str, int]]:
        """Every note's chunk ids, and how recently it changed (an open buffer counts as now)."""
        now = time.time_ns()
        wanted: dict[str, tuple[str, ...]] = {}
        recency: dict[str, int] = {}
        for path, record in self.manifest.records.items():
            if record.note is not None and record.chunk_ids:
                wanted[path] = record.chunk_ids
                recency[path] = now if path in self.buffers else record.mtime_ns
        return wanted, recency

    def vector_status(self) -> VectorStatus:
        """The vector side's status. Connected but not yet planned counts as connecting: until
        the store is compared with the index nothing is known to be pending, and "ready" with 0
        pending would claim everything embedded. (A read-only engine never plans: its store is
        as the writer left it.)"""
        status = self.vectors.status()
        if status.state == "ready" and self.vectors.needs_plan and not self.keyword.read_only:
            return replace(status, state="connecting")
        return status

    # -- reading ------------------------------------------------------------------------------

    @contextmanager
    def reading(self) -> Iterator[VaultView]:
        """The vault as of now, for navigation: no change is applied while the block runs."""
        with self.lock:
            yield VaultView(self.revision, self.graph, self.read)

    def search(self, request: SearchRequest) -> SearchResponse:
        """Hybrid by default; keyword-only, with a warning, while the vector side cannot answer."""
        side = self.vectors
        vector_hits = None
        warnings: list[str] = []
        if request.mode != "keyword" and side.enabled:
            if self._connect_on_search:
                side.connect()
            vector_hits = side.query(
                request.query, hybrid.vector_candidates(request, self.settings)
            )
            status = side.status()
            if vector_hits is None and status.state == "connecting":
                warnings.append("semantic search is starting; keyword results only")
            elif vector_hits is None:
                warnings.append(
                    f"semantic search unavailable ({status.problem}); keyword results only"
                )
            elif status.pending:
                warnings.append(f"{status.pending} chunks are still waiting for vectors")
        elif request.mode == "vector":
            warnings.append("semantic search is off (embedder = none)")
        # Only Latin words: the model that reads Chinese has no tokenizer to ask.
        meaningless = bool(vector_hits) and side.reads_none_of(_LATIN_WORD.findall(request.query))
        scales = side.scales(request.query)
        with self.lock:
            return hybrid.search(
                request,
                self.keyword,
                self.graph,
                self.settings,
                vector_hits,
                warnings,
                meaningless,
                scales,
            )

    def find_note(self, reference: str) -> str | None:
        """A note given by vault-relative path (with or without `.md`) or by name / title."""
        reference = reference.strip().replace("\\", "/").removeprefix("./")
        notes = self.graph.notes
        for candidate in (reference, reference + ".md"):
            if candidate in notes:
                return candidate
        wanted = name_key(reference.removesuffix(".md"))
        for path in sorted(notes):
            if name_key(notes[path].stem) == wanted or name_key(notes[path].title) == wanted:
                return path
        return None

    def read(self, path: str) -> str | None:
        """The current text of a vault file: the editor's buffer if one is open, else the disk."""
        buffered = self.buffers.get(path)
        if buffered is not None:
            return buffered
        stat = self._stat(path)
        if stat is None:
            return None
        return read_text(self.root, stat, self.settings).text

    def links(self, path: str) -> NoteLinks:
        with self.lock:
            return NoteLinks(path, self.graph.outlinks(path), tuple(self.graph.inlinks(path)))

    def _summary(self, started: float, changes: _Changes, skipped: list[Skipped]) -> IndexSummary:
        notes = chunks = 0
        skipped_files = list(skipped)
        problems = []
        for record in self.manifest.records.values():
            chunks += len(record.chunk_ids)
            if record.note is None:
                skipped_files.append(Skipped(record.path, record.problem or "skipped"))
                continue
            notes += 1
            if record.problem:
                problems.append(Skipped(record.path, record.problem))
        counts = self.graph.counts()
        return IndexSummary(
            notes=notes,
            chunks=chunks,
            links=counts["links"],
            unresolved=counts["unresolved"],
            ambiguous=counts["ambiguous"],
            added=changes.added,
            modified=changes.modified,
            deleted=changes.deleted,
            skipped=tuple(sorted(skipped_files, key=lambda s: s.path)),
            problems=tuple(sorted(problems, key=lambda s: s.path)),
            seconds=time.perf_counter() - started,
            read_only=self.keyword.read_only,
            messages=tuple(self.messages),
        )

    @property
    def semantic(self) -> bool:
        """Whether this vault has a vector side at all (an embedder other than `none`)."""
        return self.vectors.enabled

    def connect_vectors(self) -> bool:
        """Open the vector side if it is not (loading the models on first success); False while
        it cannot, until its retry time has passed."""
        side = self.vectors
        if side.ready:
            return True
        if not side.connect():
            return False
        side.warm_up()
        return side.ready

    def use_settings(self, settings: Settings) -> None:
        """Settings a request reads each time (fusion weights, limits): from the next one on."""
        with self.lock:
            self.settings = settings

    def counts(self) -> tuple[int, int, int]:
        """Notes, chunks and the revision, as of now."""
        with self.lock:
            records = self.manifest.records.values()
            notes = sum(1 for record in records if record.note is not None)
            return notes, sum(len(record.chunk_ids) for record in records), self.revision

    def open_buffers(self) -> dict[str, str]:
        """The editor's open buffers the engine holds (path -> text), as of now."""
        with self.lock:
            return dict(self.buffers)

    def close(self) -> None:
        """Waits for a change being applied, if any."""
        with self.lock:
            self.save_manifest()
            self.keyword.close()
            self.vectors.close()
            self._writer_lock.release()


def _parents(path: str) -> Iterator[str]:
    """`a/b/c.md` -> `a`, `a/b`."""
    parts = path.split("/")
    for end in range(1, len(parts)):
        yield "/".join(parts[:end])


def _sleep(seconds: float) -> bool:
    time.sleep(seconds)
    return True


def _restat(record: FileRecord, stat: FileStat) -> FileRecord:
    return replace(record, mtime_ns=stat.mtime_ns, size=stat.size)
