"""Chunk vectors in Chroma: an embedded store in the vault's cache folder, or a Chroma server.

The only module that imports chromadb. Vectors are always passed in: Chroma's own default embedder
downloads a model, which must never happen. One collection per vault and embedder, so vectors of two
models (or two dimensions) never meet. Every Chroma failure becomes a `VectorStoreError`, which the
search turns into keyword-only answers.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
import sqlite3
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
_GET_PAGE = 5000  # ids fetched per call when listing a large collection


class VectorStoreError(Exception):
    """The vector store cannot be opened or does not answer."""


@dataclass(frozen=True, slots=True)
class VectorHit:
    chunk_id: str
    path: str
    similarity: float  # cosine similarity, -1..1
    block: int = 0  # which of the embedder's blocks it was found in (see VectorStore)


def _readable(text: str, size: int) -> str:
    return re.sub(r"[^a-zA-Z0-9._-]+", "-", text).strip("-._")[:size] or "x"


def vault_prefix(vault: str) -> str:
    """The start of every collection name of one vault. Chroma's names: 3-512 of [a-zA-Z0-9._-],
    alphanumeric at both ends; the digest keeps two vaults with one folder name apart on a server."""
    digest = hashlib.sha1(vault.encode(), usedforsecurity=False).hexdigest()[:10]
    return f"memlsp-v{FORMAT_VERSION}-{_readable(Path(vault).name, 60)}-{digest}-"


def collection_name(vault: str, embedder_id: str) -> str:
    return vault_prefix(vault) + _readable(embedder_id, 200)


@dataclass(frozen=True, slots=True)
class StoredCounts:
    """What an embedded store holds for one vault, read without opening Chroma."""

    chunks: int  # chunks with a vector (in one block or more)
    collections: tuple[tuple[str, int], ...]  # each of the vault's collections and its size


def stored_counts(folder: Path, vault: str) -> StoredCounts | None:
    """How many chunks of `vault` the embedded store in `folder` holds, read from its SQLite file
    (read-only: no Chroma, no model, milliseconds); None when there is no store. Raises
    VectorStoreError when the file is not as this Chroma writes it."""
    path = folder / "chroma.sqlite3"
    if not path.is_file():
        return None
    where = "FROM embeddings e JOIN segments s ON e.segment_id = s.id "
    where += "JOIN collections c ON s.collection = c.id WHERE substr(c.name, 1, ?) = ?"
    prefix = vault_prefix(vault)
    try:
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
            chunks = db.execute(
                f"SELECT COUNT(DISTINCT e.embedding_id) {where}", (len(prefix), prefix)
            ).fetchone()[0]
            rows = db.execute(
                f"SELECT c.name, COUNT(*) {where} GROUP BY c.name ORDER BY c.name",
                (len(prefix), prefix),
            ).fetchall()
    except sqlite3.Error as error:
        raise VectorStoreError(f"cannot read the vector store at {folder}: {error}") from error
    return StoredCounts(int(chunks), tuple((str(name), int(count)) for name, count in rows))


def _client(where: Path | str) -> Any:
    try:
        import chromadb
        from chromadb.config import Settings
    except ImportError as error:
        raise VectorStoreError(f"chromadb is not installed ({error})") from error
    settings = Settings(anonymized_telemetry=False)
    if isinstance(where, Path):
        return chromadb.PersistentClient(path=str(where), settings=settings)
    url = urlsplit(where if "://" in where else f"http://{where}")
    if url.scheme not in ("http", "https") or not url.hostname:
        raise VectorStoreError(f"chroma_url {where!r} is not an http(s) URL")
    port = url.port or (443 if url.scheme == "https" else 8000)
    return chromadb.HttpClient(
        host=url.hostname, port=port, ssl=url.scheme == "https", settings=settings
    )


class VectorStore:
    """`where`: a folder for an embedded store, or a Chroma server's URL.

    `parts` splits the embedder's vectors into blocks of these dimensions, each its own collection,
    and a vector is kept in every block where it is not zero. The bilingual embedder's vectors are
    `[MiniLM, 0, USE]` for a Latin-script chunk and `[0, USE, 0]` for a Chinese one: storing only
    the non-zero blocks keeps Chroma's memory to the parts that say something.
    A query searches every block its vector has; a chunk's similarity is that of its best block,
    times the query's share in that block (the block's norm over the whole query's). For vectors
    with one non-zero block this is exactly the cosine of the whole vectors."""

    def __init__(
        self, where: Path | str, vault: str, embedder_id: str, parts: Sequence[int] = ()
    ) -> None:
        self.where = where
        self.name = collection_name(vault, embedder_id)
        self.dropped: list[str] = []  # this vault's collections of other embedders, now deleted
        spans: list[tuple[int, int | None]] = [(0, None)]  # one block: the whole vector
        if len(parts) >= 2:
            ends = list(accumulate(parts))
            spans = list(zip([0, *ends[:-1]], ends, strict=True))
        names = [self.name] if len(spans) == 1 else [f"{self.name}-p{i}" for i in range(len(spans))]
        try:
            self._client = _client(where)
            self._blocks = [
                (
                    start,
                    end,
                    self._client.get_or_create_collection(
                        name, embedding_function=None, metadata={"hnsw:space": "cosine"}
                    ),
                )
                for (start, end), name in zip(spans, names, strict=True)
            ]
            prefix = vault_prefix(vault)
            for other in self._client.list_collections():
                name = getattr(other, "name", other)
                if name.startswith(prefix) and name not in names:
                    self._client.delete_collection(name)
                    self.dropped.append(name)
        except VectorStoreError:
            raise
        except Exception as error:
            raise VectorStoreError(f"cannot open the vector store at {where}: {error}") from error

    @property
    def remote(self) -> bool:
        return not isinstance(self.where, Path)

    def close(self) -> None:
        """Let go of the store: an embedded one's files and connections are released once no
        other client of the same folder in this process holds them (Chroma counts them)."""
        close = getattr(self._client, "close", None)
        if close is None:
            return
        try:
            close()
        except Exception as error:  # a store that cannot close cleanly still lets the rest go
            log.warning("closing the vector store at %s: %s", self.where, error)

    def ids(self) -> set[str]:
        """Every stored chunk id (what is already embedded)."""
        found: set[str] = set()
        for _, _, collection in self._blocks:
            offset = 0
            while True:
                page = self._call(
                    "list", collection.get, include=[], limit=_GET_PAGE, offset=offset
                )
                found.update(page["ids"])
                if len(page["ids"]) < _GET_PAGE:
                    break
                offset += _GET_PAGE
        return found

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, paths: Sequence[str]) -> None:
        """Each vector goes to every block where it is not zero."""
        if not ids:
            return
        rows = np.asarray(vectors, dtype=np.float32)
        for start, end, collection in self._blocks:
            chosen = [i for i in range(len(ids)) if rows[i, start:end].any()]
            if chosen:
                self._call(
                    "write",
                    collection.upsert,
                    ids=[ids[i] for i in chosen],
                    embeddings=rows[chosen, start:end],
                    metadatas=[{"path": paths[i]} for i in chosen],
                )

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            for _, _, collection in self._blocks:
                self._call("delete", collection.delete, ids=list(ids))

    def count(self) -> int:
        """How many chunks have a vector (a chunk kept in two blocks counts once)."""
        return len(self.ids()) if len(self._blocks) > 1 else self.block_counts()[0]

    def block_counts(self) -> list[int]:
        """How many vectors each block holds (one number without blocks)."""
        return [int(self._call("count", c.count)) for _, _, c in self._blocks]

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of these chunks, whole: each block read back where it is kept and
        zeros where it is not (a vector is kept only in its non-zero blocks). Chunks without a
        vector are absent."""
        parts: dict[str, list[tuple[int, np.ndarray]]] = {}
        width = 0
        for start, end, collection in self._blocks:
            if not ids:
                break
            found = self._call("get", collection.get, ids=list(ids), include=["embeddings"])
            for chunk_id, row in zip(found["ids"], found["embeddings"], strict=True):
                values = np.asarray(row, dtype=np.float32)
                parts.setdefault(chunk_id, []).append((start, values))
                width = max(width, start + len(values))
            if end is not None:
                width = max(width, end)
        whole: dict[str, np.ndarray] = {}
        for chunk_id, blocks in parts.items():
            vector = np.zeros(width, dtype=np.float32)
            for start, values in blocks:
                vector[start : start + len(values)] = values
            whole[chunk_id] = vector
        return whole

    def query(
        self, vector: np.ndarray, limit: int, paths: Collection[str] | None = None
    ) -> list[VectorHit]:
        """The `limit` nearest chunks, nearest first, by cosine similarity to `vector`; with
        `paths`, the nearest among those notes' chunks alone (None: every note)."""
        return self.query_many(np.asarray(vector).reshape(1, -1), limit, paths)[0]

    def query_many(
        self, vectors: np.ndarray, limit: int, paths: Collection[str] | None = None
    ) -> list[list[VectorHit]]:
        """`query` for each row of `vectors`, in one call per block."""
        rows = np.asarray(vectors, dtype=np.float32)
        rows = rows.reshape(len(rows), -1)
        if paths is not None and not paths:
            return [[] for _ in range(len(rows))]
        # Chroma searches among those notes' chunks itself: each chunk is stored with its path.
        where = {"where": {"path": {"$in": sorted(paths)}}} if paths is not None else {}
        scales = np.linalg.norm(rows, axis=1)
        scales[scales == 0] = 1.0
        best: list[dict[str, VectorHit]] = [{} for _ in range(len(rows))]
        for index, (start, end, collection) in enumerate(self._blocks):
            blocks = rows[:, start:end]
            weights = np.linalg.norm(blocks, axis=1) / scales
            # Chroma answers fewer than `n_results` when it holds fewer
            asking = [i for i in range(len(rows)) if weights[i] > 0] if limit > 0 else []
            if not asking:
                continue
            found = self._call(
                "query",
                collection.query,
                query_embeddings=blocks[asking],
                n_results=limit,
                include=["distances", "metadatas"],
                **where,
            )
            answers = zip(found["ids"], found["distances"], found["metadatas"], strict=True)
            for row, (ids, distances, metas) in zip(asking, answers, strict=True):
                weight, mine = float(weights[row]), best[row]
                for chunk_id, distance, meta in zip(ids, distances, metas, strict=True):
                    similarity = weight * (1.0 - float(distance))
                    if chunk_id not in mine or similarity > mine[chunk_id].similarity:
                        path = str(meta.get("path", ""))
                        mine[chunk_id] = VectorHit(chunk_id, path, similarity, index)
        return [
            sorted(mine.values(), key=lambda hit: (-hit.similarity, hit.chunk_id))[:limit]
            for mine in best
        ]

    def compare(
        self, vectors: np.ndarray, others: Mapping[str, np.ndarray], paths: Mapping[str, str]
    ) -> list[list[VectorHit]]:
        """`query_many`'s similarity of each row of `vectors` to each of `others` (whole stored
        vectors by chunk id, as `vectors()` gives them), computed here rather than asked of the
        store: for chunks known beforehand, which a nearest-neighbour search may not reach.
        Nearest first; `paths` gives each chunk's note."""
        rows = np.asarray(vectors, dtype=np.float32)
        rows = rows.reshape(len(rows), -1)
        ids = list(others)
        if not ids or not len(rows):
            return [[] for _ in range(len(rows))]
        theirs = np.stack([np.asarray(others[i], dtype=np.float32) for i in ids])
        norms = np.linalg.norm(rows, axis=1)
        norms[norms == 0] = 1.0
        best = np.full((len(rows), len(ids)), -np.inf, dtype=np.float32)
        block = np.zeros((len(rows), len(ids)), dtype=np.int64)
        for index, (start, end, _) in enumerate(self._blocks):
            mine, other = rows[:, start:end], theirs[:, start:end]
            mine_norm = np.linalg.norm(mine, axis=1)
            other_norm = np.linalg.norm(other, axis=1)
            kept = other_norm > 0  # a block holds only the vectors not zero there
            cosine = (mine @ other.T) / np.outer(
                np.where(mine_norm > 0, mine_norm, 1.0), np.where(kept, other_norm, 1.0)
            )
            # the query's share in the block, as query_many weights it
            similarity = (mine_norm / norms)[:, None] * cosine
            asked = (mine_norm > 0)[:, None] & kept[None, :]
            better = asked & (similarity > best)
            best = np.where(better, similarity, best)
            block = np.where(better, index, block)
        return [
            sorted(
                (
                    VectorHit(
                        chunk_id, paths.get(chunk_id, ""), float(best[row, i]), int(block[row, i])
                    )
                    for i, chunk_id in enumerate(ids)
                    if np.isfinite(best[row, i])
                ),
                key=lambda hit: (-hit.similarity, hit.chunk_id),
            )
            for row in range(len(rows))
        ]

    def _call(self, what: str, function: Any, **arguments: Any) -> Any:
        try:
            return function(**arguments)
        except Exception as error:
            raise VectorStoreError(
                f"vector store {what} failed at {self.where}: {error}"
            ) from error
