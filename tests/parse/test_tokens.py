"""CJK segmentation for keyword search, and the token estimate used for caps and budgets."""

from __future__ import annotations

import pytest

from memlsp.parse.tokens import estimate_tokens, has_cjk, segment


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("向量检索", "检索"),
        ("向量检索", "向量"),
        ("我在研究向量检索和知识管理", "知识"),
        ("机器学习模型", "学习"),
        ("个人知识管理", "管理"),
    ],
)
def test_segment_makes_words_inside_a_cjk_run_separate_tokens(text: str, word: str) -> None:
    tokens = segment(text).split()
    assert word in tokens
    assert text not in tokens or len(tokens) > 1


def test_segment_leaves_latin_text_alone() -> None:
    assert segment("Hybrid search with BM25, k1=1.2") == "Hybrid search with BM25, k1=1.2"


def test_segment_mixed_text_keeps_latin_words_and_splits_cjk() -> None:
    tokens = segment("BM25 与向量检索的对比 (vector search)").split()
    assert {"BM25", "检索", "(vector", "search)"} <= set(tokens)
    assert "向量检索的对比" not in tokens


def test_has_cjk() -> None:
    assert has_cjk("note 笔记")
    assert has_cjk("カタカナ") and has_cjk("한국어")
    assert not has_cjk("café naïve")


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("", 0),
        ("hello world", 2),
        ("Hello, world! It's BM25.", 5),  # It's -> It, s
        ("向量检索", 4),  # one per CJK character
        ("BM25 与向量检索", 6),
        ("k1 = 1.2", 3),
        ("[[link with spaces]]", 3),
        ("😀 🔍 —", 0),
        ("  \n\t ", 0),
        ("naïve café", 2),
    ],
)
def test_estimate_tokens(text: str, count: int) -> None:
    assert estimate_tokens(text) == count
