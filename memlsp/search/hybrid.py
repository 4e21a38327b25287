"""One search request end to end: candidates per side, fusion, filters, expansion, budget.

The vector side's candidates come in already found (the engine embeds the query outside its lock);
here they are held to the same date filter as keywords, joined to their chunks through the keyword
index (a vector whose chunk is gone is dropped), and fused with the keyword side (search/fusion.py).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import replace

from memlsp.config import Settings
from memlsp.embed.base import PLAIN_COSINE, SimilarityScale
from memlsp.index.keyword import KeywordReader
from memlsp.index.vectors import VectorHit
from memlsp.model import Chunk, Hit, OtherSection, SearchCounts, SearchRequest, SearchResponse
from memlsp.parse.tokens import has_cjk
from memlsp.search.evidence import STRENGTH_DEPTH, coverage, strength
from memlsp.search.expand import expand_hits, within_budget
from memlsp.search.fusion import Fused, fused_order
from memlsp.vault.graph import LinkGraph

OTHER_SECTIONS = 5  # most other matching sections attached to a note's result


def candidate_count(request: SearchRequest, settings: Settings) -> int:
    """The same depth for every `limit` up to it: `--limit 1` gives the first of `--limit 10`."""
    return max(settings.max_candidates, request.limit)


def vector_candidates(request: SearchRequest, settings: Settings) -> int:
    """How many nearest chunks to ask the store for: a date filter drops some of them."""
    if request.start_date or request.end_date:
        return candidate_count(request, settings) * 4
    return candidate_count(request, settings)


def scale_of(hit: VectorHit, scales: Sequence[SimilarityScale]) -> SimilarityScale:
    """The scale of the block a hit was found in; plain cosine when the embedder has none."""
    return scales[min(hit.block, len(scales) - 1)] if scales else PLAIN_COSINE


def query_vector_weight(base: float, known: float) -> float:
    """The vector side's weight for one query: `base` when the vault knows every word of it, and
    up to 1.0 as fewer of its words occur in the vault at all. A question in another language
    than the notes' (a Chinese question over English notes) has keyword hits only on the odd word
    they share, and those would outrank the answers found by meaning. Squared, so that a query
    with one word the vault lacks keeps nearly the setting's weight (benchmarks/fusion_study.py)."""
    return base + (1.0 - base) * (1.0 - known) ** 2


def search(
    request: SearchRequest,
    keyword: KeywordReader,
    graph: LinkGraph,
    settings: Settings,
    vector_hits: Sequence[VectorHit] | None = None,
    warnings: Sequence[str] = (),
    meaningless: bool = False,
    scales: Sequence[SimilarityScale] = (),
) -> SearchResponse:
    """`vector_hits` None means the vector side did not run (off, unavailable, or keyword mode).
    `meaningless`: the embedding model reads none of the query's words as words of its own.
    `scales`: what the embedder's similarities mean, per block (search/evidence.py)."""
    count = candidate_count(request, settings)
    use_keyword = request.mode != "vector"
    use_vector = vector_hits is not None and request.mode != "keyword"
    terms = keyword.query_terms(request.query)  # common words do not decide the candidates
    keyword_hits = []
    if use_keyword:
        keyword_hits = keyword.search(
            terms, count, start_date=request.start_date, end_date=request.end_date
        )
    both = use_keyword and use_vector
    stats = keyword.term_stats(terms)
    known = stats.known_share if both or meaningless else 1.0
    if vector_hits and meaningless and not keyword_hits and known == 0:
        # Nearest neighbours always exist. For a query that neither the vault nor the model
        # has a word for ("qwzxplk") they are not answers; similarity alone cannot tell them
        # from real ones with the default models (README, "Nothing is an answer").
        vector_hits = []
        warnings = [*warnings, "no note and no model knows these words: nothing found"]
    chunks: dict[str, Chunk] = {hit.chunk.id: hit.chunk for hit in keyword_hits}
    keyword_scores = {hit.chunk.id: hit.score for hit in keyword_hits}
    similarities: dict[str, float] = {}
    meanings: list[float] = []  # the vector side's evidence, best candidates first
    if vector_hits is not None and use_vector:
        dated = [hit for hit in vector_hits if _in_dates(graph, hit.path, request)][:count]
        # Below the floor, only a keyword match makes a chunk a candidate.
        dated = [
            hit
            for hit in dated
            if hit.similarity >= scale_of(hit, scales).floor or hit.chunk_id in keyword_scores
        ]
        missing = [hit.chunk_id for hit in dated if hit.chunk_id not in chunks]
        chunks.update(keyword.chunks_by_id(missing))
        similarities = {hit.chunk_id: hit.similarity for hit in dated if hit.chunk_id in chunks}
        meanings = [
            scale_of(hit, scales).evidence(hit.similarity)
            for hit in dated[:STRENGTH_DEPTH]
            if hit.chunk_id in chunks
        ]
    # name -> (ranked (chunk id, score), weight); a side alone has weight 1
    vector_weight = query_vector_weight(settings.vector_weight, known) if both else 1.0
    sides: dict[str, tuple[list[tuple[Hashable, float]], float]] = {}
    if use_keyword:
        sides["keyword"] = (list(keyword_scores.items()), 1.0 - vector_weight if both else 1.0)
    if use_vector:
        sides["vector"] = (list(similarities.items()), vector_weight)
    ties: dict[Hashable, tuple[str, int]] = {
        key: (chunk.path, chunk.start_line) for key, chunk in chunks.items()
    }
    rule = request.fusion or settings.fusion
    fused = fused_order(rule, sides, ties, settings)
    matches = _Matches(keyword, graph, any(map(has_cjk, terms)))
    weights = stats.weights()
    keyword_evidence = [
        coverage(matches.of(chunks[hit.chunk.id]), weights) for hit in keyword_hits[:STRENGTH_DEPTH]
    ]
    found = round(strength(keyword_evidence, meanings), 6)
    # Keyword hits contain the query's words; nearest neighbours always exist, and only their
    # evidence says whether they answer.
    wanted = settings.min_strength if request.min_strength is None else request.min_strength
    weak = use_vector and found < wanted
    if (fused or vector_hits) and (weak or (not keyword_hits and found == 0)):
        fused = []
        warnings = [*warnings, f"nothing in the vault answers this closely (evidence {found:.2f})"]
    scored = [replace(item, score=round(item.score * found, 12)) for item in fused]
    # scores fall with rank: min_score drops the tail, whatever the mode
    kept = [item for item in scored if item.score >= request.min_score]
    chosen, others = (kept, {}) if request.sections else _one_per_note(kept, chunks)
    hits = []
    for item in chosen:
        key = str(item.key)
        ranks = dict(zip(sides, item.ranks, strict=True))
        hits.append(
            _hit(
                chunks[key],
                item.score,
                keyword_scores.get(key),
                ranks.get("keyword"),
                similarities.get(key),
                ranks.get("vector"),
                [term for term in terms if term in matches.of(chunks[key])],
                graph,
                others.get(chunks[key].path, ()),
            )
        )
        if len(hits) == request.limit:
            break
    if request.expand:
        hits = expand_hits(graph, hits, settings.expand_limit)
    hits = within_budget(hits, request.budget_tokens)
    counts = SearchCounts(keyword=len(keyword_scores), vector=len(similarities), hybrid=both)
    return SearchResponse(
        request.query, tuple(hits), counts, request.mode, tuple(warnings), found, rule
    )


class _Matches:
    """The index terms of a chunk with its note's title, headings and aliases, each chunk
    analysed once per query: what a hit matched, and the keyword side's evidence."""

    def __init__(self, keyword: KeywordReader, graph: LinkGraph, segment_cjk: bool) -> None:
        self._keyword = keyword
        self._graph = graph
        # Only a query with Chinese terms needs the hit's Chinese segmented to find them.
        self._segment_cjk = segment_cjk
        self._seen: dict[str, frozenset[str]] = {}

    def of(self, chunk: Chunk) -> frozenset[str]:
        if chunk.id not in self._seen:
            note = self._graph.notes.get(chunk.path)
            title = note.title if note else chunk.breadcrumb[0]
            searched = " ".join(
                (chunk.text, title, " ".join(chunk.breadcrumb), *(note.aliases if note else ()))
            )
            terms = self._keyword.terms(searched, segment_cjk=self._segment_cjk)
            self._seen[chunk.id] = frozenset(terms)
        return self._seen[chunk.id]


def _one_per_note(
    fused: list[Fused], chunks: dict[str, Chunk]
) -> tuple[list[Fused], dict[str, tuple[OtherSection, ...]]]:
    """Each note once, at its best section; its other matching sections, best first, by path."""
    best: list[Fused] = []
    others: dict[str, list[OtherSection]] = {}
    for item in fused:
        chunk = chunks[str(item.key)]
        if chunk.path not in others:
            others[chunk.path] = []
            best.append(item)
        elif len(others[chunk.path]) < OTHER_SECTIONS:
            others[chunk.path].append(
                OtherSection(
                    chunk.start_line, chunk.end_line, chunk.heading, chunk.breadcrumb, item.score
                )
            )
    return best, {path: tuple(sections) for path, sections in others.items()}


def _in_dates(graph: LinkGraph, path: str, request: SearchRequest) -> bool:
    if not (request.start_date or request.end_date):
        return True
    note = graph.notes.get(path)
    date = note.date if note else None
    if date is None:
        return False
    return (request.start_date or "") <= date <= (request.end_date or "9999-12-31")


def _hit(
    chunk: Chunk,
    score: float,
    keyword_score: float | None,
    keyword_rank: int | None,
    similarity: float | None,
    vector_rank: int | None,
    matched_terms: list[str],
    graph: LinkGraph,
    other_sections: tuple[OtherSection, ...] = (),
) -> Hit:
    note = graph.notes.get(chunk.path)
    return Hit(
        chunk=chunk,
        score=score,
        keyword_score=keyword_score,
        keyword_rank=keyword_rank,
        vector_score=similarity,
        vector_rank=vector_rank,
        matched_terms=tuple(matched_terms),
        title=note.title if note else chunk.breadcrumb[0],
        date=note.date if note else None,
        other_sections=other_sections,
    )
