"""The keyword index: chunks in tantivy, BM25 over text plus boosted title, aliases and headings.

The only module that imports tantivy. Text reaches the analyzer pre-segmented (`parse.tokens`), and
the analyzer (regex words, lower case, English stemming) must be registered again on every open:
tantivy does not store custom tokenizers with the index.
"""

from __future__ import annotations

import functools
import json
import math
import shutil
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import tantivy

from memlsp.model import Chunk
from memlsp.parse.prose import without_blobs
from memlsp.parse.stopwords import COMMON_WORDS
from memlsp.parse.tokens import has_cjk, segment, separate_cjk

FORMAT_VERSION = 1
_ANALYZER = "memlsp"
_FORMAT_FILE = "memlsp-format.json"
_WRITER_HEAP = 64_000_000
# Chunk text already holds its heading line (and an H1 title), so the extra fields only nudge.
# Measured on SciFact train (809 queries, nDCG@10): title boost 2.0 -> 0.611, 1.0 -> 0.671,
# 0.5 -> 0.693, 0.25 -> 0.705, 0 -> 0.702. A short field's BM25 swamps the body when boosted.
FIELD_BOOSTS = {"text": 1.0, "title": 0.25, "aliases": 0.5, "headings": 0.5}


class IndexLocked(Exception):
    """Another process holds the index writer."""


class IndexUnavailable(Exception):
    """A read-only open found no usable index (the writer has not made one yet)."""


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


@dataclass(frozen=True, slots=True)
class TermStats:
    """How common each of a query's terms is among the index's chunks."""

    frequencies: dict[str, int]  # term -> chunks that have it (in its most frequent field)
    chunks: int

    @property
    def known_share(self) -> float:
        """The share of the terms that occur in the index at all; 0.0 for no terms."""
        if not self.frequencies:
            return 0.0
        return sum(1 for count in self.frequencies.values() if count) / len(self.frequencies)

    def weights(self) -> dict[str, float]:
        """Each term's BM25 idf; a term no chunk has gets the largest. Deleted chunks still
        count in a term's frequency until their segment is merged, so it may exceed the live
        count: never below zero."""
        weights = {}
        for term, count in self.frequencies.items():
            count = min(count, self.chunks)
            weights[term] = math.log(1.0 + (self.chunks - count + 0.5) / (count + 0.5))
        return weights


@dataclass(frozen=True, slots=True)
class KeywordHit:
    chunk: Chunk
    score: float
    matched: frozenset[str] = frozenset()  # the query's terms this chunk has, in any field
    named: frozenset[str] = frozenset()  # ... in its note's title or aliases


# A term's two bits in `_matched` (any field; the note's name fields): tantivy scores are 32-bit
# floats, exact for sums of up to 24 distinct powers of two.
_TERMS_PER_SEARCH = 12
NAME_FIELDS = ("title", "aliases")


def _analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(r"[\p{L}\p{N}_]+"))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


@functools.lru_cache(maxsize=16_384)
def name_terms(text: str, segment_cjk: bool) -> frozenset[str]:
    """The index terms of a short text that many searches read again, such as a note's
    description: analysed once (Chinese through jieba costs a fraction of a millisecond each
    time), then remembered. The analyzer is the same for every index."""
    return frozenset(_SHARED_ANALYZER.analyze(segment(text) if segment_cjk else separate_cjk(text)))


_SHARED_ANALYZER = _analyzer()


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("path", stored=True, tokenizer_name="raw")
    for name in FIELD_BOOSTS:
        builder.add_text_field(name, stored=False, tokenizer_name=_ANALYZER)
    builder.add_bytes_field("content", stored=True)
    builder.add_bytes_field("breadcrumb", stored=True)
    builder.add_integer_field("start_line", stored=True)
    builder.add_integer_field("end_line", stored=True)
    builder.add_integer_field("date", stored=False, indexed=True, fast=True)
    return builder.build()


def date_number(date: str | None) -> int:
    """YYYY-MM-DD as an integer YYYYMMDD; 0 for a note without a date."""
    return int(date.replace("-", "")) if date else 0


class KeywordIndex:
    """A tantivy index on disk (or in memory when `directory` is None)."""

    def __init__(self, directory: Path | None, *, writable: bool = True) -> None:
        self.analyzer = _analyzer()
        self.schema = _schema()
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
        index.register_tokenizer(_ANALYZER, self.analyzer)
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


class KeywordReader:
    """One committed state of the keyword index: a tantivy searcher, which later commits leave
    untouched, so a reader never sees half of a change."""

    def __init__(
        self,
        searcher: tantivy.Searcher,
        schema: tantivy.Schema,
        analyzer: tantivy.TextAnalyzer,
        common_terms: frozenset[str],
    ) -> None:
        self._searcher = searcher
        self.schema = schema
        self.analyzer = analyzer
        self.common_terms = common_terms

    def terms(self, text: str, *, segment_cjk: bool = True) -> list[str]:
        """The index terms of a text, in order, without repeats.

        With `segment_cjk=False` Chinese runs stay whole (only split off from Latin words): enough
        to find Latin terms, and it spares loading jieba's dictionary for an all-Latin query.
        """
        prepared = segment(text) if segment_cjk else separate_cjk(text)
        return list(dict.fromkeys(self.analyzer.analyze(prepared)))

    def query_terms(self, text: str) -> list[str]:
        """The terms of a query that decide its keyword candidates: common words left out (a
        query made only of them keeps them all)."""
        terms = self.terms(text)
        return [term for term in terms if term not in self.common_terms] or terms

    def term_stats(self, terms: list[str]) -> TermStats:
        """How many chunks have each of `terms`, in its most frequent field."""
        searcher = self._searcher
        frequencies = {
            term: max(searcher.doc_freq(field, term) for field in FIELD_BOOSTS) for term in terms
        }
        return TermStats(frequencies, int(searcher.num_docs))

    def search(
        self,
        terms: list[str],
        limit: int,
        *,
        start_date: str | None = None,
        end_date: str | None = None,
        paths: Collection[str] | None = None,
    ) -> list[KeywordHit]:
        """Chunks matching any of `terms` (a query's are `query_terms`), dated within the dates
        given, of the notes in `paths` when given (the best `limit` among those notes, not the
        best overall filtered afterwards)."""
        if not terms or limit <= 0 or (paths is not None and not paths):
            return []
        clauses = [
            (
                tantivy.Occur.Should,
                tantivy.Query.boost_query(
                    tantivy.Query.term_query(self.schema, field, term), boost
                ),
            )
            for term in terms
            for field, boost in FIELD_BOOSTS.items()
        ]
        query = tantivy.Query.boolean_query(clauses)
        if start_date or end_date:
            dates = tantivy.Query.range_query(
                self.schema,
                "date",
                tantivy.FieldType.Integer,
                date_number(start_date) if start_date else 1,
                date_number(end_date) if end_date else 99991231,
            )
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, query), (tantivy.Occur.Must, dates)]
            )
        if paths is not None:
            # A term set scores 1 for each document: scoring nothing keeps BM25's scores as they
            # are (a date range scores nothing already).
            within = tantivy.Query.const_score_query(
                tantivy.Query.term_set_query(self.schema, "path", sorted(paths)), 0.0
            )
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, query), (tantivy.Occur.Must, within)]
            )
        searcher = self._searcher
        found = searcher.search(query, limit, count=False).hits
        chunks = [_chunk(searcher.doc(address)) for _, address in found]
        matched = self._matched(terms, chunks, [address for _, address in found])
        hits = [
            KeywordHit(chunk, float(score), *terms_here)
            for chunk, (score, _), terms_here in zip(chunks, found, matched, strict=True)
        ]
        # Pieces of one long line share a start line and may score alike: the id ends the key,
        # or their order would be the index's document order, which merging segments changes.
        hits.sort(key=lambda hit: (-hit.score, hit.chunk.path, hit.chunk.start_line, hit.chunk.id))
        return hits

    def _matched(
        self, terms: list[str], chunks: list[Chunk], addresses: list[tantivy.DocAddress]
    ) -> list[tuple[frozenset[str], frozenset[str]]]:
        """Which of `terms` each of these documents has in any field, and which in its note's
        name fields (title, aliases). Analysing each hit's text again costs a quarter of a
        millisecond a hit; instead, among just these documents, each term scores two powers of
        two of its own, one per kind of field, and a document's score spells out its terms."""
        if not chunks:
            return []
        at = {(a.segment_ord, a.doc): i for i, a in enumerate(addresses)}
        # Scoring nothing itself, so that the score is the terms' bits alone.
        within = tantivy.Query.const_score_query(
            tantivy.Query.term_set_query(self.schema, "chunk_id", [chunk.id for chunk in chunks]),
            0.0,
        )
        anywhere: list[set[str]] = [set() for _ in chunks]
        named: list[set[str]] = [set() for _ in chunks]
        for start in range(0, len(terms), _TERMS_PER_SEARCH):
            group = terms[start : start + _TERMS_PER_SEARCH]
            bits = [(self._has(term, FIELD_BOOSTS), 1 << bit) for bit, term in enumerate(group)]
            bits += [
                (self._has(term, NAME_FIELDS), 1 << (_TERMS_PER_SEARCH + bit))
                for bit, term in enumerate(group)
            ]
            spelled = tantivy.Query.boolean_query(
                [
                    (tantivy.Occur.Should, tantivy.Query.const_score_query(has, float(value)))
                    for has, value in bits
                ]
            )
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, spelled), (tantivy.Occur.Must, within)]
            )
            for score, address in self._searcher.search(query, len(chunks), count=False).hits:
                index = at.get((address.segment_ord, address.doc))
                if index is None:
                    continue
                value = round(score)
                for bit, term in enumerate(group):
                    if value >> bit & 1:
                        anywhere[index].add(term)
                    if value >> (_TERMS_PER_SEARCH + bit) & 1:
                        named[index].add(term)
        return [(frozenset(a), frozenset(n)) for a, n in zip(anywhere, named, strict=True)]

    def _has(self, term: str, fields: Iterable[str]) -> tantivy.Query:
        """Documents with `term` in one of `fields`."""
        return tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(self.schema, field, term))
                for field in fields
            ]
        )

    def paths_containing(self, names: Sequence[str], limit: int) -> list[str]:
        """Notes (at most `limit`, sorted) whose text has every term of any one of `names`: the
        notes that may mention one of them (navigation/mentions.py reads each to be sure). A
        term set, not a phrase: jieba's search mode cuts a name and the text around it apart
        differently, which a phrase would not survive; a name of Latin words only is a phrase."""
        groups = []
        for name in names:
            terms = self.terms(name)
            if len(terms) > 1 and not has_cjk(name):
                # Latin words keep their order: a phrase, with room for the stop words the
                # analyzer drops (`Theory of Mind`), reads far fewer notes than the words apart.
                words: list[str | tuple[int, str]] = list(terms)
                groups.append(tantivy.Query.phrase_query(self.schema, "text", words, slop=2))
            elif terms:
                groups.append(
                    tantivy.Query.boolean_query(
                        [
                            (tantivy.Occur.Must, tantivy.Query.term_query(self.schema, "text", t))
                            for t in terms
                        ]
                    )
                )
        if not groups or limit <= 0:
            return []
        query = tantivy.Query.boolean_query([(tantivy.Occur.Should, group) for group in groups])
        searcher = self._searcher
        paths: set[str] = set()
        # A chunk a hit: a note with many matching chunks takes several; read until enough notes.
        wanted = limit
        while True:
            hits = searcher.search(query, wanted, count=False).hits
            paths = {searcher.doc(address)["path"][0] for _, address in hits}
            if len(paths) >= limit or len(hits) < wanted:
                return sorted(paths)[:limit]
            wanted *= 4

    def chunks_of(self, path: str) -> list[Chunk]:
        """The indexed chunks of one note, in order."""
        chunks = self._find("path", [path], limit=100_000)
        return sorted(chunks.values(), key=lambda chunk: chunk.start_line)

    def chunks_of_notes(self, paths: Sequence[str], limit: int) -> dict[str, list[Chunk]]:
        """The indexed chunks of each of these notes, in order, in one search, at most `limit`
        in all: which ones of a longer whole is the index's choice (a note without any is
        absent)."""
        found: dict[str, list[Chunk]] = {}
        if paths and limit > 0:
            for chunk in self._find("path", list(paths), limit).values():
                found.setdefault(chunk.path, []).append(chunk)
        return {path: sorted(chunks, key=lambda c: c.start_line) for path, chunks in found.items()}

    def chunks_by_id(self, ids: list[str]) -> dict[str, Chunk]:
        """The indexed chunks among `ids` (a chunk replaced since is simply absent)."""
        return self._find("chunk_id", ids, limit=len(ids)) if ids else {}

    def _find(self, field: str, values: list[str], limit: int) -> dict[str, Chunk]:
        clauses = [
            (tantivy.Occur.Should, tantivy.Query.term_query(self.schema, field, value))
            for value in dict.fromkeys(values)
        ]
        searcher = self._searcher
        found = searcher.search(tantivy.Query.boolean_query(clauses), limit, count=False)
        chunks = (_chunk(searcher.doc(address)) for _, address in found.hits)
        return {chunk.id: chunk for chunk in chunks}

    def chunk_count(self) -> int:
        return int(self._searcher.num_docs)


def _chunk(doc: tantivy.Document) -> Chunk:
    return Chunk(
        id=doc["chunk_id"][0],
        path=doc["path"][0],
        breadcrumb=tuple(json.loads(bytes(doc["breadcrumb"][0]))),
        start_line=doc["start_line"][0],
        end_line=doc["end_line"][0],
        text=bytes(doc["content"][0]).decode(),
    )
