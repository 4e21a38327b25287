"""Score fusion (memlsp/search/fusion.py): a pure function, checked on hand-made lists."""

from __future__ import annotations

from collections.abc import Hashable

from memlsp.search.fusion import fuse, normalised

TIES: dict[Hashable, tuple[str, int]] = {key: (key, 0) for key in "abcdefghij"}


def test_scores_are_min_max_normalised_per_side() -> None:
    assert normalised([("a", 12.0), ("b", 7.0), ("c", 2.0)]) == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert normalised([("a", 0.4), ("b", 0.4)]) == {"a": 1.0, "b": 1.0}
    assert normalised([]) == {}


def test_a_strong_vector_hit_is_not_buried_under_weak_keyword_hits() -> None:
    """With RRF (w_v 0.3) a vector-only first hit lost to every keyword hit down to rank ~82."""
    keyword = [(key, 3.0 - 0.01 * rank) for rank, key in enumerate("abcdefgh")]
    keyword.append(("i", 1.0))
    vector = [("j", 0.62), ("i", 0.31), ("h", 0.30)]
    fused = fuse([keyword, vector], [0.3, 0.7], TIES)
    assert fused[0].key == "j" and fused[0].ranks == (None, 1)


def test_first_on_every_side_scores_one_and_ties_break_by_path() -> None:
    fused = fuse([[("b", 5.0), ("a", 1.0)], [("b", 0.9), ("a", 0.2)]], [0.3, 0.7], TIES)
    assert [(f.key, f.score, f.ranks) for f in fused] == [("b", 1.0, (1, 1)), ("a", 0.0, (2, 2))]
    tied = fuse([[("c", 1.0), ("a", 1.0)]], [1.0], TIES)
    assert [f.key for f in tied] == ["a", "c"]


def test_a_side_that_found_nothing_leaves_the_others_order() -> None:
    fused = fuse([[("a", 4.0), ("b", 2.0), ("c", 1.0)], []], [0.3, 0.7], TIES)
    assert [f.key for f in fused] == ["a", "b", "c"] and fused[0].score == 1.0
