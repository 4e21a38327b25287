"""The Chroma store on its own: whole vectors, and vectors kept as blocks (the bilingual layout)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from memlsp.index.vectors import VectorStore, stored_counts, vault_prefix


def unit(rows: list[list[float]]) -> npt.NDArray[np.float32]:
    matrix = np.array(rows, dtype=np.float32)
    normed: npt.NDArray[np.float32] = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return normed


DOCS = unit(
    [
        [1, 0.2, 0, 0, 0],
        [0.3, 1, 0, 0, 0],
        [0, 0, 0, 1, 0.1],
        [0, 0, 0, 0.6, 0.8],
        [0, 0, 1, 0, 0],
    ]
)
IDS = ["a", "b", "c", "d", "e"]
_OPEN: list[VectorStore] = []


def opened(store: VectorStore) -> VectorStore:
    """A store closed when its test ends (`close_stores`)."""
    _OPEN.append(store)
    return store


@pytest.fixture(autouse=True)
def close_stores() -> Iterator[None]:
    yield
    while _OPEN:
        _OPEN.pop().close()


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files in /proc")
def test_closing_a_store_lets_its_files_go(tmp_path: Path) -> None:
    """An embedded store holds a dozen files; a process that opens vaults again and again (a
    language server whose settings change) must not keep them all."""
    VectorStore(tmp_path / "warm", "vault", "test", (3, 2)).close()  # Chroma's own first loads
    before = open_files()
    for round_ in range(8):
        store = VectorStore(tmp_path / f"v{round_}", "vault", "test", (3, 2))
        store.upsert(IDS, DOCS, IDS)
        store.close()
    assert open_files() - before < 8


@pytest.mark.parametrize("parts", [(), (3, 2)])
def test_query_ranks_by_whole_vector_cosine(tmp_path: Path, parts: tuple[int, ...]) -> None:
    store = opened(VectorStore(tmp_path / "v", "vault", "test", parts))
    store.upsert(IDS, DOCS, [f"{i}.md" for i in IDS])
    assert store.count() == 5 and store.ids() == set(IDS)
    for query in unit([[0.9, 0.1, 0, 0.4, 0.1], [0.1, 0.5, 0.2, 0.5, 0.7]]):
        expected = sorted(zip(DOCS @ query, IDS, strict=True), reverse=True)
        hits = store.query(query, 5)
        # Blocks hold each vector's only non-zero part: the same order and similarities.
        found = [(hit.chunk_id, hit.similarity) for hit in hits if hit.similarity > 1e-6]
        wanted = [(i, float(s)) for s, i in expected if s > 1e-6]
        assert [i for i, _ in found] == [i for i, _ in wanted]
        assert np.allclose([s for _, s in found], [s for _, s in wanted], atol=1e-5)
        assert hits[0].path == f"{hits[0].chunk_id}.md"
    store.delete(["a", "c"])
    assert store.ids() == {"b", "d", "e"} and store.count() == 3


def test_blocks_have_collections_of_their_own_and_replace_the_whole_one(tmp_path: Path) -> None:
    whole = opened(VectorStore(tmp_path / "v", "vault", "test"))
    whole.upsert(IDS, DOCS, IDS)
    split = opened(VectorStore(tmp_path / "v", "vault", "test", (3, 2)))
    assert split.dropped == [whole.name]  # the old layout is gone; vectors come back from cache
    assert split.count() == 0
    split.upsert(IDS, DOCS, IDS)
    assert split.count() == 5
    again = opened(VectorStore(tmp_path / "v", "vault", "test", (3, 2)))
    assert again.dropped == [] and again.ids() == set(IDS)


@pytest.mark.parametrize("parts", [(), (3, 2)])
def test_query_among_some_notes_searches_their_chunks_alone(
    tmp_path: Path, parts: tuple[int, ...]
) -> None:
    store = opened(VectorStore(tmp_path / "v", "vault", "test", parts))
    store.upsert(IDS, DOCS, [f"{i}.md" for i in IDS])
    query = unit([[0.9, 0.1, 0, 0.4, 0.1]])[0]  # "a" and "c" are nearest, "e" is the farthest
    assert [hit.chunk_id for hit in store.query(query, 2)] == ["a", "c"]
    among = store.query(query, 2, {"e.md", "d.md"})
    assert [(hit.chunk_id, hit.path) for hit in among] == [("d", "d.md"), ("e", "e.md")]
    each = store.query_many(np.stack([query, DOCS[3]]), 1, ["b.md"])
    # Kept in blocks, "d" has no vector in the block "b" is kept in: not asked there.
    assert [[hit.path for hit in hits] for hits in each] == [["b.md"], [] if parts else ["b.md"]]
    assert store.query(query, 5, set()) == []  # no note: nothing asked of Chroma


def test_stored_counts_are_read_from_the_store_file_without_chroma(tmp_path: Path) -> None:
    assert stored_counts(tmp_path / "v", "vault") is None  # no store yet
    store = opened(VectorStore(tmp_path / "v", "vault", "test", (3, 2)))
    latin = np.array([[1.0, 0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0, 0.0]], dtype=np.float32)
    chinese = np.array([[0.0, 0.0, 0.0, 1.0, 1.0]], dtype=np.float32)
    store.upsert(["a#0", "b#0"], latin, ["a.md", "b.md"])
    store.upsert(["c#0"], chinese, ["c.md"])
    opened(VectorStore(tmp_path / "v", "other vault", "test")).upsert(["x#0"], latin[:1], ["x.md"])
    counts = stored_counts(tmp_path / "v", "vault")
    assert counts is not None and counts.chunks == 3  # each chunk once, whatever its blocks
    assert [
        (name.removeprefix(vault_prefix("vault")), size) for name, size in counts.collections
    ] == [
        ("test-p0", 2),
        ("test-p1", 3),
    ]
