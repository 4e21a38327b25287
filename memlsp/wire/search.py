"""The JSON of a search: `memlsp search --json` (one vault's answer, and one line of
`--queries`) and `memlsp/search` (every open vault's answers merged, each result with its URI);
both name what their token budget left out (`dropped`) and what the shown results cost."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import TypedDict

from memlsp.model import (
    BudgetCut,
    Dropped,
    Explanation,
    Facts,
    Hit,
    KeywordEvidence,
    Neighbour,
    OtherSection,
    SearchRequest,
    SearchResponse,
    VectorEvidence,
    Verdict,
)
from memlsp.search.budget import cut_warnings, within_budget
from memlsp.search.explain import merged_verdicts, placed
from memlsp.wire.reading import recalled_at


class NeighbourJson(TypedDict):
    """A linked note, as listed under a result's outlinks and inlinks."""

    path: str
    name: str
    description: str
    anchors: list[str]
    source: str  # always "link"


class OtherSectionJson(TypedDict):
    """Another matching section of a result's note ("also matched:" in the text form)."""

    start_line: int
    end_line: int
    heading: str
    breadcrumb: list[str]
    score: float


class SearchResultJson(TypedDict):
    """One result of `memlsp search --json`: a note at its best section, with the evidence."""

    path: str
    start_line: int  # 1-based, inclusive
    end_line: int
    title: str
    heading: str  # "" for the text before a note's first heading
    breadcrumb: list[str]
    date: str | None
    score: float
    keyword_score: float | None
    keyword_rank: int | None
    vector_score: float | None
    vector_rank: int | None
    matched_terms: list[str]
    source: str  # "hit"
    chunk_id: str
    text: str
    outlinks: list[NeighbourJson]
    inlinks: list[NeighbourJson]
    other_sections: list[OtherSectionJson]
    # How many searches shown to someone held this note, this one included when it was counted,
    # and when the last was (ISO-8601 UTC, "Z"; None: never): index/recall.py.
    recall_count: int
    last_recalled_at: str | None


class DroppedJson(TypedDict):
    """A result the token budget left out, in rank order after those shown."""

    path: str
    heading: str  # its section's headings as `read` takes them ("A#B"); "" for the note's top
    score: float
    tokens: int  # what it would have cost, by the measure of the budget that left it out


class KeywordEvidenceJson(TypedDict):
    """What the keyword side found in an explained note."""

    rank: int | None  # its best section's rank among the side's candidates; None past them
    score: float | None  # BM25 of that section; None when no query term is in the note
    matched_terms: list[str]


class VectorEvidenceJson(TypedDict):
    """What the vector side found of an explained note."""

    rank: int | None  # its nearest section's rank among the side's candidates; None past them
    similarity: float | None  # None: not embedded yet (or no section of it has a vector)
    embedded: bool


class _ExplainJson(TypedDict):
    note: str  # as it was asked for
    path: str | None  # the vault-relative path it names; None when it names no file
    verdict: Verdict
    sentence: str  # the verdict in plain words
    keyword: KeywordEvidenceJson | None  # None: that side did not run, or the note is none
    vector: VectorEvidenceJson | None


class ExplainJson(_ExplainJson, total=False):
    """Why a note asked about (`explain`) is or is not in the answer. The facts the verdict
    rests on come as they apply: `rank`, `score`, `heading` (the section shown), `filter`
    (path, tag, property or date), `floor` (min_score or min_strength) with `floor_value` and
    `strength`, `limit`, `last_score`, `candidates`, `tokens` and `tokens_left`, `linked_from`
    and `linked_rank`, `reason` (why a file is not a note), `terms` (the query's words, as
    typed)."""

    rank: int
    score: float
    heading: str
    filter: str
    floor: str
    floor_value: float
    strength: float
    limit: int
    last_score: float | None
    candidates: int
    tokens: int
    tokens_left: int
    linked_from: str
    linked_rank: int
    reason: str
    terms: str


class SearchCountsJson(TypedDict):
    keyword: int  # candidates from each side
    vector: int
    hybrid: bool  # both sides ran


class SearchAnswerJson(TypedDict):
    """`memlsp search --json`: one vault's answer."""

    query: str
    mode: str
    fusion: str  # the rule that fused the sides: "evidence" or "rrf"
    warnings: list[str]
    strength: float
    counts: SearchCountsJson
    results: list[SearchResultJson]
    # `results` then `dropped` are the results of the same search without a budget, in order.
    dropped: list[DroppedJson]
    budget_used: int | None  # tokens of the results shown; None when no budget was asked for
    explain: list[ExplainJson]  # one per note the request asked about, in its order


class QueryAnswerJson(SearchAnswerJson):
    """One line of `memlsp search --queries FILE --json`: the answer under the line's id."""

    id: object  # whatever the line gave (its number when it gave none)


class QueryErrorJson(TypedDict):
    """A line of `--queries` that could not be answered."""

    id: object
    error: str


class VaultSearchResultJson(SearchResultJson):
    """A `memlsp/search` result: a result of the command line, plus where its note is."""

    uri: str  # the note
    root: str  # the vault holding it


class VaultDroppedJson(DroppedJson):
    """A result `memlsp/search`'s budget left out, with where its note is."""

    uri: str
    root: str


class VaultExplainJson(ExplainJson, total=False):
    """An explained note of `memlsp/search`, with where it is when it names a vault's file."""

    uri: str
    root: str


class VaultSearchAnswerJson(TypedDict):
    """`memlsp/search`: the answers of every open vault as one, best results first."""

    query: str
    mode: str
    # The rule that fused the sides: the request's, else the vaults' (", "-joined when they
    # differ); "" when no vault answered and the request named none.
    fusion: str
    warnings: list[str]
    strength: float
    counts: SearchCountsJson
    results: list[VaultSearchResultJson]
    dropped: list[VaultDroppedJson]  # the budget is the merged answer's, over every vault's
    budget_used: int | None
    explain: list[VaultExplainJson]


def neighbour_json(neighbour: Neighbour) -> NeighbourJson:
    return {
        "path": neighbour.path,
        "name": neighbour.name,
        "description": neighbour.description,
        "anchors": list(neighbour.anchors),
        "source": "link",
    }


def other_section_json(other: OtherSection) -> OtherSectionJson:
    return {
        "start_line": other.start_line,
        "end_line": other.end_line,
        "heading": other.heading,
        "breadcrumb": list(other.breadcrumb),
        "score": other.score,
    }


def search_result_json(hit: Hit) -> SearchResultJson:
    chunk = hit.chunk
    return {
        "path": chunk.path,
        "start_line": chunk.start_line,
        "end_line": chunk.end_line,
        "title": hit.title,
        "heading": chunk.heading,
        "breadcrumb": list(chunk.breadcrumb),
        "date": hit.date,
        "score": hit.score,
        "keyword_score": hit.keyword_score,
        "keyword_rank": hit.keyword_rank,
        "vector_score": hit.vector_score,
        "vector_rank": hit.vector_rank,
        "matched_terms": list(hit.matched_terms),
        "source": hit.source,
        "chunk_id": chunk.id,
        "text": chunk.text,
        "outlinks": [neighbour_json(n) for n in hit.outlinks],
        "inlinks": [neighbour_json(n) for n in hit.inlinks],
        "other_sections": [other_section_json(other) for other in hit.other_sections],
        "recall_count": hit.recall.recall_count,
        "last_recalled_at": recalled_at(hit.recall),
    }


def dropped_json(dropped: Dropped) -> DroppedJson:
    return {
        "path": dropped.path,
        "heading": dropped.heading,
        "score": dropped.score,
        "tokens": dropped.tokens,
    }


# The facts a verdict may rest on, each sent when it applies (model.Facts).
_FACTS = tuple(field.name for field in fields(Facts))


def explain_json(explanation: Explanation) -> ExplainJson:
    answer: ExplainJson = {
        "note": explanation.note,
        "path": explanation.path,
        "verdict": explanation.verdict,
        "sentence": explanation.sentence,
        "keyword": _keyword_json(explanation.keyword),
        "vector": _vector_json(explanation.vector),
    }
    facts = explanation.facts
    for name in _FACTS:
        value = getattr(facts, name)
        if value is not None:
            answer[name] = value  # type: ignore[literal-required]
    return answer


def _keyword_json(evidence: KeywordEvidence | None) -> KeywordEvidenceJson | None:
    if evidence is None:
        return None
    return {
        "rank": evidence.rank,
        "score": evidence.score,
        "matched_terms": list(evidence.matched_terms),
    }


def _vector_json(evidence: VectorEvidence | None) -> VectorEvidenceJson | None:
    if evidence is None:
        return None
    return {"rank": evidence.rank, "similarity": evidence.similarity, "embedded": evidence.embedded}


def search_counts_json(keyword: int, vector: int, hybrid: bool) -> SearchCountsJson:
    return {"keyword": keyword, "vector": vector, "hybrid": hybrid}


def search_answer_json(response: SearchResponse) -> SearchAnswerJson:
    counts = response.counts
    return {
        "query": response.query,
        "mode": response.mode,
        "fusion": response.fusion,
        "warnings": [*response.warnings, *cut_warnings(response.budget)],
        "strength": response.strength,
        "counts": search_counts_json(counts.keyword, counts.vector, counts.hybrid),
        "results": [search_result_json(hit) for hit in response.hits],
        "dropped": [dropped_json(d) for d in response.budget.dropped] if response.budget else [],
        "budget_used": response.budget.budget_used if response.budget else None,
        "explain": [explain_json(item) for item in response.explained],
    }


def query_answer_json(query_id: object, response: SearchResponse) -> QueryAnswerJson:
    return {"id": query_id, **search_answer_json(response)}


def query_error_json(query_id: object, error: str) -> QueryErrorJson:
    return {"id": query_id, "error": error}


@dataclass(frozen=True, slots=True)
class VaultAnswer:
    """One vault's part of a `memlsp/search`: its answer (None before its index is open), why it
    may miss notes ("" once indexed), and how its notes are named on the wire."""

    name: str
    root: str  # the vault's URI
    note_uri: Callable[[str], str]  # vault-relative path -> URI
    response: SearchResponse | None
    incomplete: str = ""


def each_vault(request: SearchRequest) -> SearchRequest:
    """What each vault of a `memlsp/search` is asked: the budget is the merged answer's, so that
    what it shows and leaves out are the merged results in order, whichever vault holds them."""
    return replace(request, budget_tokens=None)


def vault_search_answer_json(
    request: SearchRequest, vaults: Sequence[VaultAnswer]
) -> VaultSearchAnswerJson:
    """Every vault's answer (to `each_vault(request)`) merged: results ranked by score across
    vaults (a score means the same in every vault), cut at the request's limit, then to its
    budget; counts summed, the strongest evidence. A list by filters alone (no query) gives
    each vault's notes newest first, vault after vault."""
    found: list[tuple[Hit, VaultAnswer]] = []
    warnings: list[str] = []
    keyword = vector = 0
    hybrid = False
    strength = 0.0
    rules: set[str] = set()
    for vault in vaults:
        if vault.incomplete:
            warnings.append(vault.incomplete)
        response = vault.response
        if response is None:
            continue
        found += ((hit, vault) for hit in response.hits)
        keyword += response.counts.keyword
        vector += response.counts.vector
        hybrid = hybrid or response.counts.hybrid
        strength = max(strength, response.strength)
        rules.add(response.fusion)
        warnings += (f"{vault.name}: {warning}" for warning in response.warnings)
    if request.query:  # a list by filters alone keeps each vault's order: newest first
        found.sort(key=lambda pair: (-pair[0].score, pair[0].chunk.path, pair[0].chunk.start_line))
    found = found[: request.limit]
    listed = [hit for hit, _ in found]
    shown, budget = within_budget(listed, request.budget_tokens)
    left = budget.dropped if budget else ()
    explained = _explained_across(vaults, shown, listed, budget)
    return {
        "query": request.query,
        "mode": request.mode,
        "fusion": request.fusion or ", ".join(sorted(rules)),
        "warnings": [*warnings, *cut_warnings(budget)],
        "strength": strength,
        "counts": search_counts_json(keyword, vector, hybrid),
        "results": [
            {**search_result_json(hit), "uri": vault.note_uri(hit.chunk.path), "root": vault.root}
            for hit, vault in found[: len(shown)]
        ],
        "dropped": [
            {**dropped_json(d), "uri": vault.note_uri(d.path), "root": vault.root}
            for d, (_, vault) in zip(left, found[len(shown) :], strict=True)
        ],
        "budget_used": budget.budget_used if budget else None,
        "explain": explained,
    }


def _explained_across(
    vaults: Sequence[VaultAnswer],
    shown: Sequence[Hit],
    listed: Sequence[Hit],
    budget: BudgetCut | None,
) -> list[VaultExplainJson]:
    """Each explained note's verdict from the vault that holds it, judged again against the
    merged answer (its rank there, the merged limit and budget)."""
    answered = [vault for vault in vaults if vault.response is not None]
    chosen = merged_verdicts([vault.response.explained for vault in answered if vault.response])
    verdicts = placed([item for item, _ in chosen], shown, listed, budget)
    answer: list[VaultExplainJson] = []
    for item, (_, index) in zip(verdicts, chosen, strict=True):
        entry: VaultExplainJson = {**explain_json(item)}  # type: ignore[typeddict-item]
        if index is not None and item.path is not None and item.verdict != "not_a_note":
            vault = answered[index]
            entry["uri"] = vault.note_uri(item.path)
            entry["root"] = vault.root
        answer.append(entry)
    return answer
