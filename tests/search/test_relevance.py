"""A query with nothing relevant in the vault returns nothing, and `score` means the same for every
query: each result's fused score times the query's strength (search/evidence.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from memlsp.embed.base import SimilarityScale
from memlsp.engine.engine import Engine
from memlsp.search.evidence import coverage, strength
from tests.helpers.engine import ask, embedded_vault
from tests.helpers.fake_embedder import FakeEmbedder

# The fake's similarities (shared words over all words): up to 0.2 is what questions without
# answers reach, and below 0.1 nothing is found by meaning.
SCALE = SimilarityScale(low=0.2, high=0.6, floor=0.1)


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    embedder = FakeEmbedder()
    embedder.scale = SCALE
    embedder.synonyms = {"fiddle": "violin", "tune": "duet", "herb": "basil"}
    notes = {
        "music.md": "# Music\n\nThe violin and the cello play a slow duet tonight.\n",
        "garden.md": "# Garden\n\nTomatoes and basil grow in the sunny bed.\n",
        "kitchen.md": "# Kitchen\n\nBasil pesto with pine nuts and garlic.\n",
    }
    return embedded_vault(tmp_path, notes, embedder)


def test_coverage_weighs_each_word_by_its_rarity() -> None:
    weights = {"rare": 3.0, "common": 1.0}
    assert coverage({"rare", "common", "other"}, weights) == 1.0
    assert coverage({"rare"}, weights) == pytest.approx(0.75)
    assert coverage({"common"}, weights) == pytest.approx(0.25)
    assert coverage(set(), weights) == 0.0
    assert coverage({"rare"}, {}) == 0.0


def test_strength_is_the_best_evidence_of_either_side() -> None:
    assert strength([1.0, 0.2], [0.1]) == 1.0  # every rare word of the query, in one chunk
    assert strength([0.5], []) == pytest.approx(0.5**3)  # half of them is weak evidence
    assert strength([], [0.4, 0.7]) == 0.7
    assert strength([], []) == 0.0


def test_scale_evidence_runs_from_low_to_high() -> None:
    assert SCALE.evidence(0.2) == 0.0 and SCALE.evidence(0.1) == 0.0
    assert SCALE.evidence(0.4) == pytest.approx(0.5)
    assert SCALE.evidence(0.95) == 1.0


def test_a_question_no_note_answers_returns_nothing(engine: Engine) -> None:
    # No word of the vault, and every chunk far from it: neighbours, not answers.
    answer = ask(engine, "sourdough starter")
    assert answer.hits == () and answer.strength < 0.1
    assert any("nothing in the vault answers this closely" in w for w in answer.warnings)
    # The same question, when the user wants the nearest notes anyway.
    engine.use_settings(replace(engine.read().settings, min_strength=0.0))
    assert ask(engine, "fiddle and tune", mode="vector").hits


def test_a_question_answered_by_meaning_alone_finds_its_note(engine: Engine) -> None:
    answer = ask(engine, "fiddle tune")
    assert answer.counts.keyword == 0
    assert answer.hits[0].chunk.path == "music.md"
    first = answer.hits[0]
    assert first.vector_score is not None
    assert answer.strength == pytest.approx(SCALE.evidence(first.vector_score), abs=1e-6)
    assert first.score == pytest.approx(answer.strength, abs=1e-6)  # first on the only side


def test_vector_only_candidates_below_the_floor_are_not_results(engine: Engine) -> None:
    answer = ask(engine, "fiddle tune", mode="vector", limit=10)
    assert answer.hits and all(
        hit.vector_score is not None and hit.vector_score >= SCALE.floor for hit in answer.hits
    )
    # The floor does not apply to a chunk that has the query's words.
    kept = ask(engine, "fiddle tune garden", limit=10)
    garden = [hit for hit in kept.hits if hit.chunk.path == "garden.md"]
    assert garden and garden[0].keyword_rank == 1


def test_scores_compare_across_queries(engine: Engine) -> None:
    exact = ask(engine, "violin cello duet")  # every rare word in one chunk
    loose = ask(engine, "fiddle tune")  # by meaning only
    assert exact.hits[0].chunk.path == loose.hits[0].chunk.path == "music.md"
    assert exact.strength == pytest.approx(1.0)
    assert loose.hits[0].score < exact.hits[0].score
    # One --min-score keeps the exact answer and drops the looser one.
    threshold = (loose.hits[0].score + exact.hits[0].score) / 2
    assert ask(engine, "violin cello duet", min_score=threshold).hits
    assert not ask(engine, "fiddle tune", min_score=threshold).hits


def test_keyword_mode_lists_every_note_with_the_words(engine: Engine) -> None:
    answer = ask(engine, "basil", mode="keyword")
    assert {hit.chunk.path for hit in answer.hits} == {"garden.md", "kitchen.md"}
