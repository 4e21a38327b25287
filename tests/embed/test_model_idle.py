"""Models unloaded once idle (memlsp/embed/lazy.py): after the idle time and not before, never while
a text is being embedded or the model built, loaded again by the next text with the same vectors.
Deterministic models and a clock the tests move."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Sequence

import numpy as np
import pytest

from memlsp.embed.base import EmbedderError, Vectors
from memlsp.embed.bilingual import BilingualEmbedder
from memlsp.embed.lazy import LazyEmbedder, OneModel
from tests.helpers.fake_embedder import FakeEmbedder

HANG = 30.0  # seconds: a hang guard, not a timing
TEXTS = ["The harbour lantern is lit at dusk.", "港口的灯笼在黄昏点亮。"]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Held(FakeEmbedder):
    """Embeds only once `go` is set, saying when it has started: a model in the middle of a text."""

    def __init__(self, dimension: int, name: str) -> None:
        super().__init__(dimension, name)
        self.started = threading.Event()
        self.go = threading.Event()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.started.set()
        self.go.wait(HANG)
        return super().embed_documents(texts)


def bilingual(clock: Clock, cjk: FakeEmbedder | None = None) -> BilingualEmbedder:
    latin = LazyEmbedder(lambda: FakeEmbedder(8, "minilm"), 8, clock=clock)
    use = LazyEmbedder(lambda: cjk or FakeEmbedder(6, "use"), 6, clock=clock)
    return BilingualEmbedder(latin, use, "minilm", "use")


def test_models_unused_for_the_idle_time_are_unloaded_and_loaded_again_alike() -> None:
    clock = Clock()
    embedder = bilingual(clock)
    vectors = embedder.embed_documents(TEXTS)
    query = embedder.embed_query("when is the lantern lit")
    assert embedder.latin.loaded and embedder.cjk.loaded

    clock.now = 9.5
    assert embedder.unload_idle(10.0) == ()
    assert embedder.until_unload(10.0) == pytest.approx(0.5)
    assert embedder.latin.loaded and embedder.cjk.loaded

    clock.now = 10.0
    assert embedder.unload_idle(10.0) == ("minilm-8", "use-6")
    assert not embedder.latin.loaded and not embedder.cjk.loaded
    assert embedder.until_unload(10.0) is None  # nothing left to unload

    np.testing.assert_array_equal(embedder.embed_documents(TEXTS), vectors)
    np.testing.assert_array_equal(embedder.embed_query("when is the lantern lit"), query)
    assert (embedder.latin.builds, embedder.cjk.builds) == (2, 2)


def test_the_models_go_together_once_neither_was_used_for_the_idle_time() -> None:
    clock = Clock()
    embedder = bilingual(clock)
    embedder.embed_documents(TEXTS)  # both models
    clock.now = 6.0
    embedder.embed_documents(TEXTS[1:])  # a Chinese text: USE alone
    clock.now = 10.0
    assert embedder.unload_idle(10.0) == ()  # MiniLM was not used for 10 s, but USE was
    assert embedder.latin.loaded and embedder.cjk.loaded
    assert embedder.until_unload(10.0) == pytest.approx(6.0)
    clock.now = 16.0
    assert embedder.unload_idle(10.0) == ("minilm-8", "use-6")


def test_a_model_embedding_a_text_is_not_unloaded_however_long_it_takes() -> None:
    clock = Clock()
    held = Held(6, "use")
    embedder = bilingual(clock, held)
    done: list[Vectors] = []
    worker = threading.Thread(target=lambda: done.append(embedder.embed_documents(TEXTS[1:])))
    worker.start()
    try:
        assert held.started.wait(HANG)
        clock.now = 100.0  # long past the idle time, but the text is not embedded yet
        assert embedder.unload_idle(10.0) == ()
        assert embedder.cjk.loaded
        assert embedder.until_unload(10.0) == 10.0  # a whole idle time once it is done
    finally:
        held.go.set()
        worker.join(HANG)
    assert len(done) == 1
    assert embedder.unload_idle(10.0) == ()  # its end was its last use
    clock.now = 110.0
    assert embedder.unload_idle(10.0) == ("use-6",)


def test_a_model_being_built_is_not_unloaded() -> None:
    clock = Clock()
    building, go = threading.Event(), threading.Event()

    def build() -> FakeEmbedder:
        building.set()
        go.wait(HANG)
        return FakeEmbedder(6, "use")

    lazy = LazyEmbedder(build, 6, clock=clock)
    worker = threading.Thread(target=lazy.get)
    worker.start()
    try:
        assert building.wait(HANG)
        clock.now = 100.0
        assert lazy.unload_if_idle(0.0) is None
        assert lazy.unused_for() == 0.0
    finally:
        go.set()
        worker.join(HANG)
    assert lazy.loaded
    assert lazy.unload_if_idle(0.0) == "use-6"


def test_an_unloaded_model_is_freed_at_once() -> None:
    """Nothing keeps a reference: its memory goes back without waiting for the cycle collector."""
    clock = Clock()
    embedder = bilingual(clock)
    embedder.embed_documents(TEXTS)
    embedder.embed_query("lantern")
    models = [weakref.ref(lazy.get()) for lazy in (embedder.latin, embedder.cjk)]
    clock.now = 10.0
    gc.disable()
    try:
        assert len(embedder.unload_idle(10.0)) == 2
        assert [model() for model in models] == [None, None]
    finally:
        gc.enable()


def test_a_one_model_embedder_is_unloaded_and_must_load_as_the_same_model() -> None:
    clock = Clock()
    names = iter(["minilm", "minilm", "another"])
    first = FakeEmbedder(8, next(names))
    one = OneModel(
        LazyEmbedder(lambda: FakeEmbedder(8, next(names)), 8, loaded=first, clock=clock), first.id
    )
    vectors = one.embed_documents(TEXTS)
    clock.now = 5.0
    assert one.unload_idle(5.0) == ("minilm-8",)
    np.testing.assert_array_equal(one.embed_documents(TEXTS), vectors)
    clock.now = 10.0
    assert one.unload_idle(5.0) == ("minilm-8",)
    # Another model under the same name (a model folder whose file was replaced) is not used:
    # the stored vectors are the old model's.
    with pytest.raises(EmbedderError, match="changed since it was loaded"):
        one.embed_query("lantern")
