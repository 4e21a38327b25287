"""The keyword index on disk, and its one writer: chunks replaced a note at a time, committed
once per batch.

Only one process may write an index (tantivy's lock); another opens it read-only and reads what
the writer committed. An index of another format, or one that cannot be read, is rebuilt by the
writer from the vault.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import tantivy

from memlsp.index.keyword.documents import ChunkDocument
from memlsp.index.keyword.reader import KeywordReader
from memlsp.index.keyword.schema import ANALYZER, FORMAT_VERSION, build_analyzer, build_schema
from memlsp.parse.stopwords import COMMON_WORDS

_FORMAT_FILE = "memlsp-format.json"
_WRITER_HEAP = 64_000_000


class IndexLocked(Exception):
    """Another process holds the index writer."""


class IndexUnavailable(Exception):
    """A read-only open found no usable index (the writer has not made one yet)."""


class KeywordIndex:
    """A tantivy index on disk (or in memory when `directory` is None)."""

    def __init__(self, directory: Path | None, *, writable: bool = True) -> None:
        self.analyzer = build_analyzer()
        self.schema = build_schema()
        # As the analyzer leaves them: stemmed ("does" -> "doe"), Chinese words whole.
        self.common_terms = frozenset(
            term for word in COMMON_WORDS for term in self.analyzer.analyze(word)
        )
        self.rebuilt_reason: str | None = None
        self.read_only = not writable
        self._index = self._open(directory)
        self._writer: tantivy.IndexWriter | None = None
        if writable:
            try:
                self._writer = self._index.writer(_WRITER_HEAP, 1)
            except ValueError as error:
                if "lock" not in str(error).lower():
                    raise
                self.read_only = True

    def _open(self, directory: Path | None) -> tantivy.Index:
        if directory is None:
            return self._register(tantivy.Index(self.schema))
        format_file = directory / _FORMAT_FILE
        if directory.exists():
            reason = self._check_format(format_file)
            if reason is None:
                try:
                    return self._register(tantivy.Index(self.schema, str(directory), reuse=True))
                except (OSError, ValueError) as error:
                    reason = f"unreadable ({error})"
            if self.read_only:
                # Only the writer may rebuild: this folder may be one it is creating right now.
                raise IndexUnavailable(f"the keyword index {reason}")
            self.rebuilt_reason = reason
            shutil.rmtree(directory, ignore_errors=True)
        elif self.read_only:
            raise IndexUnavailable("the keyword index does not exist yet")
        directory.mkdir(parents=True, exist_ok=True)
        index = self._register(tantivy.Index(self.schema, str(directory), reuse=False))
        format_file.write_text(json.dumps({"format": FORMAT_VERSION}))
        return index

    @staticmethod
    def _check_format(format_file: Path) -> str | None:
        try:
            found = json.loads(format_file.read_text()).get("format")
        except (OSError, ValueError, AttributeError):
            return "has no readable format marker"
        return None if found == FORMAT_VERSION else f"has format {found}, expected {FORMAT_VERSION}"

    def _register(self, index: tantivy.Index) -> tantivy.Index:
        index.register_tokenizer(ANALYZER, self.analyzer)
        return index

    # -- writing --------------------------------------------------------------------------

    def replace_note(self, path: str, documents: list[ChunkDocument]) -> None:
        writer = self._require_writer()
        writer.delete_documents_by_term("path", path)
        for doc in documents:
            writer.add_document(
                tantivy.Document(
                    chunk_id=doc.chunk.id,
                    path=path,
                    text=doc.text,
                    title=doc.title,
                    aliases=doc.aliases,
                    headings=doc.headings,
                    content=doc.chunk.text.encode(),
                    breadcrumb=json.dumps(doc.chunk.breadcrumb, ensure_ascii=False).encode(),
                    start_line=doc.chunk.start_line,
                    end_line=doc.chunk.end_line,
                    date=doc.date,
                )
            )

    def delete_note(self, path: str) -> None:
        self._require_writer().delete_documents_by_term("path", path)

    def clear(self) -> None:
        self._require_writer().delete_all_documents()

    def commit(self) -> None:
        self._require_writer().commit()
        self._index.reload()

    def close(self) -> None:
        if self._writer is not None:
            self._writer.wait_merging_threads()
            self._writer = None

    def _require_writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            raise IndexLocked("the keyword index is open read-only")
        return self._writer

    # -- reading --------------------------------------------------------------------------

    def reader(self) -> KeywordReader:
        """The index as of its last commit; it stays as it is while the writer goes on. A
        read-only index first looks for what the writing process committed since."""
        if self.read_only:
            self._index.reload()
        return KeywordReader(self._index.searcher(), self.schema, self.analyzer, self.common_terms)
