"""Storage: what a vault's index keeps on disk, and who may write it.

The keyword index (`keyword/`, tantivy), the vector store (`vectors.py`, Chroma) and the side
that fills it (`semantic.py`, with `vector_cache.py`, vectors by content), the manifest of what is
indexed file by file (`manifest.py`), how often each note was recalled by a search (`recall.py`,
SQLite, shared by every process that answers), the journal of paths the saved manifest does not describe
yet (`journal.py`), the writer lock, one writer per cache folder across processes
(`writer_lock.py`), and all of them opened together as a writer or read-only (`store.py`).

The names below are imported from their modules when first read (memlsp/exports.py): the
manifest alone must not bring in tantivy and Chroma. Inside memlsp, import from the defining
module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.index.journal import ChangeJournal
    from memlsp.index.keyword.reader import KeywordReader
    from memlsp.index.keyword.writer import KeywordIndex
    from memlsp.index.manifest import FileRecord, Manifest
    from memlsp.index.recall import RecallStore, RecallTotals
    from memlsp.index.semantic import VectorSide, VectorStatus
    from memlsp.index.store import IndexStore, open_store
    from memlsp.index.vector_cache import VectorCache
    from memlsp.index.vectors import VectorHit, VectorStore
    from memlsp.index.writer_lock import WriterLock

__all__ = [
    "ChangeJournal",
    "FileRecord",
    "IndexStore",
    "KeywordIndex",
    "KeywordReader",
    "Manifest",
    "RecallStore",
    "RecallTotals",
    "VectorCache",
    "VectorHit",
    "VectorSide",
    "VectorStatus",
    "VectorStore",
    "WriterLock",
    "open_store",
]

__getattr__ = exports(
    __name__,
    {
        "ChangeJournal": "journal",
        "KeywordReader": "keyword.reader",
        "KeywordIndex": "keyword.writer",
        "FileRecord": "manifest",
        "Manifest": "manifest",
        "RecallStore": "recall",
        "RecallTotals": "recall",
        "VectorSide": "semantic",
        "VectorStatus": "semantic",
        "IndexStore": "store",
        "open_store": "store",
        "VectorCache": "vector_cache",
        "VectorHit": "vectors",
        "VectorStore": "vectors",
        "WriterLock": "writer_lock",
    },
)
