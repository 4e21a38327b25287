"""The default embedder: MiniLM for notes in English (and other Latin-script text), USE multilingual
for notes with Chinese, in one vector space of three blocks.

A Chinese chunk's vector is `[0, use, 0]`. A Latin-script chunk's is `[minilm, 0, use]`: its USE
vector sits in a block of its own, the bridge, which only a Chinese question reads. A query is
embedded by both models and weighted by its own script: `[a * minilm(q), b * use(q), c * use(q)]`.
The store scores a chunk by its best block (index/vectors.py), so an English question compares
English notes by MiniLM and reaches Chinese notes through USE's cross-lingual space, and a Chinese
question compares Chinese notes by USE and reaches English notes through their bridge vectors.
Measured on SciFact (English) MiniLM alone is far better than USE (0.64 against 0.39 nDCG@10
dense), which is why an English question does not read the bridge; on Chinese USE is the one that
works; see benchmarks/README.md.

Each model loads only when first needed, and is unloaded once unused for a while (lazy.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memlsp.embed.base import (
    PLAIN_COSINE,
    SimilarityScale,
    Vectors,
    knows_word,
    unit_rows,
)
from memlsp.embed.lazy import LazyEmbedder, unload_together, until_unload
from memlsp.text import cjk_letters

# Query weights of the three blocks (MiniLM, USE of Chinese chunks, USE of Latin chunks). A Chinese
# query through MiniLM is mostly unknown word pieces, so that block counts little. Each language's
# notes are read across at a discount (0.6), so that at equal similarity a question prefers notes
# in its own language; USE cosines also run higher than MiniLM's for unrelated text. An English
# query reads English notes by MiniLM only.
LATIN_QUERY = (1.0, 0.6, 0.0)
CJK_QUERY = (0.25, 1.0, 0.6)
CJK_SHARE = 0.1  # a chunk whose letters are at least 10% CJK counts as Chinese
# What similarities mean, per question script and block (the language pair it reads), measured
# by benchmarks/calibrate.py on the real vaults (docs/search.md, "Scores"); they include the
# query's block weights above. `floor` is `low`: a chunk less similar than the typical best match
# of a question no note answers is not a result by meaning alone. Chinese questions reach English
# notes through MiniLM (block 0) and the bridge (block 2) alike, so the two share a scale.
# `chunks`: how many the block held where it was measured (vaultofknowledge's English chunks,
# knowledge-garden's Chinese ones).
_ZH_TO_EN = SimilarityScale(low=0.25, high=0.53, floor=0.25, chunks=6083)
LATIN_SCALES = (
    SimilarityScale(low=0.27, high=0.66, floor=0.27, chunks=6083),  # English notes, by MiniLM
    SimilarityScale(low=0.14, high=0.36, floor=0.14, chunks=5225),  # Chinese notes, by USE across
    PLAIN_COSINE,  # not read by a Latin-script question
)
CJK_SCALES = (
    _ZH_TO_EN,
    SimilarityScale(low=0.26, high=0.49, floor=0.26, chunks=5225),  # Chinese notes, by USE
    _ZH_TO_EN,
)


def cjk_share(text: str) -> float:
    letters = sum(map(str.isalpha, text))
    return cjk_letters(text) / letters if letters else 0.0


class BilingualEmbedder:
    def __init__(self, latin: LazyEmbedder, cjk: LazyEmbedder, latin_id: str, cjk_id: str) -> None:
        self._latin = latin
        self._cjk = cjk
        self.parts = (latin.dimension, cjk.dimension, cjk.dimension)
        self._starts = (0, self.parts[0], self.parts[0] + self.parts[1])
        self.dimension = sum(self.parts)
        self.active: tuple[bool, ...] = (True, True, True)  # see use_parts
        # "+bridge": vectors of the two-block layout, which had none, are not these.
        self.id = f"bilingual-{latin_id}+{cjk_id}+bridge"

    @property
    def latin(self) -> LazyEmbedder:
        """The model for Latin-script text (blocks 0 and 2 of a document's vector come from it
        and from `cjk`); loaded the first time it is asked for a vector."""
        return self._latin

    @property
    def cjk(self) -> LazyEmbedder:
        """The model for Chinese text; loaded the first time it is asked for a vector."""
        return self._cjk

    def _block(self, index: int) -> slice:
        return slice(self._starts[index], self._starts[index] + self.parts[index])

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        chinese = [i for i, text in enumerate(texts) if cjk_share(text) >= CJK_SHARE]
        chinese_set = set(chinese)
        latin = [i for i in range(len(texts)) if i not in chinese_set]
        if latin:
            latin_texts = [texts[i] for i in latin]
            with self._latin.using() as minilm:
                out[latin, self._block(0)] = minilm.embed_documents(latin_texts)
            with self._cjk.using() as use:
                out[latin, self._block(2)] = use.embed_documents(latin_texts)
        if chinese:
            with self._cjk.using() as use:
                out[chinese, self._block(1)] = use.embed_documents([texts[i] for i in chinese])
        return unit_rows(out)

    def unload_idle(self, seconds: float) -> tuple[str, ...]:
        """Unload both models once neither was used for `seconds`; the ids of those unloaded.
        The next text that needs one loads it again."""
        return unload_together((self._latin, self._cjk), seconds)

    def until_unload(self, seconds: float) -> float | None:
        """Seconds until neither model will have been used for `seconds`; None: none is loaded."""
        return until_unload((self._latin, self._cjk), seconds)

    def use_parts(self, stored: Sequence[bool]) -> None:
        """Which blocks hold vectors at all. A query skips a model whose blocks are empty: a
        vault not embedded yet loads no model just to embed queries."""
        self.active = tuple(bool(block) for block in stored)

    def knows_word(self, word: str) -> bool | None:
        """Latin words are the MiniLM model's to judge (USE has no tokenizer to ask)."""
        if not self.active[0]:
            return None
        with self._latin.using() as minilm:
            return knows_word(minilm, word)

    def similarity_scales(self, query: str) -> tuple[SimilarityScale, ...]:
        """One scale per block for a question in this script (see SCALES)."""
        return CJK_SCALES if cjk_share(query) >= CJK_SHARE else LATIN_SCALES

    def as_query(self, vectors: Vectors) -> Vectors:
        """Document vectors as queries of their own text: the blocks `embed_query` would fill,
        from the parts a document vector holds. A Latin chunk's `[minilm, 0, use]` becomes
        `[a * minilm, b * use, 0]`, a Chinese one's `[0, use, 0]` becomes `[0, b * use, c * use]`
        (its MiniLM part is not stored; for Chinese text it counts little), so a Chinese note
        reaches English notes through their bridge vectors, as a Chinese question does."""
        rows = unit_rows(np.asarray(vectors, dtype=np.float32).reshape(-1, self.dimension))
        out = np.zeros_like(rows)
        for row, vector in enumerate(rows):
            minilm = vector[self._block(0)]
            chinese = not minilm.any() and not vector[self._block(2)].any()
            use = vector[self._block(1)] if chinese else vector[self._block(2)]
            weights = CJK_QUERY if chinese else LATIN_QUERY
            parts = (minilm, use, use)
            for index in range(3):
                if weights[index] > 0 and self.active[index]:
                    out[row, self._block(index)] = weights[index] * unit_rows(parts[index][None])
        return unit_rows(out)

    def embed_query(self, text: str) -> Vectors:
        weights = CJK_QUERY if cjk_share(text) >= CJK_SHARE else LATIN_QUERY
        wanted = [
            weight > 0 and active for weight, active in zip(weights, self.active, strict=True)
        ]
        out = np.zeros((1, self.dimension), dtype=np.float32)
        if wanted[0]:
            with self._latin.using() as minilm:
                out[:, self._block(0)] = weights[0] * minilm.embed_query(text)
        if wanted[1] or wanted[2]:
            with self._cjk.using() as use:
                vector = use.embed_query(text)
            for index in (1, 2):
                if wanted[index]:
                    out[:, self._block(index)] = weights[index] * vector
        return unit_rows(out)
