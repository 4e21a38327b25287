"""The JSON of `memlsp index --json`: what indexing (and embedding) a vault did."""

from __future__ import annotations

from typing import TypedDict

from memlsp.index.semantic import VectorStatus
from memlsp.model import IndexSummary, Skipped
from memlsp.wire.status import VectorsJson, vectors_json


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
