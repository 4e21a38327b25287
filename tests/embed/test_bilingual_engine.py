"""The default embedder inside the engine: each language read by its model, questions across both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.embed.bilingual import BilingualEmbedder
from memlsp.engine.engine import Engine
from memlsp.model import SearchRequest
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
