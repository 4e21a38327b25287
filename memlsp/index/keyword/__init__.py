"""The keyword index: a vault's chunks in tantivy, searched by BM25 over their text plus their
boosted title, aliases and headings.

`documents` prepares a chunk's fields (pure: the parse workers run it, without tantivy);
`schema` holds the fields, the analyzer and the format version; `writer` opens the index on disk
and is its one writer (`KeywordIndex`); `reader` answers from one committed state
(`KeywordReader`). tantivy is imported in this folder only (tests/test_layers.py).

The names below are imported from their modules when first read (memlsp/exports.py), so that
importing `documents` brings in no tantivy; inside memlsp, import from the defining module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.index.keyword.documents import (
        ChunkDocument,
        NoteFields,
        date_number,
        prepare_documents,
    )
    from memlsp.index.keyword.reader import KeywordHit, KeywordReader, TermStats
    from memlsp.index.keyword.schema import FIELD_BOOSTS, FORMAT_VERSION, NAME_FIELDS, name_terms
    from memlsp.index.keyword.writer import IndexLocked, IndexUnavailable, KeywordIndex

__all__ = [
    "FIELD_BOOSTS",
    "FORMAT_VERSION",
    "NAME_FIELDS",
    "ChunkDocument",
    "IndexLocked",
    "IndexUnavailable",
    "KeywordHit",
    "KeywordIndex",
    "KeywordReader",
    "NoteFields",
    "TermStats",
    "date_number",
    "name_terms",
    "prepare_documents",
]

__getattr__ = exports(
    __name__,
    {
        "ChunkDocument": "documents",
        "NoteFields": "documents",
        "date_number": "documents",
        "prepare_documents": "documents",
        "FIELD_BOOSTS": "schema",
        "FORMAT_VERSION": "schema",
        "NAME_FIELDS": "schema",
        "name_terms": "schema",
        "KeywordHit": "reader",
        "KeywordReader": "reader",
        "TermStats": "reader",
        "IndexLocked": "writer",
        "IndexUnavailable": "writer",
        "KeywordIndex": "writer",
    },
)
