"""One committed state of the keyword index, and the questions asked of it: BM25 over a chunk's
text plus its boosted title, aliases and headings; which of a query's terms each hit has; which
notes may mention a name; a note's chunks.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import tantivy

from memlsp.index.keyword.documents import date_number
from memlsp.index.keyword.schema import FIELD_BOOSTS, NAME_FIELDS
from memlsp.model import Chunk
from memlsp.parse.tokens import has_cjk, segment, separate_cjk


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


# Questions `_matched` asks in one search, a power of two each: tantivy scores are 32-bit floats,
# exact for sums of up to 24 distinct powers of two.
_BITS_PER_SEARCH = 24
# Chunks of this reader's index, as (segment, document): a scope looked up once.
ChunkSet = frozenset[tuple[int, int]]


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
        within: ChunkSet | None = None,
        boosts: Mapping[str, float] | None = None,
    ) -> list[KeywordHit]:
        """Chunks matching any of `terms` (a query's are `query_terms`, each term's BM25 score
        times its `boosts` entry, 1 when it has none), dated within the dates
        given, of the notes in `paths` when given, and among the chunks of `within` when given
        (`chunks_of_paths`): the best `limit` among those, not the best overall filtered
        afterwards. Each path costs the index a lookup (about 4 us); a `within` of a wide scope
        costs next to nothing, the index being asked for more of its best until enough are in."""
        if not terms or limit <= 0 or (paths is not None and not paths):
            return []
        clauses = [
            (
                tantivy.Occur.Should,
                tantivy.Query.boost_query(
                    tantivy.Query.term_query(self.schema, field, term),
                    boost * (boosts.get(term, 1.0) if boosts else 1.0),
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
            in_paths = tantivy.Query.const_score_query(
                tantivy.Query.term_set_query(self.schema, "path", sorted(paths)), 0.0
            )
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, query), (tantivy.Occur.Must, in_paths)]
            )
        searcher = self._searcher
        found = (
            _top(searcher, query, limit)
            if within is None
            else _top_within(searcher, query, limit, within)
        )
        chunks = [_chunk(searcher.doc(address)) for _, address in found]
        # A boosted term is not the query's own (a translation): whether a note is named by it
        # is never asked.
        matched = self._matched(
            terms, chunks, [address for _, address in found], unnamed=boosts or ()
        )
        hits = [
            KeywordHit(chunk, float(score), *terms_here)
            for chunk, (score, _), terms_here in zip(chunks, found, matched, strict=True)
        ]
        # Pieces of one long line share a start line and may score alike: the id ends the key,
        # or their order would be the index's document order, which merging segments changes.
        hits.sort(key=lambda hit: (-hit.score, hit.chunk.path, hit.chunk.start_line, hit.chunk.id))
        return hits

    def _matched(
        self,
        terms: list[str],
        chunks: list[Chunk],
        addresses: list[tantivy.DocAddress],
        unnamed: Collection[str] = (),
    ) -> list[tuple[frozenset[str], frozenset[str]]]:
        """Which of `terms` each of these documents has in any field, and which in its note's
        name fields (title, aliases; not asked for the terms of `unnamed`). Analysing each hit's
        text again costs a quarter of a millisecond a hit; instead, among just these documents,
        each question (a term in any field, a term in a name field) scores a power of two of its
        own, and a document's score spells out its answers."""
        if not chunks:
            return []
        at = {(a.segment_ord, a.doc): i for i, a in enumerate(addresses)}
        # Scoring nothing itself, so that the score is the terms' bits alone.
        within = tantivy.Query.const_score_query(
            tantivy.Query.term_set_query(self.schema, "chunk_id", [chunk.id for chunk in chunks]),
            0.0,
        )
        questions = [(term, False) for term in terms]
        questions += [(term, True) for term in terms if term not in unnamed]
        anywhere: list[set[str]] = [set() for _ in chunks]
        named: list[set[str]] = [set() for _ in chunks]
        for start in range(0, len(questions), _BITS_PER_SEARCH):
            group = questions[start : start + _BITS_PER_SEARCH]
            spelled = tantivy.Query.boolean_query(
                [
                    (
                        tantivy.Occur.Should,
                        tantivy.Query.const_score_query(
                            self._has(term, NAME_FIELDS if in_name else FIELD_BOOSTS),
                            float(1 << bit),
                        ),
                    )
                    for bit, (term, in_name) in enumerate(group)
                ]
            )
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, spelled), (tantivy.Occur.Must, within)]
            )
            for score, address in _top(self._searcher, query, len(chunks)):
                index = at.get((address.segment_ord, address.doc))
                if index is None:
                    continue
                value = round(score)
                for bit, (term, in_name) in enumerate(group):
                    if value >> bit & 1:
                        (named if in_name else anywhere)[index].add(term)
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
            hits = _top(searcher, query, wanted)
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
        found = _top(searcher, tantivy.Query.boolean_query(clauses), limit)
        chunks = (_chunk(searcher.doc(address)) for _, address in found)
        return {chunk.id: chunk for chunk in chunks}

    def chunks_of_paths(self, paths: Collection[str]) -> ChunkSet:
        """Where the chunks of these notes are in this reader's index, for `search(within=...)`:
        a wide scope looked up once (a snapshot keeps it), then at no cost per search."""
        query = tantivy.Query.term_set_query(self.schema, "path", sorted(paths))
        hits = _top(self._searcher, query, int(self._searcher.num_docs)) if paths else []
        return frozenset((address.segment_ord, address.doc) for _, address in hits)

    def chunk_count(self) -> int:
        return int(self._searcher.num_docs)


def _top(searcher: tantivy.Searcher, query: tantivy.Query, limit: int) -> list[Any]:
    """The best `limit` hits as (score, address). tantivy sets aside room for `limit` hits
    before it looks: asked for 2**31 it aborts the process, out of memory, and a limit past
    2**64 does not convert. No more are asked than the index holds."""
    if limit < 1:
        return []
    wanted = max(1, min(limit, int(searcher.num_docs)))
    return list(searcher.search(query, wanted, count=False).hits)


def _top_within(
    searcher: tantivy.Searcher, query: tantivy.Query, limit: int, within: ChunkSet
) -> list[Any]:
    """The best `limit` hits among the chunks `within`, exactly: the best overall, four times
    as many each round, until `limit` of them are within or the index has no more."""
    asked = limit
    while True:
        found = _top(searcher, query, asked)
        kept = [hit for hit in found if (hit[1].segment_ord, hit[1].doc) in within]
        if len(kept) >= limit or len(found) < asked or asked >= searcher.num_docs:
            return kept[:limit]
        asked *= 4


def _chunk(doc: tantivy.Document) -> Chunk:
    return Chunk(
        id=doc["chunk_id"][0],
        path=doc["path"][0],
        breadcrumb=tuple(json.loads(bytes(doc["breadcrumb"][0]))),
        start_line=doc["start_line"][0],
        end_line=doc["end_line"][0],
        text=bytes(doc["content"][0]).decode(),
    )
