"""A vault's embedding models unloaded once idle (`model_idle_seconds`): by the embedding thread
when it has nothing to embed, and loaded again by the next search with the same answers. The
deterministic bilingual embedder, in this process."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from memlsp.embed.bilingual import BilingualEmbedder
from memlsp.embed.lazy import LazyEmbedder
from memlsp.engine.engine import Engine
from memlsp.index.semantic import VectorStatus
from memlsp.live.vectors import EmbeddingLoop
from memlsp.model import SearchRequest, SearchResponse
from memlsp.settings.table import Settings
from memlsp.sync.activity import Activity
from tests.helpers.engine import embed_all
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import write_notes

HANG = 30.0  # seconds: a hang guard, not a timing
NOTES = {
    "lantern.md": "# Lantern\n\nThe harbour lantern is lit at dusk by the keeper.\n",
    "bread.md": "# Bread\n\nSourdough needs a starter and a long, slow rise.\n",
    "灯笼.md": "# 灯笼\n\n港口的灯笼在黄昏由守夜人点亮。\n",
}
QUESTIONS = ["who lights the lantern", "黄昏的灯笼", "slow rise"]


def fake_bilingual() -> BilingualEmbedder:
    latin = LazyEmbedder(lambda: FakeEmbedder(8, "minilm"), 8)
    cjk = LazyEmbedder(lambda: FakeEmbedder(6, "use"), 6)
    return BilingualEmbedder(latin, cjk, "minilm", "use")


def open_vault(root: Path, **settings: object) -> tuple[Engine, BilingualEmbedder]:
    embedder = fake_bilingual()
    chosen = Settings(cache_dir=root / "cache", **settings)  # type: ignore[arg-type]
    engine = Engine.open(write_notes(root / "vault", NOTES), chosen, embedder)
    engine.refresh()
    return engine, embedder


def loaded(embedder: BilingualEmbedder) -> tuple[bool, bool]:
    return embedder.latin.loaded, embedder.cjk.loaded


def search(engine: Engine, query: str) -> SearchResponse:
    return engine.read().search(SearchRequest(query=query, mode="hybrid", expand=False))


def within(seconds: float, check: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_hybrid_search_answers_the_same_after_the_models_are_unloaded(tmp_path: Path) -> None:
    engine, embedder = open_vault(tmp_path, model_idle_seconds=0.05)
    try:
        assert embed_all(engine) == 3
        # Two questions and more, so that the next asks of each embed it again (the vector side
        # keeps only the last question's vector).
        before = [search(engine, question) for question in QUESTIONS]
        assert all(response.hits for response in before)
        assert any(hit.vector_score for response in before for hit in response.hits)
        time.sleep(0.1)
        assert engine.unload_idle_models() is None  # none left loaded
        assert loaded(embedder) == (False, False)
        after = [search(engine, question) for question in QUESTIONS]
        assert after == before  # paths, order, scores and all
        assert loaded(embedder) == (True, True)
        assert (embedder.latin.builds, embedder.cjk.builds) == (2, 2)
    finally:
        engine.close()


def test_models_are_kept_while_model_idle_seconds_is_0(tmp_path: Path) -> None:
    engine, embedder = open_vault(tmp_path, model_idle_seconds=0.0)
    try:
        embed_all(engine)
        time.sleep(0.05)
        assert engine.unload_idle_models() is None
        assert loaded(embedder) == (True, True)
    finally:
        engine.close()


class Loop:
    """An embedding thread over `engine`, as a live vault runs it."""

    def __init__(self, engine: Engine) -> None:
        self.caught_up = threading.Event()
        self.stopping = threading.Event()

        def report(status: VectorStatus, done: bool) -> None:
            if done and status.state == "ready" and status.pending == 0:
                self.caught_up.set()

        self.thread = EmbeddingLoop(
            engine.root, report, lambda: engine, Activity(), self.stopping, lambda _: None
        )

    def __enter__(self) -> EmbeddingLoop:
        self.thread.start()
        return self.thread

    def __exit__(self, *_: object) -> None:
        self.stopping.set()
        self.thread.wake()
        assert self.thread.join(HANG)


def test_the_embedding_thread_unloads_idle_models_and_a_search_loads_them_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine, embedder = open_vault(tmp_path, model_idle_seconds=0.0)
    runs = Loop(engine)
    try:
        with caplog.at_level(logging.INFO), runs as loop:
            assert runs.caught_up.wait(HANG)
            time.sleep(0.5)
            assert loaded(embedder) == (True, True)  # 0: kept for good
            # Read at the next look, without reopening the vault.
            engine.use_settings(replace(engine.read().settings, model_idle_seconds=0.3))
            loop.wake()
            # Well before the thread's 10 s look when it has nothing to embed: it wakes for it.
            assert within(3.0, lambda: loaded(embedder) == (False, False))
            assert "minilm-8 and use-6 unloaded after 0.3 s unused" in caplog.text

            search(engine, QUESTIONS[0])  # an English question: MiniLM, and USE for Chinese notes
            assert loaded(embedder) == (True, True)
            assert "minilm-8 loaded again" in caplog.text
            loop.wake()  # as the writer does after each change
            assert within(3.0, lambda: loaded(embedder) == (False, False))
    finally:
        engine.close()
