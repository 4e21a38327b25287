"""The default embedder inside the engine: each language read by its model, questions across both ways."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memlsp.embed.bilingual import BilingualEmbedder
from memlsp.engine.engine import Engine
from memlsp.model import SearchRequest, SearchResponse
from memlsp.settings.table import Settings
from tests.helpers.engine import embed_all
from tests.helpers.vault import write

pytestmark = pytest.mark.e2e  # MiniLM's int8 conversion runs in a child process


def test_each_language_is_read_by_its_model_and_both_ways_across(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, "laptop.md", "# Laptop\n\nKeep the notebook computer cool: clean the fans.\n")
    write(vault, "bread.md", "# Bread\n\nSourdough needs a starter and a long, slow rise.\n")
    engine = Engine.open(vault, Settings(cache_dir=tmp_path / "cache"))
    try:
        engine.refresh()
        assert embed_all(engine) == 2
        embedder = engine.vector_side.embedder
        assert isinstance(embedder, BilingualEmbedder)
        # MiniLM and the bridge hold the English notes; no Chinese note yet.
        assert embedder.active == (True, False, True)
        found = engine.read().search(SearchRequest("my computer overheats", mode="vector", limit=1))
        assert found.hits[0].chunk.path == "laptop.md"
        # A Chinese question about an English note, through the note's bridge vector.
        chinese = engine.read().search(SearchRequest("面包怎么发酵", mode="vector", limit=1))
        assert chinese.hits[0].chunk.path == "bread.md"

        write(vault, "咖啡.md", "# 咖啡\n\n咖啡因让人清醒，但下午喝太多会影响睡眠。\n")
        engine.refresh()
        assert embed_all(engine) == 1
        assert embedder.active == (True, True, True)
        chinese = engine.read().search(SearchRequest("喝咖啡睡不着怎么办", mode="vector", limit=1))
        assert chinese.hits[0].chunk.path == "咖啡.md"
        english = engine.read().search(
            SearchRequest("does coffee hurt my sleep", mode="vector", limit=1)
        )
        assert english.hits[0].chunk.path == "咖啡.md"  # across languages, through USE
    finally:
        engine.close()


def test_a_hybrid_search_answers_the_same_once_the_models_are_loaded_again(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    write(vault, "laptop.md", "# Laptop\n\nKeep the notebook computer cool: clean the fans.\n")
    write(vault, "bread.md", "# Bread\n\nSourdough needs a starter and a long, slow rise.\n")
    write(vault, "咖啡.md", "# 咖啡\n\n咖啡因让人清醒，但下午喝太多会影响睡眠。\n")
    settings = Settings(cache_dir=tmp_path / "cache", model_idle_seconds=0.05)
    engine = Engine.open(vault, settings)
    try:
        engine.refresh()
        assert embed_all(engine) == 3
        embedder = engine.vector_side.embedder
        assert isinstance(embedder, BilingualEmbedder)
        # English and Chinese, each asked again after the other: the vector side remembers only
        # the last question's vector, so each is embedded again by the reloaded models.
        questions = ["my computer overheats", "面包怎么发酵", "does coffee hurt my sleep", "睡眠"]

        def answers() -> list[SearchResponse]:
            return [
                engine.read().search(SearchRequest(question, mode="hybrid", expand=False))
                for question in questions
            ]

        before = answers()
        assert all(response.hits for response in before)
        time.sleep(0.1)
        assert engine.unload_idle_models() is None
        assert not embedder.latin.loaded and not embedder.cjk.loaded
        assert answers() == before  # paths, order, scores and all
        assert (embedder.latin.builds, embedder.cjk.builds) == (2, 2)  # built again
    finally:
        engine.close()
