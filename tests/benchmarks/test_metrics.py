"""The benchmark metrics, checked against values worked out by hand."""

from __future__ import annotations

import importlib.util
import math
import sys
from types import ModuleType

import pytest

from tests.helpers.paths import REPO


def _load_metrics() -> ModuleType:
    path = REPO / "benchmarks" / "metrics.py"
    spec = importlib.util.spec_from_file_location("benchmarks_metrics", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


metrics = _load_metrics()


def test_dedupe_keeps_first_rank() -> None:
    assert metrics.dedupe(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


def test_dcg_uses_log2_discount() -> None:
    # 3/log2(2) + 2/log2(3) + 1/log2(4) = 3 + 1.26186 + 0.5
    assert metrics.dcg([3, 2, 1]) == pytest.approx(4.761859507)


def test_ndcg_binary() -> None:
    # DCG = 1/1 + 1/2 = 1.5; ideal = 1 + 1/log2(3) = 1.630930
    value = metrics.ndcg_at_k(["a", "b", "c"], {"a": 1, "c": 1}, k=10)
    assert value == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert value == pytest.approx(0.919720, abs=1e-6)


def test_ndcg_graded() -> None:
    # DCG = 1 + 2/log2(3) = 2.261860; ideal = 2 + 1/log2(3) = 2.630930
    value = metrics.ndcg_at_k(["b", "a"], {"a": 2, "b": 1}, k=10)
    assert value == pytest.approx(0.859719, abs=1e-6)


def test_ndcg_perfect_and_cut_off() -> None:
    assert metrics.ndcg_at_k(["a", "b"], {"a": 2, "b": 1}) == pytest.approx(1.0)
    assert metrics.ndcg_at_k(["x", "y", "a"], {"a": 1}, k=2) == 0.0
    # the ideal is cut at k too: two relevant docs, k=1, the first one found -> 1.0
    assert metrics.ndcg_at_k(["a", "x"], {"a": 1, "b": 1}, k=1) == pytest.approx(1.0)


def test_ndcg_ignores_zero_and_negative_grades() -> None:
    assert metrics.ndcg_at_k(["z", "a"], {"a": 1, "z": 0}) == pytest.approx(1 / math.log2(3))
    assert metrics.ndcg_at_k(["z"], {"z": -1, "a": 1}) == 0.0
    assert metrics.ndcg_at_k(["a"], {"a": 0}) == 0.0


def test_recall() -> None:
    judgements = {"a": 1, "b": 1, "c": 0}
    assert metrics.recall_at_k(["c", "a", "d"], judgements, k=100) == 0.5
    assert metrics.recall_at_k(["c", "a", "d"], judgements, k=1) == 0.0
    assert metrics.recall_at_k(["b", "a"], judgements, k=2) == 1.0
    assert metrics.recall_at_k(["a"], {"a": 0}, k=10) == 0.0


def test_evaluate_averages_over_judged_queries() -> None:
    qrels = {
        "q1": {"a": 1},  # found at rank 1: nDCG 1, recall 1
        "q2": {"b": 1, "c": 1},  # duplicate chunks of b, then c: both found
        "q3": {"d": 1},  # no results: scores 0
        "q4": {"e": 0},  # nothing relevant: not a judged query
    }
    run = {"q1": ["a"], "q2": ["b", "b", "x", "c"], "q4": ["e"]}
    result = metrics.evaluate(run, qrels, ndcg_k=10, recall_k=100)
    # q2 after dedupe is [b, x, c]: DCG = 1 + 1/2; ideal = 1 + 1/log2(3)
    q2 = 1.5 / (1 + 1 / math.log2(3))
    assert result["queries"] == 3
    assert result["ndcg@10"] == pytest.approx((1 + q2 + 0) / 3)
    assert result["recall@100"] == pytest.approx(2 / 3)


def test_evaluate_without_judgements() -> None:
    assert metrics.evaluate({}, {})["queries"] == 0
