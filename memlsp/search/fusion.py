"""Reciprocal rank fusion, as a small pure function with deterministic tie-breaks.

`fused = sum over sides of weight / (k + rank)`, ranks 1-based. The score reported to users is that
sum divided by its best possible value (rank 1 on every side that ran), so it lies in (0, 1] and
means the same in every mode: 1.0 is "first on every side searched". `min_score` compares to it.
A side that ran but returned nothing contributes nothing, so the other side's order passes through.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

RRF_K = 60


@dataclass(frozen=True, slots=True)
class Fused:
    key: Hashable
    score: float
    ranks: tuple[int | None, ...]  # 1-based rank on each side, None when that side missed it


def fuse(
    sides: Sequence[Sequence[Hashable]],
    weights: Sequence[float],
    tie_key: dict[Hashable, tuple[str, int]],
    k: int = RRF_K,
) -> list[Fused]:
    """Fuse ranked lists of keys. Ties break on `tie_key[key]` (path, start line)."""
    best = sum(weight for side, weight in zip(sides, weights, strict=True) if side) / (k + 1)
    ranks: dict[Hashable, list[int | None]] = {}
    for index, side in enumerate(sides):
        for rank, key in enumerate(side, 1):
            ranks.setdefault(key, [None] * len(sides))[index] = rank
    fused = [
        Fused(
            key,
            # Rounded so that first on every side is exactly 1.0, whatever the weights' floats.
            round(
                sum(w / (k + r) for w, r in zip(weights, found, strict=True) if r is not None)
                / best,
                12,
            ),
            tuple(found),
        )
        for key, found in ranks.items()
    ]
    fused.sort(key=lambda item: (-item.score, tie_key[item.key]))
    return fused
