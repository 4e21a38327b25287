"""Score fusion of the keyword and vector sides, as a small pure function with deterministic
tie-breaks.

Each side's scores (BM25, cosine similarity) are brought to [0, 1] within the query by min-max over
that side's candidates, and the fused score is their weighted mean over the sides that ran:
`w_v * vector + (1 - w_v) * keyword`. Unlike reciprocal rank fusion it keeps how far apart the
candidates are: one keyword hit far ahead of the rest stays ahead of a vector hit that is barely
better than its neighbours, and a strong vector hit is not buried under dozens of weak keyword hits
(with RRF and w_v = 0.3 a vector-only first hit scored below keyword hits down to rank 82).
The weight was chosen on development sets (benchmarks/fusion_study.py); the result lies in [0, 1],
1.0 being "first on every side that ran". A side that ran and found nothing leaves the other side's
order as it is.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

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
