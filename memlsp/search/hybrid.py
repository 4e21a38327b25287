"""One search request end to end: candidates per side, fusion, filters, expansion, budget.

Only the keyword side exists so far; the fusion already runs over a list of sides so that the vector
side joins without changing the order of the steps or the meaning of a score.
"""

from __future__ import annotations

from memlsp.config import Settings
from memlsp.index.keyword import KeywordHit, KeywordIndex
from memlsp.model import Hit, SearchCounts, SearchRequest, SearchResponse
from memlsp.parse.tokens import has_cjk
from memlsp.search.expand import expand_hits, within_budget
from memlsp.search.fusion import fuse
from memlsp.vault.graph import LinkGraph

KEYWORD_WEIGHT = 1.0


def candidate_count(request: SearchRequest, settings: Settings) -> int:
    return min(settings.max_candidates, max(1, request.limit) * settings.candidate_multiplier)


def search(
    request: SearchRequest, keyword: KeywordIndex, graph: LinkGraph, settings: Settings
) -> SearchResponse:
    terms = keyword.terms(request.query)
    keyword_hits = keyword.search(
        terms,
        candidate_count(request, settings),
        start_date=request.start_date,
        end_date=request.end_date,
    )
    by_id: dict[str, KeywordHit] = {hit.chunk.id: hit for hit in keyword_hits}
    fused = fuse(
        [[hit.chunk.id for hit in keyword_hits]],
        [KEYWORD_WEIGHT],
        {hit.chunk.id: (hit.chunk.path, hit.chunk.start_line) for hit in keyword_hits},
    )
    hits = []
    for item in fused:
        if item.score < request.min_score:
            continue
        found = by_id[str(item.key)]
        hits.append(_hit(found, item.score, item.ranks[0], terms, keyword, graph))
        if len(hits) == request.limit:
            break
    if request.expand:
        hits = expand_hits(graph, hits, settings.expand_limit)
    hits = within_budget(hits, request.budget_tokens)
    counts = SearchCounts(keyword=len(keyword_hits), vector=0, hybrid=False)
    return SearchResponse(request.query, tuple(hits), counts)


def _hit(
    found: KeywordHit,
    score: float,
    rank: int | None,
    terms: list[str],
    keyword: KeywordIndex,
    graph: LinkGraph,
) -> Hit:
    chunk = found.chunk
    note = graph.notes.get(chunk.path)
    title = note.title if note else chunk.breadcrumb[0]
    searched = " ".join(
        (chunk.text, title, " ".join(chunk.breadcrumb), *(note.aliases if note else ()))
    )
    # Only a query with Chinese terms needs the hit's Chinese segmented to show what matched.
    present = set(keyword.terms(searched, segment_cjk=any(map(has_cjk, terms))))
    return Hit(
        chunk=chunk,
        score=score,
        keyword_score=found.score,
        keyword_rank=rank,
        vector_score=None,
        vector_rank=None,
        matched_terms=tuple(term for term in terms if term in present),
        title=title,
        date=note.date if note else None,
    )
