"""The default embedder: MiniLM for notes in English (and other Latin-script text), USE multilingual
for notes with Chinese, in one vector space of two halves.

A chunk's vector is `[minilm, 0]` or `[0, use]`, by its script. A query is embedded by both models
and weighted by its own script: `[a * minilm(q), b * use(q)]`. Its cosine with an English chunk is
then `a * minilm-cosine`, with a Chinese chunk `b * use-cosine`, so each note is compared by the
model that reads its language, and an English question still reaches a Chinese note through USE's
cross-lingual space. Measured on SciFact (English) MiniLM alone is far better than USE (0.64 against
0.39 nDCG@10 dense), and on Chinese USE is the one that works; see benchmarks/README.md.

Each model loads only when first needed: an English-only vault never loads USE for its notes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from memlsp.embed.base import Embedder, Vectors, knows_word, unit_rows

# Query weights of the two halves. A Chinese query through MiniLM is mostly unknown word pieces, so
# its English half counts little; an English query reads Chinese notes through USE at a discount,
# since USE cosines run higher than MiniLM's for unrelated text.
LATIN_QUERY = (1.0, 0.6)
CJK_QUERY = (0.25, 1.0)
CJK_SHARE = 0.1  # a chunk whose letters are at least 10% CJK counts as Chinese


def cjk_share(text: str) -> float:
    letters = cjk = 0
    for char in text:
        if char.isalpha():
            letters += 1
            if (
                "\u3040" <= char <= "\u9fff"
                or "\uac00" <= char <= "\ud7af"
                or "\uf900" <= char <= "\ufaff"
            ):
                cjk += 1
    return cjk / letters if letters else 0.0


class LazyEmbedder:
    """An embedder built on first use, so its model loads only when a text needs it."""

    def __init__(self, build: Callable[[], Embedder], dimension: int) -> None:
        self._build = build
        self._dimension = dimension
        self._model: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def get(self) -> Embedder:
        with self._lock:
            if self._model is None:
                model = self._build()
                if model.dimension != self._dimension:
                    raise ValueError(f"{model.id} has dimension {model.dimension}")
                self._model = model
            return self._model


class BilingualEmbedder:
    def __init__(self, latin: LazyEmbedder, cjk: LazyEmbedder, latin_id: str, cjk_id: str) -> None:
        self._latin = latin
        self._cjk = cjk
        self._split = latin._dimension
        self.dimension = latin._dimension + cjk._dimension
        # Every vector is zero outside one of these blocks: the store keeps only that block.
        self.parts = (latin._dimension, cjk._dimension)
        self.active = (True, True)  # see use_parts
        self.id = f"bilingual-{latin_id}+{cjk_id}"

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        chinese = [i for i, text in enumerate(texts) if cjk_share(text) >= CJK_SHARE]
        chinese_set = set(chinese)
        latin = [i for i in range(len(texts)) if i not in chinese_set]
        if latin:
            vectors = self._latin.get().embed_documents([texts[i] for i in latin])
            out[latin, : self._split] = vectors
        if chinese:
            vectors = self._cjk.get().embed_documents([texts[i] for i in chinese])
            out[chinese, self._split :] = vectors
        return out

    def use_parts(self, stored: Sequence[bool]) -> None:
        """Which blocks hold vectors at all. A query skips a model whose block is empty, so an
        English-only vault never loads USE (2.8 s, ~130 MB) just to embed queries."""
        self.active = (bool(stored[0]), bool(stored[1]))

    def knows_word(self, word: str) -> bool | None:
        """Latin words are the MiniLM model's to judge (USE has no tokenizer to ask)."""
        return knows_word(self._latin.get(), word) if self.active[0] else None

    def embed_query(self, text: str) -> Vectors:
        a, b = CJK_QUERY if cjk_share(text) >= CJK_SHARE else LATIN_QUERY
        out = np.zeros((1, self.dimension), dtype=np.float32)
        if self.active[0]:
            out[:, : self._split] = a * self._latin.get().embed_query(text)
        if self.active[1]:
            out[:, self._split :] = b * self._cjk.get().embed_query(text)
        return unit_rows(out)
