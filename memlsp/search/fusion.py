"""Fusion of the keyword and vector sides: two rules, each a small pure function with
deterministic tie-breaks (on path, then start line). Each side lists its candidates with their
evidence, best first (search/evidence.py): the keyword side how much of the query a chunk
contains, the vector side its similarity placed on the embedder's measured scale.

`weigh_evidence`, the default ("evidence"): a chunk's score is the weighted mean of its evidence on
each side. Evidence means the same on both sides and for every query (1.0: the query's rare words
all there, or a similarity typical of an exact answer; 0: nothing), so a side with no real
evidence, such as keyword hits on one incidental word of a reworded question, barely moves the
order, and a word-for-word match still wins. Min-max scaling each side, the rule this replaced,
gave the best keyword hit 1.0 whatever it matched (benchmarks/fusion_study.py).

`reciprocal_rank` ("rrf"): each side adds `weight / (k + rank)`; only ranks count, not how far
apart the evidence is, so neither side's scale can dominate and an outlier cannot either. A
result both sides rank well wins over one that a single side ranks first.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace

from memlsp.model import Chunk
from memlsp.settings.table import Settings

Ranked = Sequence[tuple[Hashable, float]]  # (key, raw score), best first


@dataclass(frozen=True, slots=True)
class Fused:
    key: Hashable
    score: float
    ranks: tuple[int | None, ...]  # 1-based rank on each side, None when that side missed it


def weigh_evidence(
    sides: Sequence[Ranked], weights: Sequence[float], tie_key: dict[Hashable, tuple[str, int]]
) -> list[Fused]:
    """Fuse lists of (key, evidence), best first, as the weighted mean of each key's evidence
    over the sides that found something. A side that missed a key counts it at that side's
    weakest candidate, or at 0 (no evidence) if that is less: it would have listed the key if
    it had found more. Ties break on `tie_key[key]` (path, start line)."""
    present = [weight for side, weight in zip(sides, weights, strict=True) if side]
    total = sum(present) or 1.0
    ranks: dict[Hashable, list[int | None]] = {}
    values: list[dict[Hashable, float]] = []
    for index, side in enumerate(sides):
        for rank, (key, _) in enumerate(side, 1):
            ranks.setdefault(key, [None] * len(sides))[index] = rank
        values.append(dict(side))
    missed = [min(0.0, min(found.values(), default=0.0)) for found in values]
    fused = [
        Fused(
            key,
            round(
                sum(
                    weight * found.get(key, miss)
                    for found, weight, miss in zip(values, weights, missed, strict=True)
                    if found
                )
                / total,
                12,
            ),
            tuple(rank),
        )
        for key, rank in ranks.items()
    ]
    fused.sort(key=lambda item: (-item.score, tie_key[item.key]))
    return fused


def reciprocal_rank(
    sides: Sequence[Ranked],
    weights: Sequence[float],
    k: int,
    tie_key: dict[Hashable, tuple[str, int]],
) -> list[Fused]:
    """Fuse ranked lists of (key, score) by their ranks: each key scores the sum over the sides of
    `weight / (k + rank)`, divided by the best possible (the weights of the sides that found
    something, over `k + 1`), so that first on every such side is 1.0. A side with weight 0
    counts for nothing; when every side that found something has weight 0, every score is 0.
    Ties break on `tie_key[key]` (path, start line)."""
    present = [weight for side, weight in zip(sides, weights, strict=True) if side]
    best = sum(present) / (k + 1)
    ranks: dict[Hashable, list[int | None]] = {}
    sums: dict[Hashable, float] = {}
    for index, (side, weight) in enumerate(zip(sides, weights, strict=True)):
        for rank, (key, _) in enumerate(side, 1):
            ranks.setdefault(key, [None] * len(sides))[index] = rank
            sums[key] = sums.get(key, 0.0) + weight / (k + rank)
    fused = [
        # Rounded, so that first on every side is exactly 1.0 whatever the weights' floats.
        Fused(key, round(sums[key] / best, 12) if best > 0 else 0.0, tuple(found))
        for key, found in ranks.items()
    ]
    fused.sort(key=lambda item: (-item.score, tie_key[item.key]))
    return fused


def fused_order(
    rule: str,
    sides: Mapping[str, tuple[Ranked, float]],
    ties: dict[Hashable, tuple[str, int]],
    settings: Settings,
) -> list[Fused]:
    """The sides that ran (name -> (evidence, best first; the default rule's weight)) fused by
    `rule`: "rrf" with the rrf settings' weights (a side alone keeps weight 1), else the
    default rule."""
    ranked = [side for side, _ in sides.values()]
    if rule == "rrf":
        own = {"keyword": settings.rrf_keyword_weight, "vector": settings.rrf_vector_weight}
        weights = [own[name] if len(sides) > 1 else 1.0 for name in sides]
        return reciprocal_rank(ranked, weights, settings.rrf_k, ties)
    return weigh_evidence(ranked, [weight for _, weight in sides.values()], ties)


def score_spread(fused: Sequence[Fused]) -> float:
    """How far the first result's score lies from the last's, or from 0 when all are above it:
    the scale the results show (`hybrid._shown`) and boosts are measured on."""
    scores = [item.score for item in fused]
    return max(scores, default=0.0) - min(0.0, min(scores, default=0.0))


def lifted(
    fused: Sequence[Fused], chunks: Mapping[str, Chunk], lift: Callable[[str], float]
) -> list[Fused]:
    """Each result's score plus `lift` of its note's path, in order again: results lifted alike
    keep their order among themselves (the sort is stable)."""
    raised = [replace(item, score=item.score + lift(chunks[str(item.key)].path)) for item in fused]
    return sorted(raised, key=lambda item: -item.score)
