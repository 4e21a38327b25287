"""Fusion (memlsp/search/fusion.py): evidence fusion and reciprocal rank fusion, pure functions,
checked on hand-made lists."""

from __future__ import annotations

from collections.abc import Hashable

import pytest

from memlsp.search.fusion import reciprocal_rank, weigh_evidence

TIES: dict[Hashable, tuple[str, int]] = {key: (key, 0) for key in "abcdefghij"}


def test_the_score_is_the_weighted_mean_of_each_sides_evidence() -> None:
    fused = weigh_evidence([[("a", 0.8), ("b", 0.2)], [("b", 0.6), ("a", 0.4)]], [0.5, 0.5], TIES)
    assert [(f.key, f.score, f.ranks) for f in fused] == [("a", 0.6, (1, 2)), ("b", 0.4, (2, 1))]


def test_keyword_hits_without_real_evidence_barely_move_the_vector_order() -> None:
    """Keyword hits on one incidental word (coverage 0.2, evidence 0.04) against the answer
    found by meaning: min-max scaling gave the best such hit 1.0 and put it first."""
    keyword = [("a", 0.04), ("b", 0.03), ("c", 0.02)]
    vector = [("j", 0.55), ("a", 0.45), ("b", 0.44)]
    fused = weigh_evidence([keyword, vector], [0.5, 0.5], TIES)
    assert [f.key for f in fused][:3] == ["j", "a", "b"]


def test_a_word_for_word_match_still_wins() -> None:
    keyword = [("i", 1.0), ("a", 0.1)]
    vector = [("j", 0.9), ("a", 0.5), ("i", 0.3)]
    assert weigh_evidence([keyword, vector], [0.5, 0.5], TIES)[0].key == "i"


def test_a_side_that_missed_a_key_counts_its_weakest_candidate_or_nothing() -> None:
    # "c" is not among the vector side's candidates, whose weakest is below its scale (-0.2):
    # "c" counts there as -0.2, not as 0, which would lift it above "b".
    fused = weigh_evidence([[("c", 0.5), ("b", 0.4)], [("b", 0.3), ("d", -0.2)]], [0.5, 0.5], TIES)
    scores = {f.key: f.score for f in fused}
    assert scores == {"b": 0.35, "c": 0.15, "d": -0.1}
    # A side whose candidates are all positive counts a missed key at 0.
    fused = weigh_evidence([[("c", 0.5)], [("b", 0.3)]], [0.5, 0.5], TIES)
    assert {f.key: f.score for f in fused} == {"c": 0.25, "b": 0.15}


def test_ties_break_by_path_and_a_side_that_found_nothing_leaves_the_others_order() -> None:
    tied = weigh_evidence([[("c", 0.5), ("a", 0.5)]], [1.0], TIES)
    assert [f.key for f in tied] == ["a", "c"]
    fused = weigh_evidence([[("a", 0.9), ("b", 0.5), ("c", 0.1)], []], [0.3, 0.7], TIES)
    assert [(f.key, f.score) for f in fused] == [("a", 0.9), ("b", 0.5), ("c", 0.1)]


# -- reciprocal rank fusion ------------------------------------------------------------------------


def test_rrf_scores_are_weighted_reciprocal_ranks_over_the_best_possible() -> None:
    keyword = [("a", 9.0), ("b", 5.0), ("c", 1.0)]
    vector = [("b", 0.9), ("c", 0.8)]
    fused = reciprocal_rank([keyword, vector], [1.0, 2.0], 10, TIES)
    best = 3.0 / 11
    expected = {
        "a": (1 / 11) / best,
        "b": (1 / 12 + 2 / 11) / best,
        "c": (1 / 13 + 2 / 12) / best,
    }
    assert [f.key for f in fused] == ["b", "c", "a"]
    assert {f.key: f.score for f in fused} == pytest.approx(expected)
    assert [f.ranks for f in fused] == [(2, 1), (3, 2), (1, None)]


def test_rrf_reads_ranks_not_scores() -> None:
    close = reciprocal_rank([[("a", 0.51), ("b", 0.50)], [("b", 9.0)]], [1.0, 1.0], 60, TIES)
    far = reciprocal_rank([[("a", 500.0), ("b", 0.01)], [("b", 9.0)]], [1.0, 1.0], 60, TIES)
    assert [(f.key, f.score) for f in close] == [(f.key, f.score) for f in far]
    assert [f.key for f in far] == ["b", "a"]  # found by both sides beats first on one


def test_rrf_first_on_every_side_is_exactly_one_and_scores_lie_in_0_1() -> None:
    sides = [[(key, 10.0 - i) for i, key in enumerate("abcdef")], [("a", 0.7), ("f", 0.1)]]
    for weights in ([1.0, 1.0], [0.3, 0.7], [0.1, 2.9]):
        for k in (1, 7, 60):
            fused = reciprocal_rank(sides, weights, k, TIES)
            assert fused[0].key == "a" and fused[0].score == 1.0
            assert all(0.0 <= f.score <= 1.0 for f in fused)
    alone = reciprocal_rank([[("c", 3.0), ("b", 2.0)]], [1.0], 60, TIES)
    assert [(f.key, f.score) for f in alone] == [("c", 1.0), ("b", round(61 / 62, 12))]


def test_rrf_ties_break_by_path() -> None:
    # c: first on the keyword side only; a: first on the vector side only; same weights.
    fused = reciprocal_rank([[("c", 2.0), ("b", 1.0)], [("a", 0.9)]], [1.0, 1.0], 60, TIES)
    assert [f.key for f in fused] == ["a", "c", "b"]
    assert fused[0].score == fused[1].score == 0.5
    # On one side a rank is a rank, however the scores tie.
    alone = reciprocal_rank([[("c", 1.0), ("a", 1.0)]], [1.0], 60, TIES)
    assert [f.key for f in alone] == ["c", "a"]


def test_rrf_weights_choose_the_side_that_wins() -> None:
    sides = [[("a", 3.0), ("b", 2.0)], [("b", 0.9), ("a", 0.1)]]
    assert reciprocal_rank(sides, [2.0, 1.0], 60, TIES)[0].key == "a"
    assert reciprocal_rank(sides, [1.0, 2.0], 60, TIES)[0].key == "b"
    # Weight 0: the side counts for nothing, its ranks are still reported.
    muted = reciprocal_rank(sides, [0.0, 1.0], 60, TIES)
    assert [(f.key, f.score, f.ranks) for f in muted] == [
        ("b", 1.0, (2, 1)),
        ("a", round(61 / 62, 12), (1, 2)),
    ]
    nothing = reciprocal_rank(sides, [0.0, 0.0], 60, TIES)
    assert [(f.key, f.score) for f in nothing] == [("a", 0.0), ("b", 0.0)]


def test_rrf_k_decides_how_much_the_first_ranks_outweigh_the_rest() -> None:
    # d: fourth on the keyword side and first on the vector side; a: first on the keyword side.
    sides = [[("a", 5.0), ("b", 4.0), ("c", 3.0), ("d", 2.0)], [("d", 0.9)]]
    # k = 1: a has 2/2, d 2/5 + 1/2. k = 60: a has 2/61, d 2/64 + 1/61.
    assert reciprocal_rank(sides, [2.0, 1.0], 1, TIES)[0].key == "a"
    assert reciprocal_rank(sides, [2.0, 1.0], 60, TIES)[0].key == "d"


def test_rrf_a_side_that_found_nothing_leaves_the_others_order() -> None:
    fused = reciprocal_rank([[("a", 4.0), ("b", 2.0), ("c", 1.0)], []], [0.3, 0.7], 60, TIES)
    assert [f.key for f in fused] == ["a", "b", "c"] and fused[0].score == 1.0
    assert reciprocal_rank([[], []], [1.0, 1.0], 60, TIES) == []
