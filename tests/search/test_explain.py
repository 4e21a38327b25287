"""`explain`: a vault built so that each verdict is forced, and the verdict the search gives for
each; explaining never changes the results. Real tantivy and Chroma, the deterministic embedder."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from memlsp import wire
from memlsp.embed.base import SimilarityScale
from memlsp.engine.engine import Engine
from memlsp.model import Explanation, SearchRequest, SearchResponse
from memlsp.settings.table import Settings
from tests.helpers.engine import embed_all
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import touch_later, write_notes

LAMP = "Lantern oil feeds the lamp; a lantern burns oil all night."
NOTES = {
    "lamps.md": f"# Lamps\n\n{LAMP}\n\n## Wick\n\nThe wick of a lamp is trimmed.\n",
    "camping.md": "# Camping\n\nA lantern with oil by the tent. See [[wick maker]].\n",
    "shed.md": "# Shed\n\nThe old lantern in the shed, no oil.\n",
    "ship.md": "# Ship\n\nA storm lantern on deck.\n",
    "mine.md": "# Mine\n\nA miner's lantern.\n",
    "wick maker.md": "# Wick maker\n\nShe twists cotton threads.\n",
    "far.md": "# Far\n\nBicycles and tomatoes in the summer garden.\n",
    "journal/2023-05-01.md": "---\ndate: 2023-05-01\ntags: [diary]\n---\n# Day\n\nLantern oil again.\n",
    "changed.md": "# Changed\n\nNothing about it yet.\n",
    ".hidden/secret.md": f"# Secret\n\n{LAMP}\n",
    "big.md": f"# Big\n\n{LAMP}\n\n" + "filler words here. " * 400,
    "photo.png": "not an image, nor a note",
}
QUERY = "lantern oil"


def scaled_embedder() -> FakeEmbedder:
    """With a scale, as the real models have: a section found by its vector alone must be at
    least this close to be a candidate, so a note far in meaning is none."""
    embedder = FakeEmbedder()
    embedder.scale = SimilarityScale(low=0.1, high=0.9, floor=0.3)
    return embedder


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("explain")
    vault = write_notes(root / "vault", NOTES)
    (vault / "binary.md").write_bytes(b"lantern oil\x00\x00\x01\x02 lantern oil")
    settings = Settings(cache_dir=root / "cache", max_file_bytes=4000)
    opened = Engine.open(vault, settings, scaled_embedder())
    opened.refresh()
    embed_all(opened)
    # Changed on disk after the index read it: the search still answers from the old text.
    (vault / "changed.md").write_text(f"# Changed\n\n{LAMP}\n", encoding="utf-8")
    touch_later(vault / "changed.md")
    yield opened
    opened.close()


def explain(engine: Engine, note: str, query: str = QUERY, **request: Any) -> Explanation:
    response = engine.read().search(SearchRequest(query, explain=(note,), **request))
    (explained,) = response.explained
    return explained


def facts(item: Explanation) -> dict[str, Any]:
    return {name: value for name, value in asdict(item.facts).items() if value is not None}


def test_a_shown_note_has_its_rank_section_and_evidence(engine: Engine) -> None:
    item = explain(engine, "lamps")
    assert (item.verdict, item.path, facts(item)["rank"]) == ("shown", "lamps.md", 1)
    assert item.keyword is not None and item.keyword.rank is not None
    assert set(item.keyword.matched_terms) >= {"lantern", "oil"}
    assert item.vector is not None and item.vector.similarity is not None
    assert "is result 1" in item.sentence


def test_a_second_section_of_a_shown_note_is_merged(engine: Engine) -> None:
    item = explain(engine, "lamps#Wick")
    assert item.verdict == "merged"
    assert "result 1" in item.sentence and "best section" in item.sentence
    shown = explain(engine, "lamps#Wick", sections=True)
    assert shown.verdict != "merged"


@pytest.mark.parametrize(
    ("note", "reason"),
    [
        (".hidden/secret.md", "ignored"),
        ("big.md", "too_large"),
        ("binary.md", "binary"),
        ("photo.png", "not_markdown"),
        ("nowhere/absent.md", "missing"),
        ("no such note", "missing"),
    ],
)
def test_a_file_that_is_no_note_says_why(engine: Engine, note: str, reason: str) -> None:
    item = explain(engine, note)
    assert (item.verdict, facts(item)["reason"]) == ("not_a_note", reason)
    assert item.sentence.startswith(f"“{note}” is not a note")


def test_a_note_changed_on_disk_since_indexing_is_not_indexed_yet(engine: Engine) -> None:
    item = explain(engine, "changed.md")
    assert item.verdict == "not_indexed_yet"
    assert "changed on disk" in item.sentence


@pytest.mark.parametrize(
    ("request_fields", "which"),
    [
        ({"paths": ("journal",)}, "path"),
        ({"tags": ("diary",)}, "tag"),
        ({"start_date": "2024-01-01"}, "date"),
    ],
)
def test_each_filter_that_leaves_a_note_out_is_named(
    engine: Engine, request_fields: dict[str, Any], which: str
) -> None:
    item = explain(engine, "shed", **request_fields)
    assert (item.verdict, facts(item)["filter"]) == ("filtered", which)


def test_a_note_without_a_query_word_far_in_meaning_has_no_evidence(engine: Engine) -> None:
    item = explain(engine, "far")
    assert item.verdict == "no_evidence"
    assert item.keyword is not None and item.keyword.score is None
    assert "lantern" in item.sentence and "oil" in item.sentence


def test_a_note_under_min_score_is_below_the_floor(engine: Engine) -> None:
    response = engine.read().search(SearchRequest(QUERY, expand=False))
    last = response.hits[-1]
    floor = round(last.score + 1e-6, 6)
    item = explain(engine, last.chunk.path, min_score=floor, expand=False)
    assert (item.verdict, item.facts.floor) == ("below_floor", "min_score")
    assert (item.facts.score, item.facts.floor_value) == (last.score, floor)


def test_a_weak_query_says_min_strength(engine: Engine) -> None:
    query = "storm weather forecast"
    assert engine.read().search(SearchRequest(query)).strength < 0.9
    item = explain(engine, "ship", query, min_strength=0.9)
    assert (item.verdict, facts(item)["floor"]) == ("below_floor", "min_strength")
    assert "min-strength 0.90" in item.sentence


def test_a_note_past_the_limit_has_its_rank_and_the_last_score(engine: Engine) -> None:
    whole = engine.read().search(SearchRequest(QUERY, expand=False, limit=10))
    third = whole.hits[2].chunk.path
    item = explain(engine, third, limit=2, expand=False)
    assert (item.verdict, facts(item)["rank"]) == ("beyond_limit", 3)
    assert item.facts.last_score == whole.hits[1].score


def test_a_note_left_out_by_the_budget_says_what_it_needed(engine: Engine) -> None:
    whole = engine.read().search(SearchRequest(QUERY, expand=False))
    second = whole.hits[1].chunk.path
    item = explain(engine, second, budget_tokens=1, expand=False)
    assert (item.verdict, facts(item)["rank"]) == ("cut_by_budget", 2)
    assert item.facts.tokens is not None and item.facts.tokens > 0
    assert item.facts.tokens_left == 0 and "token budget" in item.sentence


def test_a_note_reached_only_as_a_link_is_linked_only(engine: Engine) -> None:
    item = explain(engine, "wick maker")
    assert (item.verdict, item.facts.linked_from) == ("linked_only", "camping.md")
    assert item.facts.linked_rank is not None


def test_a_note_not_yet_embedded_says_so(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", {k: v for k, v in NOTES.items() if "/" not in k})
    opened = Engine.open(vault, Settings(cache_dir=tmp_path / "cache"), scaled_embedder())
    try:
        opened.refresh()
        opened.embed_step(3)  # most recently changed first: the others wait
        waiting = [
            path
            for path, record in opened.read().records.items()
            if record.note is not None and opened.vector_side.embedded_of(record.chunk_ids) == 0
        ]
        assert "far.md" in waiting
        item = explain(opened, "far")
        assert item.verdict == "no_evidence"
        assert item.vector is not None and item.vector.embedded is False
        assert "not embedded yet" in item.sentence
    finally:
        opened.close()


@pytest.mark.parametrize(
    "request_fields",
    [
        {},
        {"limit": 2},
        {"budget_tokens": 1},
        {"sections": True},
        {"mode": "keyword"},
        {"mode": "vector"},
        {"min_score": 0.5},
        {"paths": ("journal",)},
    ],
)
def test_explaining_never_changes_the_results(
    engine: Engine, request_fields: dict[str, Any]
) -> None:
    snapshot = engine.read()
    plain = snapshot.search(SearchRequest(QUERY, **request_fields))
    notes = (*NOTES, "lamps#Wick", "wick maker", "no such note")
    explained = snapshot.search(SearchRequest(QUERY, explain=notes, **request_fields))
    assert len(explained.explained) == len(notes)
    assert _without_explain(explained) == _without_explain(plain)


def _without_explain(response: SearchResponse) -> dict[str, Any]:
    answer = dict(wire.search_answer_json(response))
    answer.pop("explain")
    return answer
