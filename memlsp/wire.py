"""Every JSON shape memlsp writes of its own: the `memlsp/*` requests and notifications of the
language server and the command line's `--json` output.

Each shape is a `TypedDict` with one builder from the domain values, so a name is chosen once for
the server and the command line alike. `vscode-extension/src/wire.ts` declares the shapes a client
reads under the same names, and `tests/test_wire_schema.py` fails when the two differ.

Nothing here knows LSP types: URIs come in as strings, or as a function naming a note's URI, and
columns are counted in the unit the client negotiated (`Span.columns`).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypedDict, cast

from memlsp.engine.snapshot import NoteLinks
from memlsp.index.semantic import VectorStatus
from memlsp.model import (
    Heading,
    Hit,
    IndexSummary,
    Neighbour,
    Note,
    OtherSection,
    ResolvedLink,
    SearchRequest,
    SearchResponse,
    Skipped,
    Span,
)
from memlsp.navigation.diagnostics import ProblemCounts
from memlsp.navigation.mentions import Mention, MentionsAnswer
from memlsp.navigation.neighbourhood import Neighbourhood
from memlsp.navigation.reading import Passage
from memlsp.navigation.recent import RecentChanges
from memlsp.search.related import RelatedAnswer, RelatedNote, SectionPair

if TYPE_CHECKING:  # the command line has no live vault: it need not load the watcher
    from memlsp.live.status import VaultStatus

# The values `VaultStatus.state` and `VectorStatus.state` take (memlsp/live.py,
# memlsp/index/semantic.py); a client switches on them, so they are spelled out.
VaultState = Literal["opening", "indexing", "ready", "failed", "stopped"]
VectorState = Literal["off", "connecting", "ready", "unavailable"]
# `LinkStatus` of memlsp/model.py.
LinkState = Literal["resolved", "ambiguous", "unresolved", "outside"]

# -- search ------------------------------------------------------------------------------------


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


# -- links -------------------------------------------------------------------------------------


class PositionJson(TypedDict):
    line: int  # 0-based
    character: int  # in the unit the client negotiated


class RangeJson(TypedDict):
    start: PositionJson
    end: PositionJson


class LinkJson(TypedDict):
    """A link and where it goes."""

    source: str  # the linking note
    target: str  # as written ("" for a link inside the note)
    anchor: str  # heading path or ^block, "" for none
    kind: str  # "wiki" or "markdown"
    embed: bool
    status: str  # "resolved", "ambiguous", "unresolved" or "outside"
    targets: list[str]
    candidates: list[str]


class VaultLinkJson(LinkJson):
    """A link of `memlsp/links`: where it is written, for an editor."""

    uri: str  # the linking note
    range: RangeJson


class LinksAnswerJson(TypedDict):
    """`memlsp/links`: every link out of a note and into it."""

    uri: str
    path: str
    outlinks: list[VaultLinkJson]
    inlinks: list[VaultLinkJson]
    unresolved: list[VaultLinkJson]
    ambiguous: list[VaultLinkJson]


class LinkLineJson(LinkJson):
    """A link of `memlsp links --json`: where it is written, for a person."""

    line: int  # 1-based
    column: int  # 1-based, in code points


class LinksJson(TypedDict):
    """`memlsp links --json`."""

    path: str
    outlinks: list[LinkLineJson]
    inlinks: list[LinkLineJson]
    unresolved: list[LinkLineJson]
    ambiguous: list[LinkLineJson]


def range_json(span: Span, encoding: str) -> RangeJson:
    start, end = span.columns(encoding)
    return {
        "start": {"line": span.line, "character": start},
        "end": {"line": span.line, "character": end},
    }


def link_json(item: ResolvedLink) -> LinkJson:
    link = item.link
    return {
        "source": item.source,
        "target": link.target,
        "anchor": link.anchor,
        "kind": link.kind.value,
        "embed": link.embed,
        "status": item.resolution.status.value,
        "targets": list(item.resolution.targets),
        "candidates": list(item.resolution.candidates),
    }


def vault_link_json(item: ResolvedLink, source_uri: str, encoding: str) -> VaultLinkJson:
    return {**link_json(item), "uri": source_uri, "range": range_json(item.link.span, encoding)}


def links_answer_json(
    uri: str, links: NoteLinks, note_uri: Callable[[str], str], encoding: str
) -> LinksAnswerJson:
    def one(item: ResolvedLink) -> VaultLinkJson:
        return vault_link_json(item, note_uri(item.source), encoding)

    return {
        "uri": uri,
        "path": links.path,
        "outlinks": [one(item) for item in links.outlinks],
        "inlinks": [one(item) for item in links.inlinks],
        "unresolved": [one(item) for item in links.unresolved],
        "ambiguous": [one(item) for item in links.ambiguous],
    }


def link_line_json(item: ResolvedLink) -> LinkLineJson:
    span = item.link.span
    return {**link_json(item), "line": span.line + 1, "column": span.start + 1}


def links_json(links: NoteLinks) -> LinksJson:
    return {
        "path": links.path,
        "outlinks": [link_line_json(item) for item in links.outlinks],
        "inlinks": [link_line_json(item) for item in links.inlinks],
        "unresolved": [link_line_json(item) for item in links.unresolved],
        "ambiguous": [link_line_json(item) for item in links.ambiguous],
    }


# -- related notes ------------------------------------------------------------------------------


class SectionPairJson(TypedDict):
    """The closest pair of sections of a note and a related one."""

    mine: list[str]  # breadcrumb of the note's own section
    mine_line: int  # 1-based
    theirs: list[str]
    theirs_line: int
    similarity: float


class RelatedNoteJson(TypedDict):
    path: str
    title: str
    score: float  # 0..1
    linked: bool  # the two notes link one to the other (shown, not hidden)
    reason: str
    closest: SectionPairJson
    shared_tags: list[str]


class _RelatedJson(TypedDict):
    note: str
    results: list[RelatedNoteJson]


class RelatedJson(_RelatedJson, total=False):
    """`memlsp related --json`."""

    warning: str  # why there are no results, or fewer than there could be


def section_pair_json(pair: SectionPair) -> SectionPairJson:
    return {
        "mine": list(pair.mine),
        "mine_line": pair.mine_line,
        "theirs": list(pair.theirs),
        "theirs_line": pair.theirs_line,
        "similarity": pair.similarity,
    }


def related_note_json(note: RelatedNote) -> RelatedNoteJson:
    return {
        "path": note.path,
        "title": note.title,
        "score": note.score,
        "linked": note.linked,
        "reason": note.reason,
        "closest": section_pair_json(note.closest),
        "shared_tags": list(note.shared_tags),
    }


def related_json(answer: RelatedAnswer) -> RelatedJson:
    data: RelatedJson = {
        "note": answer.note,
        "results": [related_note_json(note) for note in answer.results],
    }
    if answer.warning:
        data["warning"] = answer.warning
    return data


class RelatedNoteAnswerJson(RelatedNoteJson):
    """A related note of `memlsp/related`."""

    uri: str
    link: str  # what goes inside `[[…]]` in the asking note: the shortest text that leads there


class _RelatedAnswerJson(TypedDict):
    note: str  # the asking note's URI
    path: str
    results: list[RelatedNoteAnswerJson]


class RelatedAnswerJson(_RelatedAnswerJson, total=False):
    """`memlsp/related`: the notes closest in meaning to a note."""

    warning: str


def related_answer_json(
    uri: str, answer: RelatedAnswer, note_uri: Callable[[str], str], link: Callable[[str], str]
) -> RelatedAnswerJson:
    data: RelatedAnswerJson = {
        "note": uri,
        "path": answer.note,
        "results": [
            {**related_note_json(note), "uri": note_uri(note.path), "link": link(note.path)}
            for note in answer.results
        ],
    }
    if answer.warning:
        data["warning"] = answer.warning
    return data


# -- unlinked mentions ------------------------------------------------------------------------


class MentionLineJson(TypedDict):
    """A mention of `memlsp mentions --json`: where it is written, for a person."""

    path: str  # the note where the name is written
    line: int  # 1-based
    start: int  # 1-based column, in code points
    end: int  # 1-based column just after it
    text: str  # as written
    targets: list[str]  # every note with that name; more than one: a shared name


class MentionsJson(TypedDict):
    """`memlsp mentions --json`: the unlinked mentions of a note in the other notes."""

    note: str
    mentions: list[MentionLineJson]
    left_out: int  # mentions beyond the first ones listed


def mention_line_json(mention: Mention) -> MentionLineJson:
    span = mention.span
    return {
        "path": mention.path,
        "line": span.line + 1,
        "start": span.start + 1,
        "end": span.end + 1,
        "text": mention.text,
        "targets": list(mention.targets),
    }


def mentions_json(answer: MentionsAnswer) -> MentionsJson:
    return {
        "note": answer.note,
        "mentions": [mention_line_json(mention) for mention in answer.mentions],
        "left_out": answer.left_out,
    }


class MentionAnswerJson(TypedDict):
    """A mention of `memlsp/mentions`: where it is, in the client's position encoding."""

    uri: str
    path: str
    range: RangeJson
    text: str
    targets: list[str]


class _MentionsAnswerJson(TypedDict):
    note: str  # the mentioned note's URI
    path: str
    mentions: list[MentionAnswerJson]
    left_out: int


class MentionsAnswerJson(_MentionsAnswerJson, total=False):
    """`memlsp/mentions`: where other notes write a note's name as plain text."""

    warning: str


def mentions_answer_json(
    uri: str, answer: MentionsAnswer, note_uri: Callable[[str], str], encoding: str
) -> MentionsAnswerJson:
    data: MentionsAnswerJson = {
        "note": uri,
        "path": answer.note,
        "mentions": [
            {
                "uri": note_uri(mention.path),
                "path": mention.path,
                "range": range_json(mention.span, encoding),
                "text": mention.text,
                "targets": list(mention.targets),
            }
            for mention in answer.mentions
        ],
        "left_out": answer.left_out,
    }
    if answer.warning:
        data["warning"] = answer.warning
    return data


# -- the link graph around a note ---------------------------------------------------------------

GraphDirection = Literal["both", "out", "in"]
GraphNodeKind = Literal["note", "file", "unresolved"]
GraphEdgeKind = Literal["link", "meaning"]  # links as written; a note's closest notes by meaning


class _GraphNodeJson(TypedDict):
    id: str  # a vault file's path, or an unresolved link's target as written
    kind: GraphNodeKind
    title: str  # a note's title, another file's name, an unresolved target's text
    distance: int | None  # links from the note asked about; None: reached only by meaning
    inlinks: int  # notes in the whole vault that link to it
    description: str  # a note's description, "" for other nodes
    tags: list[str]  # a note's tags without '#', each once, in the note's order


class GraphNodeJson(_GraphNodeJson, total=False):
    uri: str  # `memlsp/graph` only, for "note" and "file" nodes


class GraphEdgeJson(TypedDict):
    source: str  # node ids; a link always as written, source -> target; meaning from the note
    target: str
    kind: GraphEdgeKind
    count: int  # links written in source that lead to target; 0 for meaning
    line: int | None  # 1-based line of the first of them in source; None for meaning
    similarity: float | None  # meaning: the closest pair of sections' similarity, 0..1


class GraphLeftOutJson(TypedDict):
    nodes: int  # what the caps left out of the answer
    edges: int


class GraphJson(TypedDict):
    """`memlsp graph --json` and `memlsp/graph`: the notes within `depth` links of a note, the
    links between them (memlsp/navigation/neighbourhood.py says which), and the note's closest
    notes by meaning (memlsp/navigation/graph_meaning.py)."""

    note: str
    depth: int
    direction: GraphDirection
    nodes: list[GraphNodeJson]  # by distance, then id; those reached only by meaning last
    edges: list[GraphEdgeJson]  # by source, then target, then kind
    left_out: GraphLeftOutJson
    cut: str | None  # what the caps left out and how to see more; None when nothing
    warning: str | None  # why there are no meaning edges, when some were asked for


def graph_json(answer: Neighbourhood, note_uri: Callable[[str], str] | None = None) -> GraphJson:
    """The answer as JSON; with `note_uri`, each note's and file's `uri` (for an editor)."""
    nodes: list[GraphNodeJson] = []
    for node in answer.nodes:
        data: GraphNodeJson = {
            "id": node.id,
            "kind": node.kind,
            "title": node.title,
            "distance": node.distance,
            "inlinks": node.inlinks,
            "description": node.description,
            "tags": list(node.tags),
        }
        if note_uri is not None and node.kind != "unresolved":
            data["uri"] = note_uri(node.id)
        nodes.append(data)
    return {
        "note": answer.note,
        "depth": answer.depth,
        "direction": answer.direction,
        "nodes": nodes,
        "edges": [
            {
                "source": edge.source,
                "target": edge.target,
                "kind": edge.kind,
                "count": edge.count,
                "line": edge.line,
                "similarity": edge.similarity,
            }
            for edge in answer.edges
        ],
        "left_out": {"nodes": answer.left_out.nodes, "edges": answer.left_out.edges},
        "cut": answer.cut,
        "warning": answer.warning,
    }


# -- reading a note, and the notes changed lately ---------------------------------------------


class ReadLinkJson(TypedDict):
    """A link written in the lines `memlsp read` gives, and where it goes."""

    line: int  # 1-based
    target: str  # as written ("" for a link inside the note)
    anchor: str | None  # heading path (`A#B`) or ^block
    status: LinkState
    paths: list[str]  # where it goes (several: notes sharing an alias); [] when nowhere


class ReadHeadingJson(TypedDict):
    level: int
    text: str  # as written
    line: int  # 1-based


class ReadJson(TypedDict):
    """`memlsp read --json`: a note, one section of it or a range of its lines, as it is now."""

    path: str
    title: str
    heading: str | None  # the section's heading as written, when one was asked for
    start_line: int  # 1-based, inclusive: the lines in `text`
    end_line: int
    line_count: int  # the whole note's
    frontmatter: dict[str, object]  # parsed; dates as ISO strings; {} when none or invalid
    text: str  # exactly the lines, joined by "\n"
    links: list[ReadLinkJson]  # written in these lines, in order
    headings: list[ReadHeadingJson]  # all of the note's, to pick a section by
    cut: str | None  # which lines the token budget left out, and how to read on


class RecentNoteJson(TypedDict):
    path: str
    title: str
    modified: str  # ISO-8601 UTC, to the second, with "Z"
    unsaved: bool  # an editor's buffer holds text its file does not: changed now
    description: str  # may be ""


class RecentJson(TypedDict):
    """`memlsp recent --json`: the notes changed lately, newest first."""

    days: float
    since: str  # the window's start, ISO-8601 UTC, to the second, with "Z"
    notes: list[RecentNoteJson]
    more: int  # changed in the window, beyond the limit


# YAML nests as deep as a document likes; JSON written by Python recursion does not.
FRONTMATTER_DEPTH = 64
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_FIRST_SECOND = -62_135_596_800  # 0001-01-01T00:00:00Z
_LAST_SECOND = 253_402_300_799  # 9999-12-31T23:59:59Z


def read_link_json(item: ResolvedLink) -> ReadLinkJson:
    link = item.link
    return {
        "line": link.span.line + 1,
        "target": link.target,
        "anchor": link.anchor or None,
        "status": item.resolution.status.value,
        "paths": list(item.resolution.targets),
    }


def read_heading_json(heading: Heading) -> ReadHeadingJson:
    return {"level": heading.level, "text": heading.text, "line": heading.line + 1}


def read_json(passage: Passage) -> ReadJson:
    frontmatter = json_value(dict(passage.frontmatter))
    return {
        "path": passage.path,
        "title": passage.title,
        "heading": None if passage.heading is None else passage.heading.text,
        "start_line": passage.start_line,
        "end_line": passage.end_line,
        "line_count": passage.line_count,
        "frontmatter": frontmatter if isinstance(frontmatter, dict) else {},
        "text": passage.text,
        "links": [read_link_json(item) for item in passage.links],
        "headings": [read_heading_json(heading) for heading in passage.headings],
        "cut": passage.cut,
    }


def json_value(value: object, depth: int = 0) -> object:
    """A parsed YAML value as JSON writes it: dates as ISO strings, mappings with string keys,
    sets as lists, and what JSON has no word for (bytes, NaN) as a string."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dt.date):  # a datetime too
        return value.isoformat()
    if depth >= FRONTMATTER_DEPTH and isinstance(value, Mapping | list | tuple | set | frozenset):
        return "(nested too deep)"
    if isinstance(value, Mapping):
        return {str(key): json_value(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(item, depth + 1) for item in value]
    if isinstance(value, set | frozenset):
        return [json_value(item, depth + 1) for item in sorted(value, key=str)]
    return str(value)


def utc_text(ns: int) -> str:
    """A time in ns since 1970 as ISO-8601 UTC to the second (`2026-12-03T21:40:00Z`); a time
    outside years 1-9999 (a file's mtime can say anything) as the nearest one inside."""
    seconds = min(max(ns // 1_000_000_000, _FIRST_SECOND), _LAST_SECOND)
    moment = _EPOCH + dt.timedelta(seconds=seconds)
    return moment.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def recent_json(recent: RecentChanges, notes: Mapping[str, Note]) -> RecentJson:
    return {
        "days": float(recent.days),
        "since": utc_text(recent.since_ns),
        "notes": [
            {
                "path": change.path,
                "title": notes[change.path].title,
                "modified": utc_text(change.modified_ns),
                "unsaved": change.unsaved,
                "description": notes[change.path].description,
            }
            for change in recent.changes
        ],
        "more": recent.more,
    }


def json_text(data: object) -> str:
    """JSON keeping names as they are, with what `printable` escapes escaped the JSON way: json
    escapes C0 controls itself but leaves DEL, C1, bidi controls and lone surrogates (a name that
    is not UTF-8) raw, and a lone surrogate cannot be written as UTF-8 at all. Outside strings
    the only such character is the newline of the indentation."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    return JSON_UNPRINTABLE.sub(lambda m: m[0] if m[0] == "\n" else f"\\u{ord(m[0]):04x}", text)


# -- status and notifications ------------------------------------------------------------------


class VectorsJson(TypedDict):
    """The vector side of a vault."""

    state: VectorState
    embedder: str
    embedded: int  # chunks with their vector
    pending: int  # chunks still waiting for one
    problem: str  # why it is unavailable, "" when it is not


class VaultStatusJson(TypedDict):
    """One vault of `memlsp/status`."""

    root: str
    name: str
    summary: str  # one line in plain words
    busy: bool
    state: VaultState
    notes: int
    chunks: int
    revision: int
    indexed_files: int
    files_to_index: int
    pending_changes: int  # edits and file events not indexed yet
    message: str
    read_only: bool
    vectors: VectorsJson | None  # None before the index is open
    problems: ProblemsJson | None  # None before the index is open


class ProblemsJson(TypedDict):
    """How many links of the vault have each kind of problem (the diagnostics' kinds)."""

    unresolved: int
    missing_anchors: int
    ambiguous: int
    outside: int


class StatusAnswerJson(TypedDict):
    """`memlsp/status`."""

    version: str
    vaults: list[VaultStatusJson]


class ReindexAnswerJson(TypedDict):
    """`memlsp/reindex`: the vaults being scanned again."""

    vaults: list[str]


class IndexedJson(TypedDict):
    """`memlsp/indexed`, each time a vault's indexing finished."""

    root: str
    notes: int
    chunks: int
    links: int
    unresolved: int
    ambiguous: int
    skipped_count: int  # files left out (their list is in `memlsp index --json`'s `skipped`)
    seconds: float


class VectorsNoticeJson(TypedDict):
    """`memlsp/vectors`, when embedding caught up or cannot go on."""

    root: str
    vectors: VectorsJson


class ChangedJson(TypedDict):
    """`memlsp/changed`, after an update of the index."""

    root: str
    revision: int


def vectors_json(status: VectorStatus) -> VectorsJson:
    return {
        "state": cast(VectorState, status.state),
        "embedder": status.embedder,
        "embedded": status.stored,
        "pending": status.pending,
        "problem": status.problem,
    }


def vault_status_json(
    root: str, status: VaultStatus, problems: ProblemCounts | None = None
) -> VaultStatusJson:
    return {
        "root": root,
        "name": status.name,
        "summary": status.summary,
        "busy": status.busy,
        "state": cast(VaultState, status.state),
        "notes": status.notes,
        "chunks": status.chunks,
        "revision": status.revision,
        "indexed_files": status.files_done,
        "files_to_index": status.files_total,
        "pending_changes": status.pending,
        "message": status.message,
        "read_only": status.read_only,
        "vectors": None if status.vectors is None else vectors_json(status.vectors),
        "problems": None if problems is None else problems_json(problems),
    }


def problems_json(counts: ProblemCounts) -> ProblemsJson:
    return {
        "unresolved": counts.unresolved,
        "missing_anchors": counts.missing_anchors,
        "ambiguous": counts.ambiguous,
        "outside": counts.outside,
    }


def status_answer_json(version: str, vaults: Sequence[VaultStatusJson]) -> StatusAnswerJson:
    return {"version": version, "vaults": list(vaults)}


def reindex_answer_json(roots: Sequence[str]) -> ReindexAnswerJson:
    return {"vaults": list(roots)}


def indexed_json(root: str, summary: IndexSummary) -> IndexedJson:
    return {
        "root": root,
        "notes": summary.notes,
        "chunks": summary.chunks,
        "links": summary.links,
        "unresolved": summary.unresolved,
        "ambiguous": summary.ambiguous,
        "skipped_count": len(summary.skipped),
        "seconds": round(summary.seconds, 3),
    }


def vectors_notice_json(root: str, status: VectorStatus) -> VectorsNoticeJson:
    return {"root": root, "vectors": vectors_json(status)}


def changed_json(root: str, revision: int) -> ChangedJson:
    return {"root": root, "revision": revision}


# -- memlsp index --json -----------------------------------------------------------------------


class SkippedJson(TypedDict):
    path: str
    reason: str


class EmbeddingJson(TypedDict):
    chunks: int  # embedded by this command
    seconds: float  # loading the models included


class IndexSummaryJson(TypedDict):
    """`memlsp index --json`; `seconds` is the whole command's, indexing has its own."""

    notes: int
    chunks: int
    links: int
    unresolved: int
    ambiguous: int
    added: int
    modified: int
    deleted: int
    seconds: float
    read_only: bool
    index_seconds: float
    embedding: EmbeddingJson
    skipped: list[SkippedJson]  # files left out
    problems: list[SkippedJson]  # files indexed despite a problem (invalid frontmatter)
    vectors: VectorsJson


def skipped_json(item: Skipped) -> SkippedJson:
    return {"path": item.path, "reason": item.reason}


def index_summary_json(
    summary: IndexSummary,
    vectors: VectorStatus,
    *,
    embedded_chunks: int,
    embedding_seconds: float,
    seconds: float,
) -> IndexSummaryJson:
    return {
        "notes": summary.notes,
        "chunks": summary.chunks,
        "links": summary.links,
        "unresolved": summary.unresolved,
        "ambiguous": summary.ambiguous,
        "added": summary.added,
        "modified": summary.modified,
        "deleted": summary.deleted,
        "seconds": round(seconds, 3),
        "read_only": summary.read_only,
        "index_seconds": round(summary.seconds, 3),
        "embedding": {"chunks": embedded_chunks, "seconds": round(embedding_seconds, 3)},
        "skipped": [skipped_json(item) for item in summary.skipped],
        "problems": [skipped_json(item) for item in summary.problems],
        "vectors": vectors_json(vectors),
    }


# -- which message carries which shape ---------------------------------------------------------

# The result or params of each custom message of the language server.
MESSAGES: dict[str, object] = {
    "memlsp/search": VaultSearchAnswerJson,
    "memlsp/links": LinksAnswerJson | None,  # None: the note is in no open vault
    "memlsp/related": RelatedAnswerJson | None,
    "memlsp/mentions": MentionsAnswerJson | None,
    "memlsp/graph": GraphJson | None,
    "memlsp/reindex": ReindexAnswerJson,
    "memlsp/status": StatusAnswerJson,
    "memlsp/indexed": IndexedJson,
    "memlsp/vectors": VectorsNoticeJson,
    "memlsp/changed": ChangedJson,
}

# What the command line prints with --json.
COMMAND_LINE: dict[str, object] = {
    "index": IndexSummaryJson,
    "search": SearchAnswerJson,
    "search --queries": QueryAnswerJson | QueryErrorJson,  # one a line
    "links": LinksJson,
    "related": RelatedJson,
    "mentions": MentionsJson,
    "graph": GraphJson,
    "read": ReadJson,
    "recent": RecentJson,
}


# -- JSON on one line, and what JSON escapes ------------------------------------------------------

# What `printable` escapes, and the bidi marks (LRM, RLM, ALM), which reorder the text around them
# as a terminal or an agent's view shows it; JSON carries them escaped, to be read back as they are.
JSON_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def json_line(data: object, *, compact: bool = False) -> str:
    """`json_text` on one line, escaped as it escapes; `compact` leaves out the spaces after `,`
    and `:` (an agent's answer, measured in tokens)."""
    separators = (",", ":") if compact else (", ", ": ")
    text = json.dumps(data, ensure_ascii=False, separators=separators)
    return JSON_UNPRINTABLE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)
