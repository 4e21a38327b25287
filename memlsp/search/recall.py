"""Recall in a search: the results an asker is shown carry how often each note was recalled
(`recalled`, counting this search unless it asks not to be counted), and with `recall_weight`
above 0 the notes recalled often and lately rank higher (`RecallBoost`).

Counting happens where an answer leaves for its asker (the commands, `memlsp/search`, the MCP
tool), never inside the engine's search: an in-process benchmark, a related-notes lens or a graph
view counts nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from memlsp.index.recall import RecallStore
from memlsp.model import NEVER, Chunk, Recall, SearchResponse
from memlsp.search.fusion import Fused, lifted, score_spread

NS_PER_DAY = 86_400 * 1_000_000_000
# A recall's pull halves every this many days: what was looked up this month, not last year.
HALF_LIFE_DAYS = 30.0
# Recalls at which the count's part is whole (log-scaled below): the 20th recall of a note adds
# as much as the 2nd to the 1st, and none after it adds more.
FULL_COUNT = 20


def recall_strength(recall: Recall, now_ns: int) -> float:
    """0..1: log-scaled count (whole at `FULL_COUNT`) times a half-life decay of the last
    recall. Never recalled is 0."""
    if recall.recall_count <= 0 or recall.last_recalled_at is None:
        return 0.0
    often = min(1.0, math.log1p(recall.recall_count) / math.log1p(FULL_COUNT))
    days = max(0, now_ns - recall.last_recalled_at) / NS_PER_DAY
    return often * math.pow(0.5, days / HALF_LIFE_DAYS)


@dataclass(frozen=True, slots=True)
class RecallBoost:
    """`recall_weight` at work: each ranked note's score gains weight × `recall_strength` × the
    spread of the ranked scores (first less last), so that weight 1 lifts a note recalled often
    today by as much as separates the first result from the last, whatever the fusion rule's
    scale."""

    weight: float
    recalls: Callable[[Sequence[str]], Mapping[str, Recall]]
    now_ns: int

    def boosted(self, fused: list[Fused], chunks: Mapping[str, Chunk]) -> list[Fused]:
        if self.weight <= 0 or not fused:
            return fused
        spread = score_spread(fused)
        found = self.recalls([chunks[str(item.key)].path for item in fused])
        if not found or spread <= 0:
            return fused
        return lifted(fused, chunks, lambda path: self.lift(found.get(path), spread))

    def lift(self, recall: Recall | None, spread: float) -> float:
        return (
            0.0 if recall is None else self.weight * recall_strength(recall, self.now_ns) * spread
        )


def shown_paths(response: SearchResponse) -> list[str]:
    """The notes a search showed, each once, in order: its results (the budget's dropped ones and
    the linked notes a result carries are not shown results)."""
    return list(dict.fromkeys(hit.chunk.path for hit in response.hits if hit.source == "hit"))


def recalled(
    response: SearchResponse, store: RecallStore, *, record: bool, now_ns: int
) -> SearchResponse:
    """The response with each result's recall: counted once more for this search when `record`,
    else as it stands."""
    paths = shown_paths(response)
    found = store.record(paths, now_ns) if record else store.recalls(paths)
    hits = tuple(replace(hit, recall=found.get(hit.chunk.path, NEVER)) for hit in response.hits)
    return replace(response, hits=hits)
