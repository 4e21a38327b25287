"""The JSON of a search: `memlsp search --json` (one vault's answer, and one line of
`--queries`) and `memlsp/search` (every open vault's answers merged, each result with its URI)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypedDict

from memlsp.model import Hit, Neighbour, OtherSection, SearchRequest, SearchResponse


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
    }


def search_counts_json(keyword: int, vector: int, hybrid: bool) -> SearchCountsJson:
    return {"keyword": keyword, "vector": vector, "hybrid": hybrid}


def search_answer_json(response: SearchResponse) -> SearchAnswerJson:
    counts = response.counts
    return {
        "query": response.query,
        "mode": response.mode,
        "fusion": response.fusion,
        "warnings": list(response.warnings),
        "strength": response.strength,
        "counts": search_counts_json(counts.keyword, counts.vector, counts.hybrid),
        "results": [search_result_json(hit) for hit in response.hits],
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


def vault_search_answer_json(
    request: SearchRequest, vaults: Sequence[VaultAnswer]
) -> VaultSearchAnswerJson:
    """Every vault's answer merged: results ranked by score across vaults (a score means the
    same in every vault), cut at the request's limit; counts summed, the strongest evidence."""
    results: list[VaultSearchResultJson] = []
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
        results += (
            {**search_result_json(hit), "uri": vault.note_uri(hit.chunk.path), "root": vault.root}
            for hit in response.hits
        )
        keyword += response.counts.keyword
        vector += response.counts.vector
        hybrid = hybrid or response.counts.hybrid
        strength = max(strength, response.strength)
        rules.add(response.fusion)
        warnings += (f"{vault.name}: {warning}" for warning in response.warnings)
    results.sort(key=lambda r: (-r["score"], r["path"], r["start_line"]))
    return {
        "query": request.query,
        "mode": request.mode,
        "fusion": request.fusion or ", ".join(sorted(rules)),
        "warnings": warnings,
        "strength": strength,
        "counts": search_counts_json(keyword, vector, hybrid),
        "results": results[: request.limit],
    }
