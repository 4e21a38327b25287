"""A search with filters and no words (`memlsp search VAULT --where state=想看`): every note in
its scope (search/scope.py) and dates, newest first, as results of the usual shape.

There is no evidence to rank by, so the order is when each note last changed (an open buffer's
unsaved text counts as now, as `memlsp recent` has it); each note is one result at its first
section, score 0, no matched terms. `limit`, link expansion and the token budget apply as to any
search; the score floors (`min_score`, `min_strength`) do not, since nothing is scored.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping

from memlsp.model import Chunk, Hit, SearchCounts, SearchRequest, SearchResponse
from memlsp.queries.recent import newest_first
from memlsp.search.budget import within_budget
from memlsp.search.expand import expand_hits
from memlsp.settings.table import Settings
from memlsp.vault.link_graph import LinkGraph


def listing(
    request: SearchRequest,
    graph: LinkGraph,
    allowed: frozenset[str] | None,
    saved: Callable[[str], int | None],
    first_chunks: Callable[[list[str]], Mapping[str, Chunk]],
    settings: Settings,
) -> SearchResponse:
    """`allowed`: the notes in scope (None: every note); `saved`: when a note's text was saved
    (ns), None for an unsaved buffer; `first_chunks`: each listed note's first section."""
    paths: Iterable[str] = graph.notes if allowed is None else sorted(allowed)
    dated = (path for path in paths if in_dates(graph, path, request))
    order = newest_first(((path, saved(path)) for path in dated), now_ns=time.time_ns())
    shown = [change.path for change in order[: request.limit]]
    chunks = first_chunks(shown)
    hits = [_listed(graph, path, chunks.get(path)) for path in shown]
    if request.expand:
        hits = expand_hits(graph, hits, settings.expand_limit)
    kept, budget = within_budget(hits, request.budget_tokens)
    warnings = () if order else ("no note matches the filters asked for: nothing found",)
    return SearchResponse(
        request.query,
        tuple(kept),
        SearchCounts(keyword=0, vector=0, hybrid=False),
        request.mode,
        warnings,
        0.0,
        request.fusion or settings.fusion,
        budget,
    )


def in_dates(graph: LinkGraph, path: str, request: SearchRequest) -> bool:
    """Whether the note is dated within the request's `start_date` and `end_date` (a note without
    a date is not, when either is given)."""
    if not (request.start_date or request.end_date):
        return True
    note = graph.notes.get(path)
    date = note.date if note else None
    if date is None:
        return False
    return (request.start_date or "") <= date <= (request.end_date or "9999-12-31")


def _listed(graph: LinkGraph, path: str, chunk: Chunk | None) -> Hit:
    note = graph.notes[path]
    if chunk is None:  # a note with no text to index (an empty file): its title stands for it
        chunk = Chunk(path, path, (note.title,), 1, max(note.line_count, 1), "")
    return Hit(
        chunk=chunk,
        score=0.0,
        keyword_score=None,
        keyword_rank=None,
        vector_score=None,
        vector_rank=None,
        matched_terms=(),
        title=note.title,
        date=note.date,
    )
