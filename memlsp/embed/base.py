"""What every embedder is: a named function from texts to unit vectors.

The `id` names the model and its dimension. Vectors are stored per embedder id, so changing the
embedder (or its dimension) never mixes two vector spaces: the old vectors are simply not used."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]  # shape (n, dimension), rows of unit length


# How the best similarity of a question no note answers grows with the number of chunks searched:
# by this share of itself per factor e. Measured by subsampling the real vaults
# (benchmarks/calibrate.py): 0.08 to 0.12 for each language pair.
SIZE_SLOPE = 0.1


@dataclass(frozen=True, slots=True)
class SimilarityScale:
    """What an embedder's cosine similarities mean, measured on development sets
    (benchmarks/calibrate.py): `low` is the typical best similarity of a question no note answers,
    `high` that of a question with an exact answer, and below `floor` a chunk found only by its
    vector is not a result. `low` and `floor` were measured among `chunks` chunks: the more there
    are, the closer the nearest unrelated one (`for_chunks`). An embedder without a scale gets the
    plain cosine: 0 means nothing, 1 everything, and nothing is cut."""

    low: float = 0.0
    high: float = 1.0
    floor: float = -1.0
    chunks: int = 0  # 0: the same for any number

    def for_chunks(self, count: int) -> SimilarityScale:
        """The scale for a search among `count` chunks."""
        if self.chunks <= 0 or count <= 0:
            return self
        factor = max(0.5, 1.0 + SIZE_SLOPE * math.log(count / self.chunks))
        low = min(self.low * factor, self.high - 0.05)
        return replace(self, low=low, floor=self.floor * factor, chunks=count)

    def placed(self, similarity: float) -> float:
        """Where a similarity lies on the scale: 0.0 at `low`, 1.0 at `high`, linear, and on
        beyond both ends (a candidate below `low` is less likely an answer the lower it is)."""
        return (similarity - self.low) / (self.high - self.low)

    def evidence(self, similarity: float) -> float:
        """`placed`, held to [0, 1]: 0.0 at or below `low`, 1.0 at or above `high`."""
        return min(1.0, max(0.0, self.placed(similarity)))


PLAIN_COSINE = SimilarityScale()


def similarity_scales(embedder: Embedder, query: str) -> tuple[SimilarityScale, ...]:
    """What the embedder's similarities mean for this query, one scale per block of its vectors
    (a hit's `block`): the bilingual embedder reads each language pair on a scale of its own."""
    scales = getattr(embedder, "similarity_scales", None)
    return tuple(scales(query)) if callable(scales) else (PLAIN_COSINE,)


def as_query(embedder: Embedder, vector: npt.NDArray[np.floating]) -> Vectors:
    """A document's vector turned into the vector a question about the same text would have, so
    that a note can ask for its neighbours as a question does: the embedder's `as_query` when it
    has one (the bilingual embedder weights its blocks by script), else the vector as it is."""
    turn = getattr(embedder, "as_query", None)
    rows = np.asarray(vector, dtype=np.float32).reshape(1, -1)
    return unit_rows(turn(rows) if callable(turn) else rows)


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


def unload_idle(embedder: Embedder, seconds: float) -> tuple[str, ...]:
    """Unload the embedder's models once none was used for `seconds` (lazy.py); the ids of
    those unloaded. An embedder that holds no model of its own (an endpoint) has none."""
    unload = getattr(embedder, "unload_idle", None)
    return tuple(unload(seconds)) if callable(unload) else ()


def until_unload(embedder: Embedder, seconds: float) -> float | None:
    """Seconds until none of the embedder's models will have been used for `seconds`; None when
    it has none loaded (or none it can unload)."""
    until = getattr(embedder, "until_unload", None)
    return until(seconds) if callable(until) else None


def unit_rows(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Rows scaled to length 1 (a zero row stays zero), as float32."""
    rows = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    scaled: Vectors = rows / norms
    return scaled
