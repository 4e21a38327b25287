"""A query that neither the vault nor the embedding model has a word for returns nothing: the
vector side always has nearest neighbours, and for `qwzxplk` they are not answers. A question in
real words still finds by meaning a note that shares none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.engine.engine import Engine
from memlsp.settings.table import Settings
from tests.helpers.engine import ask, embed_all
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import write


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    vault = tmp_path / "vault"
    write(vault, "garden.md", "# Garden\n\nTomatoes and basil grow in the sunny bed.\n")
    write(vault, "music.md", "# Music\n\nThe violin and the cello play a slow duet.\n")
    embedder = FakeEmbedder()
    embedder.vocabulary = {"fiddle", "violin", "cello", "garden", "tomatoes"}
    embedder.synonyms = {"qwzxplk": "violin", "fiddle": "violin"}  # neighbours exist either way
    settings = Settings(cache_dir=tmp_path / "cache", vector_retry_seconds=0.05)
    engine = Engine.open(vault, settings, embedder)
    engine.refresh()
    embed_all(engine)
    return engine


def test_words_nobody_knows_return_nothing(engine: Engine) -> None:
    for mode in ("hybrid", "vector"):
        answer = ask(engine, "qwzxplk", mode=mode)
        assert answer.hits == ()
        assert "no note and no model knows these words" in " ".join(answer.warnings)


def test_a_real_word_the_vault_never_uses_still_finds_by_meaning(engine: Engine) -> None:
    answer = ask(engine, "fiddle")
    assert answer.counts.keyword == 0
    assert [hit.chunk.path for hit in answer.hits][:1] == ["music.md"]


def test_a_word_of_the_vault_keeps_its_results(engine: Engine) -> None:
    engine.vector_side.embedder.vocabulary = set()  # type: ignore[union-attr]  # the model reads nothing
    assert [hit.chunk.path for hit in ask(engine, "cello").hits][:1] == ["music.md"]
