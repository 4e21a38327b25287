"""What a snapshot finds out about each note a search is asked to explain, before the search's
`Ranking` is read for its verdict (search/explain.py): which file the name means, whether that
file is a note (sync/not_notes.py), whether it changed on disk since the index read it, and what
each side of the search finds in the note alone, however far from the results it is.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from memlsp.embed.base import SimilarityScale
from memlsp.index.keyword.reader import KeywordReader
from memlsp.index.manifest import FileRecord
from memlsp.index.semantic import VectorSide
from memlsp.model import Explanation
from memlsp.parse.prose import embeds
from memlsp.search import hybrid
from memlsp.search.explain import Asked, explain_ranked, placed
from memlsp.search.hybrid import Ranking
from memlsp.settings.table import Settings
from memlsp.sync.not_notes import why_not_a_note
from memlsp.sync.scan import stat_path
from memlsp.vault.link_graph import LinkGraph


class Snapshot(Protocol):
    """What explaining reads of a snapshot (engine/snapshot.py), which calls it."""

    @property
    def root(self) -> Path: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def graph(self) -> LinkGraph: ...
    @property
    def keyword(self) -> KeywordReader: ...
    @property
    def records(self) -> Mapping[str, FileRecord]: ...
    @property
    def buffers(self) -> Mapping[str, str]: ...
    def find_note(self, reference: str) -> str | None: ...


_WORD = re.compile(r"[^\W\d_]+", re.ASCII)  # the Latin words a stemmer shortens

# The sections of one note the keyword side scores when it is asked about alone.
NOTE_SECTIONS = 200


def explained(
    snapshot: Snapshot,
    ranking: Ranking,
    side: VectorSide | None,
    scales: Sequence[SimilarityScale],
) -> tuple[Explanation, ...]:
    """The verdict for each note of the request's `explain`, against the answer as shown."""
    named = [(name, *_named(snapshot, name)) for name in ranking.request.explain]
    notes = [path for _, path, _ in named if path in snapshot.graph.notes]
    keyword = _keyword_alone(snapshot, ranking, notes)
    vector = _vectors_alone(snapshot, ranking, side, scales, notes)
    words = _query_words(snapshot.keyword, ranking.request.query, ranking.terms)
    verdicts = []
    for name, path, heading in named:
        if path in snapshot.graph.notes:
            asked = Asked(name, path, heading, unseen=_unseen(snapshot, path))
            asked = replace(asked, **keyword.get(path, {}), **vector.get(path, {}))
        else:
            asked = _not_indexed(snapshot, name, path)
        verdicts.append(explain_ranked(ranking, snapshot.graph, asked, words))
    response = ranking.response
    return placed(verdicts, response.hits, ranking.listed, response.budget)


def _query_words(keyword: KeywordReader, query: str, terms: Sequence[str]) -> dict[str, str]:
    """Each query term of a word the index stems (`reciproc`) with that word as typed."""
    words: dict[str, str] = {}
    for word in _WORD.findall(query):
        for term in keyword.terms(word):
            if term in terms and term != word.lower():
                words.setdefault(term, word)
    return words


def _keyword_alone(
    snapshot: Snapshot, ranking: Ranking, notes: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """The keyword side's evidence in each note that is no candidate of the search: its best
    section's score and the query terms it holds, all notes in one search."""
    candidates = {ranking.chunks[key].path for key in ranking.keyword_ranks}
    wanted = sorted(set(notes) - candidates)
    if not wanted or not ranking.terms:
        return {}
    hits = snapshot.keyword.search(list(ranking.terms), NOTE_SECTIONS * len(wanted), paths=wanted)
    found: dict[str, dict[str, Any]] = {}
    for hit in hits:  # best first
        path = hit.chunk.path
        if path not in found:
            found[path] = {"keyword_score": hit.score, "keyword_terms": frozenset()}
        found[path]["keyword_terms"] |= hit.matched
    return found


def _vectors_alone(
    snapshot: Snapshot,
    ranking: Ranking,
    side: VectorSide | None,
    scales: Sequence[SimilarityScale],
    notes: Sequence[str],
) -> dict[str, dict[str, Any]]:
    """Whether each note that is no candidate of the vector side is embedded, its nearest
    section's similarity to the query and the floor of its scale, all notes in one ask."""
    if not ranking.vector_ran or side is None:
        return {}
    candidates = {ranking.chunks[key].path for key in ranking.vector_ranks}
    found: dict[str, dict[str, Any]] = {}
    chunks = 0
    for path in sorted(set(notes) - candidates):
        record = snapshot.records.get(path)
        ids = [chunk_id for chunk_id in (record.chunk_ids if record else ()) if embeds(chunk_id)]
        if side.embedded_of(ids):
            found[path] = {"embedded": True}
            chunks += len(ids)
        else:
            found[path] = {"embedded": False}
    embedded = [path for path, facts in found.items() if facts["embedded"]]
    nearest = side.query(ranking.request.query, chunks, embedded) if embedded else None
    for hit in sorted(nearest or (), key=lambda hit: -hit.similarity):
        facts = found.get(hit.path)
        if facts is not None and "similarity" not in facts:
            facts["similarity"] = hit.similarity
            facts["vector_floor"] = hybrid.scale_of(hit, scales).floor
    return found


def _named(snapshot: Snapshot, name: str) -> tuple[str, str | None]:
    """The vault-relative path a name means, and the section it names (`name#Heading`)."""
    found = snapshot.find_note(name)
    if found is not None:
        return found, None
    base, mark, heading = name.rpartition("#")
    if mark and base.strip():
        note = snapshot.find_note(base)
        if note is not None:
            return note, heading.strip() or None
    return name.strip().replace("\\", "/").removeprefix("./"), None


def _not_indexed(snapshot: Snapshot, name: str, path: str) -> Asked:
    """A name that is no indexed note: why the file is not one, or that it will be."""
    why = why_not_a_note(snapshot.root, path, snapshot.settings, snapshot.records.get(path))
    if why is None:
        return Asked(name, path, unseen="is a note on disk that the index has not read yet")
    if why.reason == "missing" and "/" not in path and "." not in path.rpartition("/")[2]:
        return Asked(
            name, None, not_a_note="no note has this name or path", not_a_note_reason="missing"
        )
    return Asked(name, path, not_a_note=why.detail, not_a_note_reason=why.reason)


def _unseen(snapshot: Snapshot, path: str) -> str:
    """How the note's file changed since the index read it, in words; "" when it did not (or
    an open editor buffer, which the index reads, holds its text)."""
    if path in snapshot.buffers:
        return ""
    record = snapshot.records.get(path)
    found = stat_path(snapshot.root, path, snapshot.settings)
    if record is None:
        return ""
    if found is None:
        return "was deleted on disk after the index read it"
    if (found.mtime_ns, found.size) == (record.mtime_ns, record.size):
        return ""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(found.mtime_ns / 1e9))
    return f"changed on disk at {when}, after the index read it"
