"""Delta debugging: the shortest list of operations that still fails, found by dropping ever
smaller runs of them."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Shrunk:
    items: list[Any]
    replays: int
    minimal: bool  # False when the time budget ran out first


def shrink(items: Sequence[T], fails: Callable[[list[T]], bool], seconds: float) -> Shrunk:
    """Delta debugging: drop ever smaller runs of items while the rest still fails. The result
    is 1-minimal (dropping any single item makes it pass) unless `seconds` ran out."""
    current = list(items)
    deadline = time.monotonic() + seconds
    replays = 0
    parts = 2
    while len(current) >= 2:
        size = -(-len(current) // parts)
        for start in range(0, len(current), size):
            if time.monotonic() > deadline:
                return Shrunk(current, replays, False)
            candidate = current[:start] + current[start + size :]
            replays += 1
            if fails(candidate):
                current = candidate
                parts = max(parts - 1, 2)
                break
        else:
            if parts >= len(current):
                break
            parts = min(parts * 2, len(current))
    return Shrunk(current, replays, True)
