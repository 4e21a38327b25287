"""One search request end to end: candidates per side with their evidence, fusion, notes,
filters, expansion, budget (search/budget.py).

The vector side's candidates come in already found (the engine embeds the query outside its lock,
and the store searches within a small scope itself: `vector_ask`); here they are held to the same
date filter and scope (search/scope.py) as keywords, joined to their chunks through the keyword
index (a vector whose chunk is gone is dropped), and placed on the embedder's scale. Each side's
candidates carry their evidence (search/evidence.py), the sides are fused by the request's rule
(search/fusion.py), and notes, not sections, are ranked (search/notes.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from memlsp.embed.base import PLAIN_COSINE, SimilarityScale
from memlsp.index.dictionary import BilingualDictionary
from memlsp.index.keyword.reader import ChunkSet, KeywordReader
from memlsp.index.vectors import VectorHit
from memlsp.model import Chunk, Hit, OtherSection, SearchCounts, SearchRequest, SearchResponse
from memlsp.search.budget import within_budget
from memlsp.search.evidence import STRENGTH_DEPTH, coverage, keyword_evidence, strength
from memlsp.search.expand import expand_hits
from memlsp.search.fusion import Fused, fused_order, lifted, score_spread
from memlsp.search.listing import in_dates
from memlsp.search.notes import best_notes, named_notes
from memlsp.search.recall import RecallBoost
from memlsp.search.translation import translated_terms
from memlsp.settings.table import Settings
from memlsp.vault.link_graph import LinkGraph

# The most notes of a scope the vector store is asked to search among (a Chroma `where` on path
# with `$in`, which takes every path in the request). Embedded Chroma holding 60,000 chunks took
# about 55 ms a query with up to 2,000 paths (5 ms without), then about 15 ms more per 1,000. A
# larger scope is left to filtering the nearest chunks of the whole vault, which misses less the
# more of the vault a scope holds (the more of those nearest chunks are in it).
STORE_SCOPE_NOTES = 2000


def candidate_count(request: SearchRequest, settings: Settings) -> int:
    """The same depth for every `limit` up to it: `--limit 1` gives the first of `--limit 10`."""
    return max(settings.max_candidates, request.limit)


@dataclass(frozen=True, slots=True)
class VectorAsk:
    """What a search asks the vector store for: how many nearest chunks, and among the chunks of
    which notes (None: every note's)."""

    limit: int
    paths: frozenset[str] | None


def vector_ask(
    request: SearchRequest,
    settings: Settings,
    allowed: frozenset[str] | None,
    notes: int = 0,
) -> VectorAsk:
    """A scope (`allowed`, search/scope.py) of at most `STORE_SCOPE_NOTES` notes goes to the store,
    which then finds the nearest chunks among them however many closer ones lie outside. A larger
    scope, a wide one (`is_wide`: naming 877 of 3,176 notes' paths to Chroma cost twice the
    query) or a date filter is applied to the nearest chunks of the whole vault (of `notes`
    notes), so more of them are asked for: the filter drops some. A wide scope asks for as many
    more as its share of the vault leaves out, with a fifth to spare (at most 4 times)."""
    count = candidate_count(request, settings)
    wide_scope = allowed is not None and is_wide(len(allowed), notes)
    in_store = allowed is not None and len(allowed) <= STORE_SCOPE_NOTES and not wide_scope
    dated = bool(request.start_date or request.end_date)
    if dated or (allowed is not None and not in_store and not wide_scope):
        return VectorAsk(count * 4, None)
    if wide_scope and allowed is not None:
        share = len(allowed) / notes
        return VectorAsk(min(count * 4, math.ceil(count * 1.2 / share)), None)
    return VectorAsk(count, allowed if in_store else None)


def is_wide(scope: int, notes: int) -> bool:
    """A scope of `scope` of a vault's `notes` notes is wide: a quarter of the vault or more,
    and over `WIDE_NOTES` notes."""
    return scope > WIDE_NOTES and 4 * scope >= notes


def wide(graph: LinkGraph, allowed: frozenset[str] | None) -> bool:
    """A scope the keyword index is better asked for by its chunks, looked up once
    (`KeywordReader.chunks_of_paths`), than by its paths at every search: a quarter of the vault
    or more (its best chunks overall then hold enough of the scope's) and over `WIDE_NOTES`
    notes (fewer paths cost under a millisecond). Filters keeping 877 and 2,477 of 3,176 notes
    cost 3.4 and 10 ms a search by their paths."""
    return allowed is not None and is_wide(len(allowed), len(graph.notes))


WIDE_NOTES = 256


def scale_of(hit: VectorHit, scales: Sequence[SimilarityScale]) -> SimilarityScale:
    """The scale of the block a hit was found in; plain cosine when the embedder has none."""
    return scales[min(hit.block, len(scales) - 1)] if scales else PLAIN_COSINE


@dataclass(frozen=True, slots=True)
class Ranking:
    """A search's answer and how it was reached: each side's candidates with their evidence, the
    order fusion gave, and what the floors, the limit and the budget kept. `respond` makes the
    answer from it; search/explain.py reads it to say why a note is or is not in the answer."""

    request: SearchRequest
    terms: tuple[str, ...]  # the query's terms that decide candidates
    chunks: Mapping[str, Chunk]  # every candidate, by chunk id
    keyword_ranks: Mapping[str, int]  # chunk id -> 1-based rank on the keyword side
    keyword_scores: Mapping[str, float]
    matched: Mapping[str, frozenset[str]]  # chunk id -> the query terms it holds
    vector_ranks: Mapping[str, int]
    similarities: Mapping[str, float]
    # Notes at their best section (sections with `sections`), in order, with the scores they
    # show; empty when the evidence was too weak to answer.
    ranked: tuple[tuple[Fused, float], ...]
    strength: float
    min_strength: float
    weak: bool  # the answer was emptied: the query's evidence is below `min_strength`
    unknown_words: bool  # no note and no model knows the query's words
    keyword_ran: bool
    vector_ran: bool  # the vector side answered (it may have found nothing)
    candidates: int  # how many candidates each side was asked for
    listed: tuple[Hit, ...]  # the results before the budget, in order
    response: SearchResponse


def rank(
    request: SearchRequest,
    keyword: KeywordReader,
    graph: LinkGraph,
    settings: Settings,
    vector_hits: Sequence[VectorHit] | None = None,
    warnings: Sequence[str] = (),
    meaningless: bool = False,
    scales: Sequence[SimilarityScale] = (),
    *,
    allowed: frozenset[str] | None,
    within: ChunkSet | None = None,
    about: frozenset[str] = frozenset(),
    boost: RecallBoost | None = None,
    dictionary: Callable[[], BilingualDictionary | None] = lambda: None,
) -> Ranking:
    """`vector_hits` None means the vector side did not run (off, unavailable, or keyword mode).
    `meaningless`: the embedding model reads none of the query's words as words of its own.
    `scales`: what the embedder's similarities mean, per block (search/evidence.py).
    `allowed`: the notes in the request's scope (`scope.allowed_notes`), None for every note;
    `within`: the chunks of a `wide` one in the keyword index, which then asks by them.
    `about`: the notes a request's `about` favours (`about_boost` added to their scores).
    `boost`: the `recall_weight` setting at work (search/recall.py), None when it is off.
    `dictionary`: the bilingual dictionary, asked for only when the query has words in the
    vault's other language (search/translation.py); None while there is none."""
    count = candidate_count(request, settings)
    use_keyword = request.mode != "vector"
    use_vector = vector_hits is not None and request.mode != "keyword"
    terms = keyword.query_terms(request.query)  # common words do not decide the candidates
    share = settings.translated_share
    translated = translated_terms(terms, keyword, dictionary) if share > 0 and use_keyword else {}
    if allowed is not None and not allowed:
        warnings = [*warnings, "no note matches the paths and tags asked for: nothing found"]
        if vector_hits is not None:  # none of them is in scope: no other warning about them
            vector_hits = []
    keyword_hits = []
    if use_keyword:
        keyword_hits = keyword.search(
            [*terms, *translated],
            count,
            start_date=request.start_date,
            end_date=request.end_date,
            paths=allowed if within is None else None,
            within=within,
            boosts=dict.fromkeys(translated, share),
        )
    stats = keyword.term_stats(terms)
    unknown_words = bool(
        vector_hits and meaningless and not keyword_hits and stats.known_share == 0
    )
    if unknown_words:
        # Nearest neighbours always exist. For a query that neither the vault nor the model
        # has a word for ("qwzxplk") they are not answers; similarity alone cannot tell them
        # from real ones with the default models (docs/search.md, "Nothing is an answer").
        vector_hits = []
        warnings = [*warnings, "no note and no model knows these words: nothing found"]
    chunks: dict[str, Chunk] = {hit.chunk.id: hit.chunk for hit in keyword_hits}
    keyword_scores = {hit.chunk.id: hit.score for hit in keyword_hits}
    weights = stats.weights()
    reachable = weights
    if translated:
        # A word of the query the vault has in neither language cannot be matched by any note:
        # it tells that the question is not answered (the query's strength, below), not which
        # note answers it best.
        sources = set(translated.values())
        reachable = {
            term: weight
            for term, weight in weights.items()
            if stats.frequencies.get(term) or term in sources
        }
    coverages = {
        hit.chunk.id: coverage(hit.matched, reachable, translated, share) for hit in keyword_hits
    }
    # name -> (candidates with their evidence, best first; weight in the default rule)
    sides: dict[str, tuple[list[tuple[Hashable, float]], float]] = {}
    if use_keyword:
        evidence = keyword_evidence(list(coverages.values()), list(keyword_scores.values()))
        sides["keyword"] = (
            _best_first(zip(coverages, evidence, strict=True)),
            1.0 - settings.vector_weight,
        )
    similarities: dict[str, float] = {}
    if vector_hits is not None and use_vector:
        placed, similarities = _vector_side(
            request, vector_hits, graph, keyword, chunks, scales, count, allowed
        )
        sides["vector"] = (placed, settings.vector_weight)
    if len(sides) == 1:  # a side alone has weight 1
        sides = {name: (ranked, 1.0) for name, (ranked, _) in sides.items()}
    ties: dict[Hashable, tuple[str, int]] = {
        key: (chunk.path, chunk.start_line) for key, chunk in chunks.items()
    }
    rule = request.fusion or settings.fusion
    fused = fused_order(rule, sides, ties, settings)
    # The query's strength: the best evidence among each side's first candidates.
    firsts = {name: ranked[:STRENGTH_DEPTH] for name, (ranked, _) in sides.items()}
    matched = {hit.chunk.id: hit.matched for hit in keyword_hits}
    # A translation is a guess: whether the query is answered at all rests on its own words.
    found = round(
        strength(
            [coverage(matched[str(key)], weights) for key, _ in firsts.get("keyword", [])],
            [min(1.0, max(0.0, value)) for _, value in firsts.get("vector", [])],
        ),
        6,
    )
    # Keyword hits contain the query's words; nearest neighbours always exist, and only their
    # evidence says whether they answer.
    wanted = settings.min_strength if request.min_strength is None else request.min_strength
    weak = use_vector and found < wanted
    emptied = bool((fused or vector_hits) and (weak or (not keyword_hits and found == 0)))
    if emptied:
        fused = []
        warnings = [*warnings, f"nothing in the vault answers this closely (evidence {found:.2f})"]
    others: dict[str, list[Fused]] = {}
    if not request.sections:
        # A note's fields are evidence; reciprocal ranks are not on its scale.
        by_evidence = use_keyword and rule != "rrf"
        names: dict[str, frozenset[str]] = {}
        for hit in keyword_hits:
            names[hit.chunk.path] = names.get(hit.chunk.path, frozenset()) | hit.named
        named = named_notes(fused, chunks, graph, weights, names) if by_evidence else {}
        keyword_weight = sides["keyword"][1] if "keyword" in sides else 0.0
        fused, others = best_notes(fused, chunks, named, keyword_weight)
    if boost is not None:
        fused = boost.boosted(fused, chunks)
    if about:  # after the recall boost: what the asker names outweighs what was shown before
        fused = favoured(fused, chunks, about, settings.about_boost)
    shown = _shown(fused, found)
    # scores fall with rank: min_score drops the tail, whatever the mode
    chosen = [item for item in fused if shown(item.score) >= request.min_score]
    hits = []
    for item in chosen[: request.limit]:
        key = str(item.key)
        ranks = dict(zip(sides, item.ranks, strict=True))
        hits.append(
            _hit(
                chunks[key],
                shown(item.score),
                keyword_scores.get(key),
                ranks.get("keyword"),
                similarities.get(key),
                ranks.get("vector"),
                [term for term in (*terms, *translated) if term in matched.get(key, ())],
                graph,
                tuple(
                    _other(chunks[str(o.key)], shown(o.score))
                    for o in others.get(chunks[key].path, ())
                ),
            )
        )
    if request.expand:
        hits = expand_hits(graph, hits, settings.expand_limit)
    shown_hits, budget = within_budget(hits, request.budget_tokens)
    counts = SearchCounts(
        keyword=len(keyword_scores), vector=len(similarities), hybrid=len(sides) > 1
    )
    response = SearchResponse(
        request.query, tuple(shown_hits), counts, request.mode, tuple(warnings), found, rule, budget
    )
    return Ranking(
        request=request,
        terms=tuple(terms),
        chunks=chunks,
        keyword_ranks=_side_ranks(sides.get("keyword")),
        keyword_scores=keyword_scores,
        matched=matched,
        vector_ranks=_side_ranks(sides.get("vector")),
        similarities=similarities,
        ranked=tuple((item, shown(item.score)) for item in fused),
        strength=found,
        min_strength=wanted,
        weak=emptied,
        unknown_words=unknown_words,
        keyword_ran=use_keyword,
        vector_ran=use_vector,
        candidates=count,
        listed=tuple(hits),
        response=response,
    )


def favoured(
    fused: list[Fused], chunks: Mapping[str, Chunk], about: frozenset[str], boost: float
) -> list[Fused]:
    """`boost` added to the score of each result whose note is in `about`, on the scale the
    results show (`_shown`: 1 is the distance from the last to the first), and the list in order
    again: the ones boosted, and the others, each keep their order among themselves, and scores
    still fall with rank (vaults' answers merge by them)."""
    lift = boost * score_spread(fused)
    return lifted(fused, chunks, lambda path: lift if path in about else 0.0)


def _side_ranks(side: tuple[list[tuple[Hashable, float]], float] | None) -> dict[str, int]:
    """Each candidate's 1-based rank on a side, by the side's evidence."""
    if side is None:
        return {}
    return {str(key): rank for rank, (key, _) in enumerate(side[0], 1)}


def _vector_side(
    request: SearchRequest,
    vector_hits: Sequence[VectorHit],
    graph: LinkGraph,
    keyword: KeywordReader,
    chunks: dict[str, Chunk],
    scales: Sequence[SimilarityScale],
    count: int,
    allowed: frozenset[str] | None,
) -> tuple[list[tuple[Hashable, float]], dict[str, float]]:
    """The vector side's candidates with their evidence, best first, and their similarities:
    those of notes in the dates and scope asked for (`allowed`, None for every note). Adds the
    chunks only the vector side found to `chunks`."""
    dated = [
        hit
        for hit in vector_hits
        if (allowed is None or hit.path in allowed) and in_dates(graph, hit.path, request)
    ][:count]
    # Below the floor, only a keyword match makes a chunk a candidate.
    dated = [
        hit
        for hit in dated
        if hit.similarity >= scale_of(hit, scales).floor or hit.chunk_id in chunks
    ]
    chunks.update(
        keyword.chunks_by_id([hit.chunk_id for hit in dated if hit.chunk_id not in chunks])
    )
    dated = [hit for hit in dated if hit.chunk_id in chunks]
    placed = [(hit.chunk_id, scale_of(hit, scales).placed(hit.similarity)) for hit in dated]
    return _best_first(placed), {hit.chunk_id: hit.similarity for hit in dated}


def _other(chunk: Chunk, score: float) -> OtherSection:
    return OtherSection(chunk.start_line, chunk.end_line, chunk.heading, chunk.breadcrumb, score)


def _best_first(pairs: Iterable[tuple[Hashable, float]]) -> list[tuple[Hashable, float]]:
    """Candidates by their evidence, best first; equal evidence keeps the side's own order."""
    return sorted(pairs, key=lambda pair: -pair[1])


def _shown(fused: list[Fused], strength: float) -> Callable[[float], float]:
    """What a result's score shows: its fused score relative to the first result's, times the
    query's strength. The first result shows the strength, the rest fall with rank, and
    `--min-score` cuts the same amount of doubt from every query."""
    floor = min(0.0, min((item.score for item in fused), default=0.0))
    spread = score_spread(fused)

    def shown(score: float) -> float:
        if spread <= 0:
            return round(strength, 12)
        return round(strength * min(1.0, max(0.0, (score - floor) / spread)), 12)

    return shown


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
