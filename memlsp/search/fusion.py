"""Fusion of the keyword and vector sides: two rules, each a small pure function with
deterministic tie-breaks (on path, then start line). Both score in [0, 1], 1.0 being "first on
every side that ran", and a side that ran and found nothing leaves the other side's order as it is.

`fuse`, the default ("evidence"): each side's scores (BM25, cosine similarity) are brought to
[0, 1] by min-max over its candidates and averaged with weights, `w_v * vector + (1 - w_v) *
keyword`. It keeps how far apart the candidates are, so one strong hit on one side can outrank
many weak ones on the other; the weight was chosen on development sets (benchmarks/fusion_study.py).

`reciprocal_rank` ("rrf"): each side adds `weight / (k + rank)`; only ranks count, not how the
scores are spread, so neither side's scale can dominate and an outlier score cannot either. A
result both sides rank well wins over one that a single side ranks first.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from memlsp.settings import Settings

Ranked = Sequence[tuple[Hashable, float]]  # (key, raw score), best first


@dataclass(frozen=True, slots=True)
class Fused:
    key: Hashable
    score: float
    ranks: tuple[int | None, ...]  # 1-based rank on each side, None when that side missed it


def normalised(side: Ranked) -> dict[Hashable, float]:
    """Scores brought to [0, 1] by min-max over the side's candidates; all 1.0 when they tie."""
    if not side:
        return {}
    scores = [score for _, score in side]
    low, high = min(scores), max(scores)
    spread = high - low
    return {key: (score - low) / spread if spread > 0 else 1.0 for key, score in side}


def fuse(
    sides: Sequence[Ranked], weights: Sequence[float], tie_key: dict[Hashable, tuple[str, int]]
) -> list[Fused]:
    """Fuse ranked lists of (key, score). Ties break on `tie_key[key]` (path, start line)."""
    present = [weight for side, weight in zip(sides, weights, strict=True) if side]
    total = sum(present) or 1.0
    ranks: dict[Hashable, list[int | None]] = {}
    sums: dict[Hashable, float] = {}
    for index, (side, weight) in enumerate(zip(sides, weights, strict=True)):
        for rank, (key, _) in enumerate(side, 1):
            ranks.setdefault(key, [None] * len(sides))[index] = rank
        for key, value in normalised(side).items():
            sums[key] = sums.get(key, 0.0) + weight * value
    fused = [
        # Rounded so that first on every side is exactly 1.0, whatever the weights' floats.
        Fused(key, round(sums.get(key, 0.0) / total, 12), tuple(found))
        for key, found in ranks.items()
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
        # Rounded as `fuse` rounds: first on every side is exactly 1.0.
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
    """The sides that ran (name -> (ranked, the default rule's weight)) fused by `rule`: "rrf"
    with the rrf settings' weights (a side alone keeps weight 1), else the default rule."""
    ranked = [side for side, _ in sides.values()]
    if rule == "rrf":
        own = {"keyword": settings.rrf_keyword_weight, "vector": settings.rrf_vector_weight}
        weights = [own[name] if len(sides) > 1 else 1.0 for name in sides]
        return reciprocal_rank(ranked, weights, settings.rrf_k, ties)
    return fuse(ranked, [weight for _, weight in sides.values()], ties)
