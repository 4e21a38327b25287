"""Related notes (search/related.py): real tantivy and Chroma on temporary vaults, vectors from the
deterministic test embedder; the bilingual layout at the vector level with hand-made vectors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from memlsp.cli import main
from memlsp.embed.base import as_query
from memlsp.embed.bilingual import LATIN_QUERY, BilingualEmbedder
from memlsp.embed.lazy import LazyEmbedder
from memlsp.engine.backfill import Backfill
from memlsp.engine.engine import Engine
from memlsp.index.vectors import VectorStore
from memlsp.search.related import (
    LINKED,
    NEEDS_VECTORS,
    SAME_FOLDER,
    PairScore,
    Ties,
    Weights,
    combine,
    compared_pairs,
    note_ties,
    section_pairs,
)
from memlsp.settings.table import Settings
from tests.helpers.engine import embedded_vault, indexed_engine
from tests.helpers.fake_embedder import FakeEmbedder, user_config_for
from tests.helpers.fixtures import endpoint_fixture
from tests.helpers.vault import write_notes

NOTES = {
    "fusion.md": (
        "---\ntags: [search, ranking]\n---\n# Fusion\n\n"
        "Reciprocal rank fusion merges keyword rankings and vector rankings. See [[rrf]].\n"
    ),
    "rrf.md": (
        "# RRF\n\n#Search\n\n## History\n\nCormack wrote it in 2009.\n\n"
        "## Formula\n\nReciprocal rank fusion sums one over k plus rank of keyword and vector "
        "rankings.\n"
    ),
    "bm25.md": "# BM25\n\nKeyword rankings of documents, fused with vector rankings.\n",
    "inbound.md": "# Inbound\n\nRank fusion of rankings, as [[fusion]] says.\n",
    "cooking.md": "# Cooking\n\nBake bread with flour, water and yeast.\n",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = embedded_vault(tmp_path_factory.mktemp("related"), NOTES, FakeEmbedder())
    yield engine
    engine.close()


def test_the_nearest_notes_come_first_and_the_note_itself_never(engine: Engine) -> None:
    answer = engine.read().related("fusion.md")
    paths = [note.path for note in answer.results]
    assert answer.note == "fusion.md" and answer.warning == ""
    assert "fusion.md" not in paths
    assert paths[0] == "rrf.md" and paths.index("bm25.md") < paths.index("cooking.md")
    scores = [note.score for note in answer.results]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)


def test_linked_notes_are_marked_not_hidden(engine: Engine) -> None:
    results = {note.path: note for note in engine.read().related("fusion.md").results}
    assert results["rrf.md"].linked  # fusion links to it
    assert results["inbound.md"].linked  # it links to fusion
    assert not results["bm25.md"].linked and not results["cooking.md"].linked


def test_the_closest_sections_shared_tags_and_reason(engine: Engine) -> None:
    rrf = engine.read().related("fusion.md").results[0]
    assert rrf.closest.mine == ("Fusion",) and rrf.closest.mine_line == 4
    assert rrf.closest.theirs == ("RRF", "Formula") and rrf.closest.theirs_line == 9
    assert 0 < rrf.closest.similarity <= 1
    assert rrf.shared_tags == ("search",)  # tags compare without case; `ranking` is not theirs
    # Each tie that added to its score: it is linked, its text has this note's title, and both
    # sit at the vault's root.
    assert rrf.linked and rrf.mentions == "Fusion" and rrf.same_folder
    assert rrf.reason == (
        f"“Fusion” ↔ “RRF › Formula” ({rrf.closest.similarity:.2f}); linked; mentions “Fusion”; "
        "same folder; shared tags #search"
    )
    bm25 = next(n for n in engine.read().related("fusion.md").results if n.path == "bm25.md")
    assert bm25.shared_tags == () and "shared tags" not in bm25.reason


def test_limit(engine: Engine) -> None:
    assert len(engine.read().related("fusion.md", limit=2).results) == 2
    assert len(engine.read().related("fusion.md", limit=1).results) == 1


def test_without_an_embedder_a_warning_and_no_results(tmp_path: Path) -> None:
    engine = indexed_engine(tmp_path, NOTES)
    try:
        answer = engine.read().related("fusion.md")
        assert (answer.results, answer.warning) == ((), NEEDS_VECTORS)
        assert answer.warning == "related notes need vectors (embedder = none)"
        assert engine.read().related("nowhere.md").warning == "not an indexed note"
    finally:
        engine.close()


def _planned(root: Path) -> tuple[Engine, FakeEmbedder]:
    """Indexed and planned, nothing embedded yet."""
    embedder = FakeEmbedder()
    write_notes(root / "vault", NOTES)
    engine = Engine.open(root / "vault", Settings(cache_dir=root / "cache"), embedder)
    engine.refresh()
    assert Backfill(engine).plan().pending == 6  # rrf.md's first chunk is a tag, not prose
    return engine, embedder


def test_a_note_not_embedded_yet_says_how_many_chunks_wait(tmp_path: Path) -> None:
    engine, _ = _planned(tmp_path)
    try:
        answer = engine.read().related("rrf.md")
        assert answer.results == ()
        assert answer.warning == "this note's vectors are not made yet (2 chunks waiting)"
    finally:
        engine.close()


def _pair(path: str, chunk: str, placed: float, similarity: float = 0.5) -> PairScore:
    return PairScore(0, chunk, path, similarity, placed)


NO_BONUS = Weights(linked=0.0, mentions=0.0, same_folder=0.0)


def test_combine_scores_the_best_pair_plus_a_share_of_a_second_section() -> None:
    pairs = [
        _pair("a.md", "a#1", 0.8),
        _pair("a.md", "a#1", 0.6),  # the same section again, asked by another: its best counts
        _pair("b.md", "b#1", 0.7),
        _pair("b.md", "b#2", 0.6),
        _pair("c.md", "c#1", 1.5),  # beyond `high` on the scale
        _pair("d.md", "d#1", -0.4),  # below `low`
    ]
    half = replace(NO_BONUS, second=0.5)
    scores = {n.path: n.score for n in combine(pairs, weights=half)}
    assert scores["a.md"] == pytest.approx(0.8 / 1.5)
    assert scores["b.md"] == pytest.approx((0.7 + 0.5 * 0.6) / 1.5)
    assert scores["c.md"] == pytest.approx(1.0)
    assert scores["d.md"] == pytest.approx(-0.4 / 1.5)
    ranked = combine(pairs, weights=half)
    assert [n.path for n in ranked] == ["c.md", "b.md", "a.md", "d.md"]
    assert ranked[1].best.theirs == "b#1"
    # Without the second section's share, a.md leads b.md; by raw cosine they tie, by path.
    assert [n.path for n in combine(pairs, weights=NO_BONUS)][1:3] == ["a.md", "b.md"]
    raw = replace(NO_BONUS, placed=False)
    assert [n.path for n in combine(pairs, weights=raw)][:2] == ["a.md", "b.md"]


def test_combine_keeps_the_order_beyond_the_top_of_the_scale() -> None:
    pairs = [_pair("a.md", "a#1", 1.1), _pair("b.md", "b#1", 1.6), _pair("c.md", "c#1", 1.3)]
    ranked = combine(pairs, Ties(linked=frozenset({"a.md"})), replace(NO_BONUS, linked=0.3))
    assert [(n.path, round(n.score, 6)) for n in ranked] == [
        ("b.md", 1.6),
        ("a.md", 1.4),
        ("c.md", 1.3),
    ]


def test_combine_adds_a_bonus_for_each_tie() -> None:
    pairs = [
        _pair("x/a.md", "a#1", 0.9),
        _pair("b.md", "b#1", 0.5),
        _pair("x/c.md", "c#1", 0.4),
        _pair("d.md", "d#1", 0.6),
    ]
    ties = Ties(frozenset({"b.md"}), {"d.md": 0.5, "b.md": 1.0}, folder="x")
    scores = {n.path: n.score for n in combine(pairs, ties)}
    assert scores == pytest.approx(
        {
            "x/a.md": 0.9 + SAME_FOLDER,
            "b.md": 0.5 + LINKED + Weights().mentions,
            "x/c.md": 0.4 + SAME_FOLDER,
            "d.md": 0.6 + 0.5 * Weights().mentions,
        }
    )
    assert [n.path for n in combine(pairs, ties)] == ["b.md", "x/a.md", "d.md", "x/c.md"]
    # No folder: nothing is in it (a note at the root has folder "").
    assert Ties(folder="").in_folder("b.md") and not Ties().in_folder("b.md")
    assert not Ties(folder="x").in_folder("x/y/a.md")


# -- candidates besides the nearest chunks --------------------------------------------------------

TIED = {
    "topic/hiit.md": "# HIIT\n\nInterval training: short sprints and rest, heart rate high.\n",
    "topic/epoc.md": "# EPOC\n\nOxygen use after exercise. See [[hiit]].\n",
    "topic/cardio.md": "# Cardio\n\nSteady running keeps the heart rate moderate.\n",
    "elsewhere/plan.md": "# Plan\n\nMonday HIIT, Tuesday rest, Wednesday HIIT again.\n",
    "elsewhere/bread.md": "# Bread\n\nFlour, water and yeast.\n",
}


def test_ties_and_the_pairs_of_notes_the_nearest_chunks_missed(tmp_path: Path) -> None:
    engine = embedded_vault(tmp_path, TIED, FakeEmbedder())
    try:
        snapshot = engine.read()
        graph, keyword, side = snapshot.graph, snapshot.keyword, snapshot.vectors.side
        assert side is not None
        ties = note_ties("topic/hiit.md", graph, keyword)
        assert ties.linked == {"topic/epoc.md"} and ties.folder == "topic"
        # Their text has "HIIT" (epoc.md in its link)
        assert set(ties.mentions) == {"elsewhere/plan.md", "topic/epoc.md"}
        assert ties.mentions["elsewhere/plan.md"] == pytest.approx(1.0)
        assert ties.candidates() == ["topic/epoc.md", "elsewhere/plan.md"]
        found = section_pairs("topic/hiit.md", graph, keyword, side, 10)
        # As if the store's nearest had missed them: computed directly, the same pairs.
        missed = replace(
            found, pairs=tuple(p for p in found.pairs if p.path not in ties.candidates())
        )
        more = compared_pairs("topic/hiit.md", missed, ties.candidates(), graph, keyword, side)
        nearest = {(p.mine, p.theirs): p for p in found.pairs if p.path in ties.candidates()}
        assert {(p.mine, p.theirs) for p in more} == set(nearest)
        for pair in more:
            known = nearest[(pair.mine, pair.theirs)]
            assert pair.path == known.path
            assert pair.similarity == pytest.approx(known.similarity, abs=1e-5)
            assert pair.placed == pytest.approx(known.placed, abs=1e-5)
        # Notes the nearest did reach are not compared again.
        assert compared_pairs("topic/hiit.md", found, ties.candidates(), graph, keyword, side) == ()
        results = {n.path: n for n in snapshot.related("topic/hiit.md").results}
        assert results["elsewhere/plan.md"].mentions == "HIIT"
        assert "mentions “HIIT”" in results["elsewhere/plan.md"].reason
        assert not results["elsewhere/plan.md"].same_folder
        assert results["topic/cardio.md"].same_folder and not results["topic/cardio.md"].mentions
        assert results["topic/cardio.md"].reason.endswith("; same folder")
        epoc = results["topic/epoc.md"]
        assert epoc.linked and "; linked" in epoc.reason
        assert not results["elsewhere/bread.md"].linked
        assert results["elsewhere/bread.md"].reason.count(";") == 0  # its meaning alone
    finally:
        engine.close()


# -- the bilingual layout: a Chinese note reaches English ones, and back --------------------------


def _bilingual(minilm: int = 8, use: int = 6) -> BilingualEmbedder:
    latin = LazyEmbedder(lambda: FakeEmbedder(minilm, "minilm"), minilm)
    cjk = LazyEmbedder(lambda: FakeEmbedder(use, "use"), use)
    return BilingualEmbedder(latin, cjk, "minilm", "use")


def test_as_query_moves_the_use_part_where_a_question_of_that_script_reads() -> None:
    embedder = _bilingual()
    use = np.array([1, 2, 0, 0, 1, 0], dtype=np.float32)
    minilm = np.arange(1, 9, dtype=np.float32)
    # As the embedder stores them: each model's vector of unit length, the whole made unit.
    unit_minilm, unit_use = minilm / np.linalg.norm(minilm), use / np.linalg.norm(use)
    english = np.concatenate([unit_minilm, np.zeros(6), unit_use]) / np.sqrt(2)
    chinese = np.concatenate([np.zeros(8), unit_use, np.zeros(6)])
    # Read as they are stored, a Chinese and an English note have nothing in common.
    assert float(english @ chinese) == 0.0
    asked = as_query(embedder, chinese)[0]
    unit = use / np.linalg.norm(use)
    expected = np.concatenate([np.zeros(8), unit, 0.6 * unit]) / np.linalg.norm([1.0, 0.6])
    assert np.allclose(asked, expected, atol=1e-6)
    assert float(asked @ english) > 0.3  # through the bridge
    back = as_query(embedder, english)[0]
    weights = np.array(LATIN_QUERY) / np.linalg.norm(LATIN_QUERY)
    assert np.allclose(back[:8], weights[0] * minilm / np.linalg.norm(minilm), atol=1e-6)
    assert np.allclose(back[8:14], weights[1] * unit, atol=1e-6)
    assert not back[14:].any()
    assert float(back @ chinese) > 0.3  # an English note reaches Chinese ones by USE
    # An embedder without `as_query` asks with the vector itself.
    plain = np.array([3.0, 4.0], dtype=np.float32)
    assert np.allclose(as_query(FakeEmbedder(2), plain)[0], [0.6, 0.8])


def test_the_store_finds_across_languages_with_a_batched_query(tmp_path: Path) -> None:
    embedder = _bilingual()
    store = VectorStore(tmp_path / "vectors", str(tmp_path / "vault"), embedder.id, embedder.parts)
    use = np.array([1, 2, 0, 0, 1, 0], dtype=np.float32)
    english = np.concatenate([np.arange(1, 9, dtype=np.float32), np.zeros(6), use])
    chinese = np.concatenate([np.zeros(8), use + 0.1, np.zeros(6)])
    other = np.concatenate([np.zeros(8), np.array([0, 0, 3, 1, 0, 2], np.float32), np.zeros(6)])
    ids = ["en.md#0", "zh.md#0", "other.md#0"]
    rows = np.stack([english, chinese, other])
    store.upsert(ids, rows / np.linalg.norm(rows, axis=1, keepdims=True), ["en.md", "zh.md", "o"])
    kept = store.vectors(["en.md#0", "zh.md#0", "gone#0"])
    assert set(kept) == {"en.md#0", "zh.md#0"}  # a chunk without a vector is absent
    assert np.allclose(kept["en.md#0"], english / np.linalg.norm(english), atol=1e-6)
    assert not kept["zh.md#0"][:8].any() and not kept["zh.md#0"][14:].any()
    asked = np.concatenate([as_query(embedder, kept[i]) for i in ("zh.md#0", "en.md#0")])
    from_zh, from_en = store.query_many(asked, 3)
    assert [hit.chunk_id for hit in from_zh][:2] == ["zh.md#0", "en.md#0"]
    assert from_zh[1].block == 2  # the English note, through its bridge vector
    assert [hit.chunk_id for hit in from_en][:2] == ["en.md#0", "zh.md#0"]
    assert from_en[1].block == 1
    # One row asked alone gives what it gives in the batch.
    assert store.query(asked[0], 3) == from_zh
    # Computed from the stored vectors, the same similarities in the same blocks.
    paths = {"en.md#0": "en.md", "zh.md#0": "zh.md", "other.md#0": "o"}
    compared = store.compare(asked, store.vectors(ids), paths)
    for mine, theirs in zip(compared, (from_zh, from_en), strict=True):
        assert [(h.chunk_id, h.path, h.block) for h in mine] == [
            (h.chunk_id, h.path, h.block) for h in theirs
        ]
        assert [h.similarity for h in mine] == pytest.approx([h.similarity for h in theirs])
    assert store.compare(asked, {}, {}) == [[], []]


# -- the command line -----------------------------------------------------------------------------


endpoint = endpoint_fixture(64)


def test_the_command_embeds_first_then_answers_in_text_and_json(
    tmp_path: Path,
    endpoint: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    user_config_for(endpoint, tmp_path / "config", 64)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    cache = ("--cache-dir", str(tmp_path / "cache"), "--no-daemon")
    assert main(["related", str(vault), "Fusion", "--json", *cache]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["note"] == "fusion.md" and "warning" not in data
    first = data["results"][0]
    assert set(first) == {
        "path", "title", "score", "linked", "reason", "closest", "shared_tags",
    }  # fmt: skip
    assert (first["path"], first["title"], first["linked"]) == ("rrf.md", "RRF", True)
    assert first["closest"]["theirs"] == ["RRF", "Formula"] and first["shared_tags"] == ["search"]
    assert set(first["closest"]) == {"mine", "mine_line", "theirs", "theirs_line", "similarity"}
    assert main(["related", str(vault), "fusion.md", "--limit", "2", *cache]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0] == f"{first['score']:.2f}  rrf.md  [linked]  {first['reason']}"
    assert "[linked]" not in lines[1] or lines[1].split("  ")[1] == "inbound.md"
    assert main(["related", str(vault), "no such note", *cache]) == 2
    assert "no note 'no such note'" in capsys.readouterr().err


def test_the_command_without_vectors_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    args = ["related", str(vault), "fusion", "--embedder", "none", "--no-daemon"]
    assert main([*args, "--cache-dir", str(tmp_path / "cache")]) == 0
    assert capsys.readouterr().out == f"note: {NEEDS_VECTORS}\n"
    assert main([*args, "--cache-dir", str(tmp_path / "cache"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {"note": "fusion.md", "results": [], "warning": NEEDS_VECTORS}


def test_a_score_is_shown_over_the_most_a_note_can_score() -> None:
    weights = Weights()
    most = 1.0 + weights.linked + weights.mentions + weights.same_folder
    assert weights.shown(most) == 1.0 and weights.shown(most / 2) == pytest.approx(0.5)
    assert weights.shown(-0.3) == 0.0 and weights.shown(2 * most) == 1.0
    # Two notes beyond the scale's top keep their order as shown.
    assert weights.shown(1.4) > weights.shown(1.2)
