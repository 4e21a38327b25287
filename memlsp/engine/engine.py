"""The facade over everything below it: open a vault, bring the index up to date, answer questions.

Writes go through the vault's one writer (writer.py), which publishes an immutable snapshot per
revision; every query reads the current snapshot and takes no lock. The vault is only ever read;
everything written goes to the per-vault cache folder.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from memlsp.embed.base import Embedder
from memlsp.engine.snapshot import Snapshot, Vectors
from memlsp.engine.writer import Progress, VaultWriter
from memlsp.index.keyword.schema import FORMAT_VERSION as KEYWORD_FORMAT
from memlsp.index.recall import RecallStore
from memlsp.index.semantic import VectorSide, VectorStatus
from memlsp.index.store import Wait, open_store
from memlsp.model import IndexSummary
from memlsp.search.related import linked_notes
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings, index_fingerprint

log = logging.getLogger(__name__)

PARSER_VERSION = 5  # 5: notes keep their frontmatter properties (parse/properties.py)


class EngineClosed(RuntimeError):
    """An engine read after it was closed: whoever holds it should have let it go."""


class Engine:
    def __init__(
        self,
        root: Path,
        settings: Settings,
        embedder: Embedder | None = None,
        *,
        wait: Wait | None = None,
        connect_on_search: bool = True,
        read_only: bool = False,
        pause: Callable[[], object] | None = None,
    ) -> None:
        self.root = root
        # Swapped whole by `use_settings`; every `read` hands out the value of its moment.
        self._settings = settings
        self.messages: list[str] = []  # what a user should know about this index, said once
        self.cache_dir = cache_dir_for(root, settings, tell=self._tell)  # never inside the vault
        self._store = open_store(
            self.cache_dir,
            index_fingerprint(settings, PARSER_VERSION, KEYWORD_FORMAT),
            self._tell,
            wait or _sleep,
            read_only=read_only,
        )
        self._writer = VaultWriter(root, settings, self._store, self.messages, pause)
        # Vectors: connected and filled by memlsp.engine.backfill, from a background thread or the CLI.
        self._vectors = VectorSide(settings, root, self.cache_dir, embedder)
        # Written by whichever process answers a search, read-only or not (index/recall.py).
        self._recall = RecallStore(self.cache_dir)
        self._planned_revision = -1
        self._plan_lock = threading.Lock()  # one plan at a time (the backfill and the CLI)
        self._connect_on_search = connect_on_search
        self._closed = False

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
        read_only: bool = False,
        pause: Callable[[], object] | None = None,
    ) -> Engine:
        """Open the vault's index: as its writer, or read-only while another process writes it.

        `connect_on_search`: whether a search may load the models and open the vector store
        itself (the CLI's one-shot searches); the language server connects them on its embedding
        thread instead, so no request waits for a model.

        While another process is still building a first index there is nothing to read: `wait`
        is called with a number of seconds between looks, and opening gives up with
        `IndexUnavailable` when it returns False (the default sleeps and goes on waiting).

        `read_only`: the index as it is, never written (not even taken over), and
        `IndexUnavailable` at once when there is none (`memlsp status`).

        `pause`: called now and then by the writer's work that can wait (a server's requests go
        first: `Activity.wait_for_quiet`)."""
        if not root.is_dir():
            raise FileNotFoundError(f"vault folder not found: {root}")
        return cls(
            root,
            settings or Settings(),
            embedder,
            wait=wait,
            connect_on_search=connect_on_search,
            read_only=read_only,
            pause=pause,
        )

    @property
    def read_only(self) -> bool:
        """Another process writes this vault's index; this one answers from it as it is."""
        return self._store.read_only

    def writer_available(self) -> bool:
        """Whether the process that wrote the index has gone, so this one could write it."""
        return self._store.writer_available()

    @property
    def vector_side(self) -> VectorSide:
        """The vector side as it is: its store, embedder and cache, for the tests, benchmarks and
        tools that look inside it. Searches read it through `read()`, the backfill fills it."""
        return self._vectors

    @property
    def writer(self) -> VaultWriter:
        """The writer this engine's `refresh` and `apply_text` go through, for the tests that
        watch how it writes (its lock, a batch cut short)."""
        return self._writer

    # -- reading (any thread, no lock) --------------------------------------------------------

    def read(self) -> Snapshot:
        """Everything one request reads, as of now: the latest published revision, the settings
        and the vector side's state. A read-only engine's keyword index is the other process's:
        looked at again each time for what that process committed since."""
        if self._closed:
            raise EngineClosed(f"the index of {self.root} is closed")
        snapshot = self._writer.snapshot
        settings = self._settings
        vectors = Vectors(self._vector_status(), self._vectors, self._connect_on_search)
        if self.read_only:
            # The other process's commits change what this one reads with no revision (nor
            # records) of its own: nothing found in an earlier read may be reused.
            keyword = self._store.keyword.reader()
            return replace(
                snapshot,
                keyword=keyword,
                settings=settings,
                vectors=vectors,
                found_before=None,
                recall=self._recall,
                _memo={},
            )
        return replace(snapshot, settings=settings, vectors=vectors, recall=self._recall)

    # -- writing (one writer thread) ----------------------------------------------------------

    def refresh(
        self,
        progress: Progress | None = None,
        *,
        progressive: bool = False,
        cancel: threading.Event | None = None,
    ) -> IndexSummary:
        """Bring the index up to date with the whole vault (writer.py `refresh`)."""
        return self._writer.refresh(progress, progressive=progressive, cancel=cancel)

    def refresh_paths(self, paths: Iterable[str]) -> IndexSummary:
        """Re-index these vault-relative files or folders (writer.py `refresh_paths`)."""
        return self._writer.refresh_paths(paths)

    def apply_text(self, path: str, text: str) -> None:
        """Index an editor buffer's text for `path`; it wins over the disk until `release_text`."""
        self._writer.apply_text(path, text)

    def apply_texts(self, texts: Mapping[str, str]) -> None:
        """`apply_text` for several buffers at once, as one revision."""
        self._writer.apply_texts(texts)

    def release_text(self, path: str) -> None:
        """The buffer closed: the file on disk (or its absence) is the truth again."""
        self._writer.release_text(path)

    def save_manifest(self) -> None:
        self._writer.save_manifest()

    def use_settings(self, settings: Settings) -> None:
        """Settings a request reads each time (limits, weights, diagnostics): every `read` from
        now on carries them. Settings that change what is indexed reopen the vault instead."""
        self._settings = settings
        self._vectors.settings = settings

    # -- the vector side ----------------------------------------------------------------------

    @property
    def semantic(self) -> bool:
        """Whether this vault has a vector side at all (an embedder other than `none`)."""
        return self._vectors.enabled

    def connect_vectors(self) -> bool:
        """Open the vector side if it is not (loading the models on first success); False while
        it cannot, until its retry time has passed."""
        side = self._vectors
        if side.ready:
            return True
        if not side.connect():
            return False
        side.warm_up()
        return side.ready

    def plan_vectors(self) -> bool:
        """Connect the vector side and plan which chunks lack a vector (when the vault changed
        since the last plan); False when the side cannot run now. memlsp.engine.backfill drives this."""
        side = self._vectors
        if not side.connect():
            return False
        if self.read_only:
            return False  # the store is the writing process's to plan and fill
        with self._plan_lock:
            snapshot = self._writer.snapshot
            if self._planned_revision != snapshot.revision or side.needs_plan:
                side.reconcile(*_vector_plan(snapshot))
                self._planned_revision = snapshot.revision
        return side.ready

    def embed_step(self, limit: int, pause: Callable[[], object] | None = None) -> int:
        """Plan if needed, then give up to `limit` chunks that lack one a vector; how many got
        one. Takes no lock while embedding, so indexing and requests go on; `pause` is called
        between the model's small groups of texts (index/semantic.py `step`)."""
        if not self.plan_vectors() or limit <= 0:
            return 0
        return self._vectors.step(self._writer.snapshot.keyword.chunks_of, limit, pause)

    def unload_idle_models(self) -> float | None:
        """Unload the embedding models once none was used for `model_idle_seconds` (the next
        text that needs one loads it again); seconds until they will be due, None when none is
        loaded or they are kept for good. A server's embedding thread calls this between steps."""
        return self._vectors.unload_idle(self._settings.model_idle_seconds)

    def forget_unused_vectors(self) -> int:
        """Drop cached vectors of texts no chunk of the vault has now; how many went."""
        snapshot = self._writer.snapshot
        paths = [path for path, record in snapshot.records.items() if record.chunk_ids]
        return self._vectors.prune_cache(
            chunk for path in paths for chunk in snapshot.keyword.chunks_of(path)
        )

    def _vector_status(self) -> VectorStatus:
        """The vector side's status. Connected but not yet planned counts as connecting: until
        the store is compared with the index nothing is known to be pending, and "ready" with 0
        pending would claim everything embedded. (A read-only engine never plans: its store is
        as the writer left it.)"""
        status = self._vectors.status()
        if status.state == "ready" and self._vectors.needs_plan and not self.read_only:
            return replace(status, state="connecting")
        return status

    def close(self) -> None:
        """Saves what the writer did; call it once no change is being applied."""
        self._closed = True
        self._writer.close()
        self._vectors.close()


def _vector_plan(snapshot: Snapshot) -> tuple[dict[str, tuple[str, ...]], dict[str, int]]:
    """Every note's chunk ids, and the order to embed them in: the open notes first, then the
    notes they link to or from (their related notes are asked for first), then the most
    recently changed."""
    wanted: dict[str, tuple[str, ...]] = {}
    recency: dict[str, int] = {}
    for path, record in snapshot.records.items():
        if record.note is not None and record.chunk_ids:
            wanted[path] = record.chunk_ids
            recency[path] = record.mtime_ns
    # After every file's time (a clock set ahead included), as `Snapshot.modified` ranks buffers.
    for path in snapshot.buffers:
        for neighbour in _neighbours(snapshot, path):
            if neighbour in recency:
                recency[neighbour] = sys.maxsize - 1
    for path in snapshot.buffers:
        if path in recency:
            recency[path] = sys.maxsize
    return wanted, recency


OPEN_NEIGHBOURS = 200  # of an open hub's thousands of neighbours, the ones embedded early


def _neighbours(snapshot: Snapshot, path: str) -> list[str]:
    return sorted(linked_notes(snapshot.graph, path))[:OPEN_NEIGHBOURS]


def _sleep(seconds: float) -> bool:
    time.sleep(seconds)
    return True
