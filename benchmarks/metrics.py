"""Ranking metrics for retrieval benchmarks: pure functions, no I/O.

A *run* maps a query id to its ranked document ids (best first). *Qrels* map a query id to
``{doc_id: grade}``; a grade above zero means relevant. Gains are the grades themselves (linear, as
in BEIR / trec_eval), discounted by ``log2(rank + 1)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Sequence[str]]


def dedupe(ranked: Iterable[str]) -> list[str]:
    """The ids in order, each kept at its first (best) rank only."""
    return list(dict.fromkeys(ranked))


def dcg(gains: Iterable[float]) -> float:
    """Discounted cumulative gain of gains listed in rank order (rank 1 first)."""
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


def ndcg_at_k(ranked: Sequence[str], judgements: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k of one ranking; 0.0 when the query has no relevant document."""
    ideal = dcg(sorted((g for g in judgements.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    gains = (max(judgements.get(doc, 0), 0) for doc in ranked[:k])
    return dcg(gains) / ideal


def recall_at_k(ranked: Sequence[str], judgements: Mapping[str, int], k: int = 100) -> float:
    """Share of the relevant documents found in the first k; 0.0 when none is relevant."""
    relevant = {doc for doc, grade in judgements.items() if grade > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def judged_queries(qrels: Qrels) -> list[str]:
    """Query ids with at least one relevant document, in qrels order."""
    return [qid for qid, judgements in qrels.items() if any(g > 0 for g in judgements.values())]


def evaluate(run: Run, qrels: Qrels, ndcg_k: int = 10, recall_k: int = 100) -> dict[str, float]:
    """Mean nDCG@ndcg_k and recall@recall_k over every judged query (missing from run: 0)."""
    queries = judged_queries(qrels)
    if not queries:
        return {f"ndcg@{ndcg_k}": 0.0, f"recall@{recall_k}": 0.0, "queries": 0.0}
    ndcg = recall = 0.0
    for qid in queries:
        ranked = dedupe(run.get(qid, ()))
        ndcg += ndcg_at_k(ranked, qrels[qid], ndcg_k)
        recall += recall_at_k(ranked, qrels[qid], recall_k)
    count = len(queries)
    return {f"ndcg@{ndcg_k}": ndcg / count, f"recall@{recall_k}": recall / count, "queries": count}


def evaluate_groups(
    run: Run,
    qrels: Qrels,
    groups: Mapping[str, Sequence[str]],
    ndcg_k: int = 10,
    recall_k: int = 10,
) -> dict[str, dict[str, float]]:
    """`evaluate` over each named group of query ids (a group of no judged query scores 0)."""
    return {
        name: evaluate(
            {q: run.get(q, ()) for q in ids}, {q: qrels[q] for q in ids}, ndcg_k, recall_k
        )
        for name, ids in groups.items()
    }
