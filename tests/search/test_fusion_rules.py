"""The fusion rule a search uses: the vault's `fusion` setting, or the request's own, through the
engine with the deterministic embedder, on a vault where the two rules disagree."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from memlsp.engine.engine import Engine
from memlsp.model import SearchResponse
from memlsp.search.request import build_request
from memlsp.settings.table import settings_from
from tests.helpers.engine import ask, embedded_vault
from tests.helpers.fake_embedder import FakeEmbedder

# "heron migration": no note has "migration", the rarer word. herons.md and pond.md have "heron"
# (herons.md first by keywords, and second by meaning, far below the first); otters.md means it
# ("otter" embeds as "heron") and is first by meaning alone. Weighing evidence puts the one that
# answers far better by meaning first, the keyword hits holding only half the question; adding
# ranks puts the note both sides found near the top first.
QUESTION = "heron migration"
NOTES = {
    "otters.md": "Otter otter otter.\n",
    "herons.md": "# Birds\n\nA heron heron stood in the reeds with grey wings folded, beside the "
    "old mill and its pond.\n",
    "pond.md": "# Pond\n\nA heron once came to the pond, where frogs and ducks and carp and newts "
    "and reeds and lilies and dragonflies and snails and beetles live all summer long.\n",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    embedder = FakeEmbedder()
    embedder.synonyms = {"otter": "heron"}
    engine = embedded_vault(tmp_path_factory.mktemp("fusion"), NOTES, embedder)
    yield engine
    engine.close()


@pytest.fixture
def settings(engine: Engine) -> Iterator[None]:
    """Each test changes the engine's settings at will; they are put back after it."""
    before = engine.read().settings
    yield
    engine.use_settings(before)


def _ranking(response: SearchResponse) -> list[tuple[str, int | None, int | None]]:
    return [(hit.chunk.path, hit.keyword_rank, hit.vector_rank) for hit in response.hits]


def test_the_rules_disagree_on_the_first_result(engine: Engine) -> None:
    evidence = ask(engine, QUESTION)
    assert evidence.fusion == "evidence"  # the default
    assert _ranking(evidence) == [
        ("otters.md", None, 1),
        ("herons.md", 1, 2),
        ("pond.md", 2, 3),
    ]
    rrf = ask(engine, QUESTION, fusion="rrf")
    assert rrf.fusion == "rrf" and rrf.strength == evidence.strength > 0.5
    assert _ranking(rrf) == [("herons.md", 1, 2), ("pond.md", 2, 3), ("otters.md", None, 1)]
    # weight / (60 + rank) summed over the sides, relative to the first, times the strength
    first = 1 / 61 + 1 / 62
    scores = [hit.score / rrf.strength for hit in rrf.hits]
    assert scores == pytest.approx([1.0, (1 / 62 + 1 / 63) / first, (1 / 61) / first])


@pytest.mark.parametrize("fusion", ["evidence", "rrf"])
def test_the_first_result_does_not_depend_on_the_limit(engine: Engine, fusion: str) -> None:
    for question in ("heron", QUESTION):
        longest = _ranking(ask(engine, question, fusion=fusion, limit=10))
        for limit in (1, 2, 3):
            assert _ranking(ask(engine, question, fusion=fusion, limit=limit)) == longest[:limit]


@pytest.mark.usefixtures("settings")
def test_the_vault_setting_chooses_the_rule_and_a_request_overrides_it(engine: Engine) -> None:
    chosen, problems = settings_from({"fusion": "rrf"}, engine.read().settings)
    assert problems == []
    engine.use_settings(chosen)
    answer = ask(engine, QUESTION)
    assert answer.fusion == "rrf" and answer.hits[0].chunk.path == "herons.md"
    asked = ask(engine, QUESTION, fusion="evidence")
    assert asked.fusion == "evidence" and asked.hits[0].chunk.path == "otters.md"


@pytest.mark.usefixtures("settings")
def test_the_rrf_settings_weigh_the_sides_and_set_k(engine: Engine) -> None:
    base = engine.read().settings
    engine.use_settings(replace(base, rrf_keyword_weight=0.0))
    # The keyword side counts for nothing: the order is the vector side's.
    muted = ask(engine, "heron", fusion="rrf")
    assert [path for path, _, _ in _ranking(muted)] == ["otters.md", "herons.md", "pond.md"]
    assert muted.hits[0].score == 1.0
    # A side alone keeps weight 1, whatever its rrf weight.
    alone = ask(engine, "heron", fusion="rrf", mode="keyword")
    assert [(hit.chunk.path, hit.score) for hit in alone.hits] == [
        ("herons.md", 1.0),
        ("pond.md", round(61 / 62, 12)),
    ]
    # The vector side 4 times the keyword side. k = 60: 4/61 (otters.md) against 1/61 + 4/62;
    # k = 1 gives the first ranks more say: 4/2 against 1/2 + 4/3.
    engine.use_settings(replace(base, rrf_vector_weight=4.0))
    assert ask(engine, "heron", fusion="rrf").hits[0].chunk.path == "herons.md"
    engine.use_settings(replace(base, rrf_vector_weight=4.0, rrf_k=1))
    steep = ask(engine, "heron", fusion="rrf")
    assert [hit.chunk.path for hit in steep.hits[:2]] == ["otters.md", "herons.md"]
    # Scores relative to the first, whose strength ("heron" is in two notes word for word) is 1.
    assert [hit.score for hit in steep.hits[:2]] == pytest.approx([1.0, (1 / 2 + 4 / 3) / 2])


def test_a_request_with_an_unknown_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="'fusion' must be one of evidence, rrf, not 'borda'"):
        build_request({"query": "heron", "fusion": "borda"})
    assert build_request({"query": "heron"}).fusion is None
    assert build_request({"query": "heron", "fusion": "rrf"}).fusion == "rrf"
