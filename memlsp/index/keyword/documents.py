"""A chunk as the keyword index takes it: its searchable fields segmented into words.

The slow, pure part of indexing, done apart from the index: on a cold start the parse workers
(`sync/prepare.py`) run it, and they must not load tantivy or build its analyzer, so this module
imports nothing of the index's own (tests/index/test_keyword_documents.py checks it).
"""

from __future__ import annotations

from dataclasses import dataclass

from memlsp.model import Chunk
from memlsp.parse.prose import without_blobs
from memlsp.parse.tokens import segment


@dataclass(frozen=True, slots=True)
class NoteFields:
    """What the index keeps of a chunk's note, besides the chunk itself."""

    title: str
    aliases: tuple[str, ...]
    date: str | None


@dataclass(frozen=True, slots=True)
class ChunkDocument:
    """A chunk with its searchable fields already segmented: the slow, pure part of indexing,
    done apart from the index (in worker processes on a cold start)."""

    chunk: Chunk
    text: str
    title: str
    aliases: str
    headings: str
    date: int


def prepare_documents(fields: NoteFields, chunks: list[Chunk]) -> list[ChunkDocument]:
    title = segment(fields.title)
    aliases = segment(" \n".join(fields.aliases))
    date = date_number(fields.date)
    return [
        ChunkDocument(
            chunk=chunk,
            text=segment(without_blobs(chunk.text)),  # nothing to find in encoded data
            title=title,
            aliases=aliases,
            headings=segment(" \n".join(h for h in chunk.breadcrumb[1:] if h != fields.title)),
            date=date,
        )
        for chunk in chunks
    ]


def date_number(date: str | None) -> int:
    """YYYY-MM-DD as an integer YYYYMMDD; 0 for a note without a date."""
    return int(date.replace("-", "")) if date else 0
