"""The semantic side of the index: the embedder, its Chroma collection, the content cache, and which
chunks still need a vector.

Nothing here may stop keyword search. Every failure (an embedder that cannot load or errors, a Chroma
server that went away) turns the side "unavailable" with one log line, and `connect` is tried again
after `retry_seconds`; when it works, the backfill carries on from what the store already holds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import numpy as np

from memlsp.embed.base import (
    Embedder,
    EmbedderError,
    SimilarityScale,
    as_query,
    knows_word,
    similarity_scales,
    unload_idle,
    until_unload,
    vector_parts,
)
from memlsp.embed.factory import build_embedder
from memlsp.heap import release_memory, resident_mib
from memlsp.index.vector_cache import VectorCache, text_digest
from memlsp.index.vectors import VectorHit, VectorStore, VectorStoreError
from memlsp.model import Chunk
from memlsp.parse.prose import embeds, without_blobs
from memlsp.settings.table import Settings

log = logging.getLogger(__name__)

BATCH = 16  # chunks per backfill step: each step stores its vectors in one write
GROUP = 4  # texts per model call: a query embedding waits behind at most one group


@dataclass(frozen=True, slots=True)
class VectorStatus:
    state: str  # "off", "connecting", "ready", "unavailable"
    embedder: str
    stored: int
    pending: int
    problem: str = ""


def embedding_text(chunk: Chunk) -> str:
    """What a chunk's vector is made from: its breadcrumb (where it sits) and its text, without
    encoded data (which would use up the model's input before the words after it)."""
    return " › ".join(chunk.breadcrumb) + "\n\n" + without_blobs(chunk.text)


class VectorSide:
    def __init__(
        self,
        settings: Settings,
        vault: Path,
        cache_dir: Path,
        embedder: Embedder | None = None,
    ) -> None:
        """`embedder` replaces the one the settings name (tests use a deterministic one)."""
        self.settings = settings
        self._vault = str(vault.resolve())
        self._where: Path | str = settings.chroma_url or cache_dir / "vectors"
        self._cache_path = cache_dir / "vector-cache.sqlite3"
        self._given = embedder
        self.embedder: Embedder | None = embedder
        self.store: VectorStore | None = None
        self.cache: VectorCache | None = None
        self.retry_seconds = settings.vector_retry_seconds
        self.state = "off" if settings.embedder == "none" and embedder is None else "connecting"
        self.problem = ""
        self._retry_at = 0.0
        self._stored: set[str] = set()
        self._pending: dict[str, set[str]] = {}  # path -> chunk ids without a vector, by recency
        self._lock = threading.Lock()  # guards the bookkeeping; never held while embedding
        self._connecting = threading.Lock()
        self.needs_plan = True  # set on (re)connect: the store's contents must be compared again
        self._block_counts: tuple[int, ...] = ()  # vectors per block, as last counted
        # The last query's vector, by embedder and text: a search that explains its answer asks
        # the store twice for one query, and the model is the slow part.
        self._last_query: tuple[Embedder, str, np.ndarray] | None = None

    @property
    def enabled(self) -> bool:
        return self.state != "off"

    @property
    def ready(self) -> bool:
        return self.state == "ready"

    def status(self) -> VectorStatus:
        with self._lock:
            pending = sum(len(ids) for ids in self._pending.values())
            stored = len(self._stored)
        name = self.embedder.id if self.embedder else self.settings.embedder
        return VectorStatus(self.state, name, stored, pending, self.problem)

    # -- connecting -------------------------------------------------------------------------

    def connect(self) -> bool:
        """Build the embedder and open the store, unless it failed less than `retry_seconds` ago."""
        with self._connecting:
            if self.state in ("off", "ready"):
                return self.ready
            if time.monotonic() < self._retry_at:
                return False
            return self._connect()

    def retry_now(self) -> None:
        """Let the next `connect` try at once, as if `retry_seconds` had passed since the last
        failure (a test's clock does not wait)."""
        self._retry_at = 0.0

    def _connect(self) -> bool:
        try:
            if self.embedder is None:
                self.embedder = build_embedder(self.settings)
                if self.embedder is None:
                    self.state = "off"
                    return False
            parts = vector_parts(self.embedder)
            store = VectorStore(self._where, self._vault, self.embedder.id, parts)
        except (EmbedderError, VectorStoreError, OSError) as error:
            self._fail(error)
            return False
        try:
            stored = store.ids()
            if self.cache is None:
                self.cache = VectorCache(self._cache_path)
        except (VectorStoreError, OSError) as error:
            store.close()
            self._fail(error)
            return False
        for name in store.dropped:
            log.warning("embedder changed: dropped the old vectors %s; rebuilding", name)
        with self._lock:
            self.store = store
            self._stored = stored
            self.state, self.problem = "ready", ""
            self.needs_plan = True
        self._note_blocks()
        log.info("vectors: %s at %s, %d stored", self.embedder.id, self._where, len(stored))
        return True

    def _fail(self, error: Exception) -> None:
        """Unavailable until the next `connect`; an embedder that failed is built again then."""
        problem = str(error)
        if problem != self.problem:
            log.warning("semantic search unavailable, keyword search only: %s", problem)
        with self._lock:
            self.state, self.problem = "unavailable", problem
            dropped, self.store = self.store, None
            if self._given is None and isinstance(error, EmbedderError):
                self.embedder = None
        self._retry_at = time.monotonic() + self.retry_seconds
        if dropped is not None:  # its files and connections, which the next connect opens anew
            dropped.close()

    # -- keeping up with the keyword index ----------------------------------------------------

    def reconcile(self, wanted: Mapping[str, Sequence[str]], recency: Mapping[str, int]) -> None:
        """Plan the backfill from the chunks the vault has now (path -> chunk ids): most recent
        notes first; and delete vectors of chunks that are gone."""
        store = self.store
        if store is None:
            return
        with self._lock:
            live: set[str] = set()
            pending: dict[str, set[str]] = {}
            for path in sorted(wanted, key=lambda p: (-recency.get(p, 0), p)):
                # A chunk that is not prose (its id says so) has no vector to keep or to make.
                ids = [chunk_id for chunk_id in wanted[path] if embeds(chunk_id)]
                live.update(ids)
                missing = {chunk_id for chunk_id in ids if chunk_id not in self._stored}
                if missing:
                    pending[path] = missing
            self._pending = pending
            self.needs_plan = False
            stale = sorted(self._stored - live)
        try:
            for start in range(0, len(stale), 5000):
                store.delete(stale[start : start + 5000])
        except VectorStoreError as error:
            self._fail(error)
            return
        with self._lock:
            self._stored.difference_update(stale)

    def pending_for(self, paths: Iterable[str]) -> int:
        """How many chunks of these notes still wait for a vector."""
        with self._lock:
            return sum(len(self._pending.get(path, ())) for path in set(paths))

    def step(
        self,
        fetch: Callable[[str], Sequence[Chunk]],
        limit: int = BATCH,
        pause: Callable[[], object] | None = None,
    ) -> int:
        """Embed up to `limit` pending chunks (fetched by note path); how many were stored.
        `pause` is called between groups of `GROUP` texts: the server waits there while a
        request runs, so a request never waits behind more than one group."""
        if not self.ready:
            return 0
        batch: list[Chunk] = []
        with self._lock:
            paths = list(islice(self._pending, limit))  # each gives at least one chunk
        for path in paths:
            room = limit - len(batch)
            if room <= 0:
                break
            with self._lock:
                wanted = set(self._pending.get(path, ()))
            found = [chunk for chunk in fetch(path) if chunk.id in wanted]
            batch.extend(found[:room])
            with self._lock:
                # Chunks no longer in the keyword index were replaced: their note comes back.
                if path in self._pending:
                    left = self._pending[path] - {chunk.id for chunk in found[:room]}
                    if left and found:
                        self._pending[path] = left
                    else:
                        del self._pending[path]
        if not batch:
            return 0
        try:
            self._store_vectors(batch, pause)
            # A forward pass allocates and frees large activation buffers that glibc keeps:
            # given back once a step (not after every call, which costs 15% in page faults).
            release_memory()
        except (EmbedderError, VectorStoreError) as error:
            with self._lock:
                for chunk in batch:
                    self._pending.setdefault(chunk.path, set()).add(chunk.id)
            self._fail(error)
            return 0
        self._note_blocks()
        return len(batch)

    def _note_blocks(self) -> None:
        """Count the vectors each block holds: an embedder with blocks (the bilingual one) skips
        the empty ones, and a block's similarity scale depends on its size."""
        store = self.store
        if store is None:
            return
        try:
            counts = store.block_counts()
        except VectorStoreError as error:
            self._fail(error)
            return
        with self._lock:
            self._block_counts = tuple(counts)
        use_parts = getattr(self.embedder, "use_parts", None)
        if use_parts is not None:
            use_parts([count > 0 for count in counts])

    def _store_vectors(
        self, chunks: list[Chunk], pause: Callable[[], object] | None = None
    ) -> None:
        assert self.embedder is not None and self.store is not None and self.cache is not None
        embedder = self.embedder
        texts = [embedding_text(chunk) for chunk in chunks]
        digests = [text_digest(text) for text in texts]
        known = self.cache.get(embedder.id, digests)
        # One vector per text (two chunks may read alike), embedded shortest first in groups of
        # similar length: a model pads every text of a group to its longest.
        todo = sorted(
            {digests[i]: i for i in range(len(texts)) if digests[i] not in known}.values(),
            key=lambda i: len(texts[i]),
        )
        made: dict[str, np.ndarray] = {}
        for start in range(0, len(todo), GROUP):
            if start and pause is not None:
                pause()
            group = todo[start : start + GROUP]
            try:
                fresh = embedder.embed_documents([texts[i] for i in group])
            except EmbedderError:
                raise
            except Exception as error:  # a model that breaks must not end the backfill
                raise EmbedderError(f"embedder {embedder.id} failed: {error}") from error
            made.update((digests[i], fresh[row]) for row, i in enumerate(group))
        if made:
            self.cache.put(embedder.id, made)
            known.update(made)
        vectors = np.stack([known[digest] for digest in digests])
        self.store.upsert([c.id for c in chunks], vectors, [c.path for c in chunks])
        with self._lock:
            self._stored.update(chunk.id for chunk in chunks)

    def prune_cache(self, chunks: Iterable[Chunk]) -> int:
        """Keep in the content cache only this embedder's vectors of these chunks' texts."""
        embedder, cache = self.embedder, self.cache
        if embedder is None or cache is None:
            return 0
        keep = {text_digest(embedding_text(chunk)) for chunk in chunks if embeds(chunk.id)}
        gone = cache.keep_only(embedder.id, keep)
        if gone:
            log.info("vector cache: %d vectors of texts no longer in the vault dropped", gone)
        return gone

    def warm_up(self) -> None:
        """Load the models now, so the first query does not wait for them."""
        if self.embedder is not None:
            try:
                self.embedder.embed_query("warm up 预热")
            except Exception as error:
                self._fail(EmbedderError(f"embedder {self.embedder.id} failed: {error}"))

    def unload_idle(self, seconds: float) -> float | None:
        """Unload the models once none was used for `seconds`, and give their memory back (0 or
        less: never); how many seconds until that is so, None when no model is loaded."""
        embedder = self.embedder
        if embedder is None or seconds <= 0:
            return None
        due = until_unload(embedder, seconds)
        if due != 0.0:
            return due
        before = resident_mib()
        gone = unload_idle(embedder, seconds)
        if gone:
            release_memory()  # what the models held, which glibc would otherwise keep
            after = resident_mib()
            log.info(
                "%s unloaded after %g s unused%s; loaded again when next needed",
                " and ".join(gone),
                seconds,
                f" (resident {before} -> {after} MiB)" if before and after else "",
            )
        return until_unload(embedder, seconds)

    # -- searching ----------------------------------------------------------------------------

    def scales(self, query: str) -> tuple[SimilarityScale, ...]:
        """What similarities mean for this query, per block, for the blocks' sizes now."""
        embedder = self.embedder
        if embedder is None:
            return ()
        with self._lock:
            counts = self._block_counts
        scales = similarity_scales(embedder, query)
        return tuple(
            scale.for_chunks(counts[i] if i < len(counts) else 0) for i, scale in enumerate(scales)
        )

    def reads_none_of(self, words: list[str]) -> bool:
        """Whether the model has no word of its vocabulary among `words` (False when it cannot
        tell, or when there are none)."""
        embedder = self.embedder
        if embedder is None or not words:
            return False
        try:
            return all(knows_word(embedder, word) is False for word in words)
        except Exception:  # a model that fails to load answers nothing here; the query says why
            return False

    def query(
        self, text: str, limit: int, paths: Collection[str] | None = None
    ) -> list[VectorHit] | None:
        """The nearest chunks to `text`, among those of the notes at `paths` when given (None:
        every note); None while the side cannot answer."""
        embedder, store = self.embedder, self.store
        if not self.ready or embedder is None or store is None:
            return None
        with self._lock:
            limit = min(limit, len(self._stored))
        if limit == 0:
            return []
        try:
            return store.query(self._query_vector(embedder, text), limit, paths)
        except (EmbedderError, VectorStoreError) as error:
            self._fail(error)
        except Exception as error:
            self._fail(EmbedderError(f"embedder {embedder.id} failed: {error}"))
        return None

    def _query_vector(self, embedder: Embedder, text: str) -> np.ndarray:
        last = self._last_query
        if last is not None and last[0] is embedder and last[1] == text:
            return last[2]
        vector: np.ndarray = embedder.embed_query(text)[0]
        self._last_query = (embedder, text, vector)
        return vector

    def embedded_of(self, ids: Iterable[str]) -> int:
        """How many of these chunks have their vector in the store."""
        with self._lock:
            return sum(chunk_id in self._stored for chunk_id in ids)

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray] | None:
        """The stored vectors of these chunks (those without one are absent), or None while the
        side cannot answer."""
        store = self.store
        if not self.ready or store is None:
            return None
        try:
            return store.vectors(ids)
        except VectorStoreError as error:
            self._fail(error)
        return None

    def nearest_to(self, vectors: Sequence[np.ndarray], limit: int) -> list[list[VectorHit]] | None:
        """The nearest chunks to each of these stored vectors, asked as a question of the same
        text would ask (`embed.base.as_query`), all in one call per block; None while the side
        cannot answer."""
        embedder, store = self.embedder, self.store
        if not self.ready or embedder is None or store is None:
            return None
        with self._lock:
            limit = min(limit, len(self._stored))
        if not vectors or limit == 0:
            return [[] for _ in vectors]
        try:
            queries = np.concatenate([as_query(embedder, vector) for vector in vectors])
            return store.query_many(queries, limit)
        except VectorStoreError as error:
            self._fail(error)
        return None

    def compare_to(
        self, vectors: Sequence[np.ndarray], chunks: Mapping[str, str]
    ) -> list[list[VectorHit]] | None:
        """`nearest_to`'s similarity of each of these stored vectors to each of `chunks` (chunk id
        -> note path) that has a vector, computed here: for chunks known beforehand (a linked
        note's), which the store's nearest may not reach. None while the side cannot answer."""
        embedder, store = self.embedder, self.store
        if not self.ready or embedder is None or store is None:
            return None
        if not vectors:
            return []
        try:
            others = store.vectors(list(chunks))
            queries = np.concatenate([as_query(embedder, vector) for vector in vectors])
            return store.compare(queries, others, chunks)
        except VectorStoreError as error:
            self._fail(error)
        return None

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
            self.cache = None
        with self._lock:
            store, self.store = self.store, None
        if store is not None:
            store.close()
