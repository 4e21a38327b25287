"""Notes, not sections, are what a search ranks: a note scores its best section plus a share of
its second best, so a note that answers in two places leads one that grazes the question once.
Chosen on development sets (benchmarks/fusion_study.py): on reworded English questions the share
lifted note-level nDCG@10 by about 0.01 to 0.02 for every rule, and up to 0.3 it never hurt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from memlsp.model import Chunk, OtherSection
from memlsp.search.fusion import Fused

SECOND_SECTION = 0.3  # share of a note's second best section added to its best
OTHER_SECTIONS = 5  # most other matching sections attached to a note's result


def best_notes(
    fused: list[Fused], chunks: Mapping[str, Chunk], shown: Callable[[float], float]
) -> tuple[list[Fused], dict[str, tuple[OtherSection, ...]]]:
    """Each note once, at its best section, in the order of the notes' scores; and its other
    matching sections, best first, by path. `shown` turns a fused score into the one a result
    shows."""
    sections: dict[str, list[Fused]] = {}
    for item in fused:  # best first
        sections.setdefault(chunks[str(item.key)].path, []).append(item)
    notes = []
    for found in sections.values():
        second = max(found[1].score, 0.0) if len(found) > 1 else 0.0
        notes.append(replace(found[0], score=found[0].score + SECOND_SECTION * second))
    order = {item.key: index for index, item in enumerate(fused)}
    notes.sort(key=lambda item: (-item.score, order[item.key]))
    others = {
        path: tuple(
            OtherSection(
                chunk.start_line, chunk.end_line, chunk.heading, chunk.breadcrumb, shown(o.score)
            )
            for o in found[1 : 1 + OTHER_SECTIONS]
            for chunk in (chunks[str(o.key)],)
        )
        for path, found in sections.items()
    }
    return notes, others
