"""Notes, not sections, are what a search ranks: a note scores its best section, plus a share of
its second best, so that a note that answers in two places leads one that grazes the question
once, plus a share of how much of the query its name, aliases and description hold, fields of the
note rather than of any section (a description is in no section at all).
Chosen on development sets (benchmarks/fusion_study.py): the second section's share lifted
note-level nDCG@10 by 0.01 to 0.04 on reworded questions and up to 0.3 never hurt; the fields'
share moves little there (questions rarely name their note) and keeps a note named like the query
ahead of its near neighbours.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from memlsp.index.keyword.schema import name_terms
from memlsp.model import Chunk
from memlsp.parse.tokens import has_cjk
from memlsp.search.evidence import FUSION_POWER, coverage
from memlsp.search.fusion import Fused
from memlsp.vault.link_graph import LinkGraph

SECOND_SECTION = 0.3  # share of a note's second best section added to its best
NAMED = 0.2  # share of the query in the note's own fields (squared, as on the keyword side)
NAMED_DEPTH = 20  # the first fused sections whose notes' fields are read
OTHER_SECTIONS = 5  # most other matching sections attached to a note's result


def named_notes(
    fused: list[Fused],
    chunks: Mapping[str, Chunk],
    graph: LinkGraph,
    weights: Mapping[str, float],
    names: Mapping[str, frozenset[str]],
) -> dict[str, float]:
    """How much of the query (terms and their `weights`) the name, aliases and description of
    each note among the first candidates hold, as keyword evidence. `names`: the query terms
    the keyword index found in each note's title and aliases."""
    segment_cjk = any(map(has_cjk, weights))
    named: dict[str, float] = {}
    for item in fused[:NAMED_DEPTH]:
        path = chunks[str(item.key)].path
        note = graph.notes.get(path)
        if note is None or path in named:
            continue
        found = names.get(path, frozenset())
        if note.description:  # not in the keyword index: analysed here, once per text
            found = found | name_terms(note.description, segment_cjk)
        named[path] = coverage(found, weights) ** FUSION_POWER
    return named


def best_notes(
    fused: list[Fused],
    chunks: Mapping[str, Chunk],
    named: Mapping[str, float],
    weight: float,
) -> tuple[list[Fused], dict[str, list[Fused]]]:
    """Each note once, at its best section, in the order of the notes' scores; and its other
    matching sections, best first, by path. `named`: the notes' field evidence (`named_notes`),
    counted at `weight`, the keyword side's."""
    sections: dict[str, list[Fused]] = {}
    for item in fused:  # best first
        sections.setdefault(chunks[str(item.key)].path, []).append(item)
    notes = []
    for found in sections.values():
        second = max(found[1].score, 0.0) if len(found) > 1 else 0.0
        name = weight * NAMED * named.get(chunks[str(found[0].key)].path, 0.0)
        notes.append(replace(found[0], score=found[0].score + SECOND_SECTION * second + name))
    order = {item.key: index for index, item in enumerate(fused)}
    notes.sort(key=lambda item: (-item.score, order[item.key]))
    return notes, {path: found[1 : 1 + OTHER_SECTIONS] for path, found in sections.items()}
