"""What every embedder is: a named function from texts to unit vectors.

The `id` names the model and its dimension. Vectors are stored per embedder id, so changing the
embedder (or its dimension) never mixes two vector spaces: the old vectors are simply not used."""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]  # shape (n, dimension), rows of unit length


class EmbedderError(Exception):
    """The embedder cannot run: missing package or model, a failing endpoint, bad output."""


class Embedder(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors:
        """One row: the query's vector, which may differ from a document's (e.g. a prefix)."""
        ...


def knows_word(embedder: Embedder, word: str) -> bool | None:
    """Whether the model reads `word` as a word of its vocabulary (whole, or split in at most two
    pieces); None when the embedder cannot tell. A string such as `qwzxplk` falls into many
    one-letter pieces: the model has no meaning for it, only nearest neighbours."""
    ask = getattr(embedder, "knows_word", None)
    answer = None if ask is None else ask(word)
    return None if answer is None else bool(answer)


def vector_parts(embedder: Embedder) -> tuple[int, ...]:
    """The dimensions of the blocks an embedder's vectors are split into (see BilingualEmbedder);
    empty for an embedder whose vectors are one block."""
    parts = getattr(embedder, "parts", ())
    return tuple(int(size) for size in parts)


def _libc_malloc_trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to give back
        return None
    return trim


_TRIM = _libc_malloc_trim()


def release_memory() -> None:
    """Give freed heap pages back to the system. A model's forward pass allocates and frees large
    activation buffers that glibc keeps: without this, RSS grows by ~80 MB over a backfill."""
    if _TRIM is not None:
        _TRIM(0)


def unit_rows(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Rows scaled to length 1 (a zero row stays zero), as float32."""
    rows = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    scaled: Vectors = rows / norms
    return scaled
