"""What a snapshot finds out about each note a search is asked to explain, before the search's
`Ranking` is read for its verdict (search/explain.py): which file the name means, whether that
file is a note (sync/not_notes.py), whether it changed on disk since the index read it, and what
each side of the search finds in the note alone, however far from the results it is.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from memlsp.embed.base import SimilarityScale
from memlsp.index.semantic import VectorSide
from memlsp.model import Explanation
from memlsp.parse.prose import embeds
from memlsp.search import hybrid
from memlsp.search.explain import Asked, explain_ranked, placed
from memlsp.search.hybrid import Ranking
from memlsp.sync.not_notes import why_not_a_note
from memlsp.sync.scan import stat_path

if TYPE_CHECKING:  # the snapshot asks this module: imported for its type alone
    from memlsp.engine.snapshot import Snapshot

# The sections of one note the keyword side scores when it is asked about alone.
NOTE_SECTIONS = 200


def explained(
    snapshot: Snapshot,
    ranking: Ranking,
    side: VectorSide | None,
    scales: Sequence[SimilarityScale],
) -> tuple[Explanation, ...]:
    """The verdict for each note of the request's `explain`, against the answer as shown."""
    verdicts = [
        explain_ranked(ranking, snapshot.graph, _asked(snapshot, name, ranking, side, scales))
        for name in ranking.request.explain
    ]
    response = ranking.response
    return placed(verdicts, response.hits, ranking.listed, response.budget)


def _asked(
    snapshot: Snapshot,
    name: str,
    ranking: Ranking,
    side: VectorSide | None,
    scales: Sequence[SimilarityScale],
) -> Asked:
    path, heading = _named(snapshot, name)
    if path not in snapshot.graph.notes:
        return _not_indexed(snapshot, name, path)
    asked = Asked(name, path, heading, unseen=_unseen(snapshot, path))
    hits = snapshot.keyword.search(list(ranking.terms), NOTE_SECTIONS, paths=(path,))
    if hits:
        best = hits[0]
        terms = frozenset().union(*(hit.matched for hit in hits))
        asked = replace(asked, keyword_score=best.score, keyword_terms=terms)
    if ranking.vector_ran and side is not None:
        record = snapshot.records.get(path)
        ids = [chunk_id for chunk_id in (record.chunk_ids if record else ()) if embeds(chunk_id)]
        embedded = side.embedded_of(ids) > 0
        nearest = side.query(ranking.request.query, max(1, len(ids)), (path,)) if embedded else []
        if nearest:
            hit = max(nearest, key=lambda found: found.similarity)
            floor = hybrid.scale_of(hit, scales).floor
            return replace(asked, similarity=hit.similarity, embedded=True, vector_floor=floor)
        return replace(asked, embedded=embedded)
    return asked


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
