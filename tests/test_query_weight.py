"""The vector side's weight grows for a query whose words the vault does not use: a question in
another language than the notes' has keyword hits only on the odd shared word."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.model import SearchRequest
from memlsp.search.hybrid import query_vector_weight
from tests.helpers.engine import embedded_vault
from tests.helpers.fake_embedder import FakeEmbedder


def test_the_weight_rises_from_the_setting_to_one_as_fewer_words_are_known() -> None:
    assert query_vector_weight(0.6, 1.0) == pytest.approx(0.6)
    assert query_vector_weight(0.6, 0.5) == pytest.approx(0.7)
    assert query_vector_weight(0.6, 0.0) == pytest.approx(1.0)


def test_a_half_known_query_lets_its_answer_by_meaning_lead(tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    embedder.synonyms = {"fiddle": "violin", "tune": "duet"}
    notes = {
        "music.md": "# Music\n\nThe violin and the cello play a slow duet.\n",
        "hall.md": "# Hall\n\nThe concert hall was repainted in spring.\n",
        "garden.md": "# Garden\n\nTomatoes and basil grow in the sunny bed.\n",
    }
    engine = embedded_vault(tmp_path, notes, embedder)
    try:
        # "concert" is the vault's word, "fiddle" and "tune" are not: a third of it is known.
        answer = engine.read().search(SearchRequest("fiddle tune concert", expand=False))
        by_path = {hit.chunk.path: hit for hit in answer.hits}
        assert answer.hits[0].chunk.path == "music.md"
        assert by_path["music.md"].keyword_score is None  # found by meaning only
        music, hall, garden = by_path["music.md"], by_path["hall.md"], by_path["garden.md"]
        assert hall.keyword_rank == 1 and music.vector_rank == 1
        assert music.vector_score and hall.vector_score and garden.vector_score is not None

        def fused_ratio(weight: float) -> float:
            """music.md's fused score over hall.md's, min-max over the vector candidates."""
            low, high = garden.vector_score, music.vector_score
            assert low is not None and high is not None and hall.vector_score is not None
            hall_vector = (hall.vector_score - low) / (high - low)
            return weight / ((1 - weight) + weight * hall_vector)

        assert fused_ratio(0.6) < 1  # the setting's weight alone puts the shared word first
        assert music.score / hall.score == pytest.approx(
            fused_ratio(query_vector_weight(0.6, 1 / 3))
        )
    finally:
        engine.close()
