"""The vault as one request reads it, immutable: revision, graph, keyword index, settings, vectors.

The engine's single writer applies a change as one batch and then publishes a new `Snapshot`;
`Engine.read()` hands a request the current one, with the settings and the vector side's state of
that moment, without a lock. A request keeps it for as long as it runs and answers from it alone,
so it never sees half of a change, two revisions, or two sets of settings, and a long request
never holds up the writer. Only note texts are read when they are asked for (an open buffer of
this revision wins over the disk), and a search asks the vector side, which is live, for its
nearest chunks.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from memlsp.engine.explaining import explained
from memlsp.index.dictionary import BilingualDictionary, bilingual_dictionary
from memlsp.index.keyword.reader import ChunkSet, KeywordReader
from memlsp.index.manifest import FileRecord
from memlsp.index.recall import RecallStore
from memlsp.index.semantic import VectorSide, VectorStatus
from memlsp.model import Chunk, LinkStatus, ResolvedLink, SearchRequest, SearchResponse
from memlsp.queries.graph_view import GraphAsk, graph_view
from memlsp.queries.graph_walk import Neighbourhood
from memlsp.queries.mentions import (
    MENTION_CANDIDATES,
    MENTIONS_LIMIT,
    Earlier,
    FoundBefore,
    MentionsAnswer,
    mentions_of,
)
from memlsp.search import hybrid
from memlsp.search.listing import listing
from memlsp.search.recall import RecallBoost, recalled
from memlsp.search.related import NEEDS_VECTORS, RelatedAnswer, related
from memlsp.search.scope import PropertyIndex, allowed_notes
from memlsp.settings.files import models_dir
from memlsp.settings.table import Settings
from memlsp.sync.scan import read_text, stat_path
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.names import name_key
from memlsp.vault.view import VaultView

EMPTY: Mapping[str, str] = MappingProxyType({})
T = TypeVar("T")
_LATIN_WORD = re.compile("[A-Za-z]+")
ABOUT_CHUNKS = 4  # nearest chunks asked per note wanted: a note's sections come together


@dataclass(frozen=True, slots=True)
class NoteLinks:
    path: str
    outlinks: tuple[ResolvedLink, ...]
    inlinks: tuple[ResolvedLink, ...]

    @property
    def unresolved(self) -> tuple[ResolvedLink, ...]:
        bad = (LinkStatus.UNRESOLVED, LinkStatus.OUTSIDE)
        return tuple(item for item in self.outlinks if item.resolution.status in bad)

    @property
    def ambiguous(self) -> tuple[ResolvedLink, ...]:
        return tuple(i for i in self.outlinks if i.resolution.status is LinkStatus.AMBIGUOUS)


@dataclass(frozen=True, slots=True)
class Vectors:
    """The vector side as a request sees it: its state when the request began, and the side to
    ask for a query's nearest chunks (None when the vault has none)."""

    status: VectorStatus
    side: VectorSide | None = None
    # Whether a search may load the models and open the store itself: the CLI's one-shot
    # searches may; the language server connects on its embedding thread, so no request waits.
    connect: bool = False


NO_VECTORS = Vectors(VectorStatus("off", "none", 0, 0))


@dataclass(frozen=True, slots=True)
class Snapshot:
    revision: int
    graph: LinkGraph  # frozen
    keyword: KeywordReader  # the keyword index as committed for this revision
    records: Mapping[str, FileRecord]  # every indexed file, notes and skipped ones
    buffers: Mapping[str, str]  # open editor buffers, which win over the disk
    root: Path
    settings: Settings
    vectors: Vectors = NO_VECTORS
    # What unlinked mentions were found in which text of a note, kept by the writer across its
    # revisions; None: every note is read again in each revision.
    found_before: FoundBefore | None = None
    # How often each note was recalled (index/recall.py), shared by every process; None for a
    # snapshot no engine handed out.
    recall: RecallStore | None = None
    # Each file's time, when the records are read row by row (engine/lean.py), where a list of
    # every note by time must not read every note's row; None: the records' own.
    saved_times: Mapping[str, int] | None = None
    # What was computed once from this revision (`memo`). `Engine.read` hands each request a copy
    # of the revision's snapshot with the settings of the moment (`replace`), and the copy keeps
    # this same dict: every request of a revision shares it. A new revision starts empty.
    _memo: dict[Hashable, Any] = field(default_factory=dict, repr=False, compare=False)

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """`compute()`, once per revision and key: what several requests, or several steps of one,
        ask of the same revision. Two threads may compute it at once; the first answer stored is
        the one every caller gets, so no lock is taken."""
        if key in self._memo:
            return self._memo[key]  # type: ignore[no-any-return]
        return self._memo.setdefault(key, compute())  # type: ignore[no-any-return]

    @property
    def view(self) -> VaultView:
        """What navigation reads of it."""
        return VaultView(self.revision, self.graph, self.read, self.modified, self.memo)

    def modified(self, path: str) -> int:
        """When a file last changed (ns); an open buffer is being changed now."""
        if path in self.buffers:
            return sys.maxsize
        return self._saved_time(path)

    def _saved_time(self, path: str) -> int:
        if self.saved_times is not None:
            return self.saved_times.get(path, 0)
        record = self.records.get(path)
        return record.mtime_ns if record is not None else 0

    def last_saved(self, path: str) -> int | None:
        """When the text this snapshot reads of `path` was saved (ns): its file's mtime, from its
        record; None while an open buffer holds text its file does not (or it has no file). An
        open buffer's record has no time of its own: the file is asked whether it reads the same
        (a few notes are open at once)."""
        buffered = self.buffers.get(path)
        if buffered is None:
            return self._saved_time(path)
        stat = stat_path(self.root, path, self.settings)
        if stat is None or read_text(self.root, stat, self.settings).text != buffered:
            return None
        return stat.mtime_ns

    def text_version(self, path: str) -> Hashable | None:
        """Which text of `path` this revision reads: its open buffer's, else its file's as
        indexed (equal versions are equal texts); None when it is neither."""
        buffered = self.buffers.get(path)
        if buffered is not None:
            return ("buffer", buffered)
        record = self.records.get(path)
        return None if record is None else (record.mtime_ns, record.size, record.digest)

    def read(self, path: str) -> str | None:
        """The text of a vault file: its open buffer, else the file on disk now."""
        buffered = self.buffers.get(path)
        if buffered is not None:
            return buffered
        stat = stat_path(self.root, path, self.settings)
        if stat is None:
            return None
        return read_text(self.root, stat, self.settings).text

    def counts(self) -> tuple[int, int]:
        """Notes and chunks."""
        notes = chunks = 0
        for record in self.records.values():
            notes += record.note is not None
            chunks += len(record.chunk_ids)
        return notes, chunks

    # -- questions about the vault --------------------------------------------------------------

    def search(self, request: SearchRequest) -> SearchResponse:
        """Hybrid by default; keyword-only, with a warning, while the vector side cannot answer."""
        side = self.vectors.side
        vector_hits = None
        warnings: list[str] = []
        allowed = self.allowed(request)
        if not request.query:  # filters alone (search/request.py): the notes they match
            return listing(
                request, self.graph, allowed, self.last_saved, self._first_chunks, self.settings
            )
        if request.mode != "keyword" and side is not None and side.enabled:
            if self.vectors.connect:
                side.connect()
            ask = hybrid.vector_ask(request, self.settings, allowed, len(self.graph.notes))
            vector_hits = side.query(request.query, ask.limit, ask.paths)
            status = side.status()
            if vector_hits is None and status.state == "connecting":
                warnings.append("semantic search is starting; keyword results only")
            elif vector_hits is None:
                warnings.append(
                    f"semantic search unavailable ({status.problem}); keyword results only"
                )
            elif status.pending:
                warnings.append(_partly_embedded(status))
        elif request.mode == "vector":
            warnings.append("semantic search is off (embedder = none)")
        # Only Latin words: the model that reads Chinese has no tokenizer to ask.
        meaningless = (
            side is not None
            and bool(vector_hits)
            and side.reads_none_of(_LATIN_WORD.findall(request.query))
        )
        scales = side.scales(request.query) if side is not None else ()
        about, unknown = self.about(request.about)
        if unknown:
            names = ", ".join(repr(name) for name in unknown)
            warnings.append(f"no note named {names} to favour (about); its results are as without")
        ranking = hybrid.rank(
            request,
            self.keyword,
            self.graph,
            self.settings,
            vector_hits,
            warnings,
            meaningless,
            scales,
            allowed=allowed,
            about=about,
            within=self._chunks_within(request, allowed),
            boost=self._recall_boost(),
            dictionary=self._dictionary,
        )
        if not request.explain:
            return ranking.response
        return replace(ranking.response, explained=explained(self, ranking, side, scales))

    def _dictionary(self) -> BilingualDictionary | None:
        """The bilingual dictionary for a query's words in the vault's other language. A process
        that loads models on a search (the command line) waits for it to be built the first
        time; a server never keeps a request waiting on it (index/dictionary.py)."""
        return bilingual_dictionary(models_dir(self.settings), wait=self.vectors.connect)

    def about(self, names: Sequence[str]) -> tuple[frozenset[str], tuple[str, ...]]:
        """The notes a search's `about` favours: each note named, the notes linking to it and
        those naming it in plain text (its unlinked mentions); and the names that are no note."""
        favoured: set[str] = set()
        unknown = []
        for name in names:
            path = self.find_note(name)
            if path is None:
                unknown.append(name)
                continue
            favoured.add(path)
            favoured.update(self.graph.inlink_sources(path))
            favoured.update(mention.path for mention in self.mentions(path).mentions)
        return frozenset(favoured), tuple(unknown)

    def allowed(self, request: SearchRequest) -> frozenset[str] | None:
        """The notes a request's scope admits (search/scope.py), once per revision and scope: a
        picker asks again with the same filters at every key typed."""
        key = ("scope", request.paths, request.tags, request.where)
        return self.memo(key, lambda: allowed_notes(self.graph, request, self.properties))

    def _chunks_within(
        self, request: SearchRequest, allowed: frozenset[str] | None
    ) -> ChunkSet | None:
        """The keyword index's chunks of a wide scope (hybrid.wide), looked up once per
        revision and scope; None for a narrow one, asked for by its paths."""
        if allowed is None or not hybrid.wide(self.graph, allowed):
            return None
        key = ("scope chunks", request.paths, request.tags, request.where)
        return self.memo(key, lambda: self.keyword.chunks_of_paths(allowed))

    def properties(self) -> PropertyIndex:
        """Each property's notes, for filters (search/scope.py): built once per revision."""
        return self.memo("properties", lambda: PropertyIndex.of(self.graph))

    def _first_chunks(self, paths: list[str]) -> dict[str, Chunk]:
        """Each note's first section, as indexed (its record's chunks are in order)."""
        firsts = {}
        for path in paths:
            record = self.records.get(path)
            if record is not None and record.chunk_ids:
                firsts[record.chunk_ids[0]] = path
        return {
            firsts[id_]: chunk for id_, chunk in self.keyword.chunks_by_id(list(firsts)).items()
        }

    def _recall_boost(self) -> RecallBoost | None:
        weight = self.settings.recall_weight
        if weight <= 0 or self.recall is None:
            return None
        return RecallBoost(weight, self.recall.recalls, time.time_ns())

    def recalled(self, response: SearchResponse, *, record: bool) -> SearchResponse:
        """`response` as it leaves for its asker: each result with its recall, counted once more
        for this search when `record` (search/recall.py)."""
        if self.recall is None:
            return response
        return recalled(response, self.recall, record=record, now_ns=time.time_ns())

    def notes_about(self, text: str, limit: int) -> tuple[str, ...] | None:
        """The notes closest in meaning to `text`, closest first, by their nearest section and
        above the floor of the embedder's scale (as the vector side of a search keeps them);
        None without vectors to ask. A search's note ranking is not needed where a link is
        being typed, and would read every candidate's chunk from the keyword index."""
        side = self.vectors.side
        if side is None or not side.ready:
            return None
        hits = side.query(text, ABOUT_CHUNKS * limit)
        if hits is None:
            return None
        scales = side.scales(text)
        notes = dict.fromkeys(
            hit.path
            for hit in hits
            if hit.similarity >= hybrid.scale_of(hit, scales).floor and hit.path in self.graph.notes
        )
        return tuple(notes)[:limit]

    def related(self, path: str, limit: int = 10) -> RelatedAnswer:
        """The notes closest in meaning to the note at `path` (search/related.py); no results and
        a warning while the vector side cannot answer or has no vectors of this note yet."""
        side = self.vectors.side
        if path not in self.graph.notes:
            return RelatedAnswer(path, (), "not an indexed note")
        if side is None or not side.enabled:
            return RelatedAnswer(path, (), NEEDS_VECTORS)
        if self.vectors.connect:
            side.connect()
        return related(path, self.graph, self.keyword, side, limit)

    def find_note(self, reference: str) -> str | None:
        """A note given by vault-relative path (with or without `.md`) or by name / title; of
        several with that name, the first path in code-point order."""
        reference = reference.strip().replace("\\", "/").removeprefix("./")
        notes = self.graph.notes
        for candidate in (reference, reference + ".md"):
            if candidate in notes:
                return candidate
        return min(self.graph.paths_named(name_key(reference.removesuffix(".md"))), default=None)

    def candidates_for_names(self, names: Sequence[str]) -> list[str]:
        """The notes whose indexed text may hold one of `names` (queries/mentions.py)."""
        return self.keyword.paths_containing(names, MENTION_CANDIDATES)

    def mentions(self, path: str, limit: int = MENTIONS_LIMIT) -> MentionsAnswer:
        """The unlinked mentions of the note at `path` in the other notes, at most `limit`, under
        the vault's `mention_min_length` (queries/mentions.py). Found once per snapshot: a
        note's lens, its "Link all" action and a picker ask the same within moments."""
        min_length = self.settings.mention_min_length
        found = self.found_before
        earlier = Earlier(found, self.text_version) if found is not None else None
        return self.memo(
            ("mentions", path, min_length, limit),
            lambda: mentions_of(
                self.view, path, self.candidates_for_names, min_length, limit, earlier
            ),
        )

    def graph_view(self, ask: GraphAsk) -> Neighbourhood:
        """The graph view `ask` asks for (`queries.graph_view.graph_ask` checks it): the link
        graph around its note and the note's closest notes by meaning (`related`)."""
        return graph_view(self.graph, ask, self.related)

    def links(self, path: str) -> NoteLinks:
        return NoteLinks(path, self.graph.outlinks(path), tuple(self.graph.inlinks(path)))


def _partly_embedded(status: VectorStatus) -> str:
    """How much of the vault the vector side covers while chunks wait for vectors (embedding
    not finished, or a batch that failed waiting to be tried again), in words: floored, so that
    "100%" is never said while one waits."""
    share = status.stored * 100 // (status.stored + status.pending)
    percent = "under 1%" if status.stored and not share else f"{share}%"
    return (
        f"vectors cover {percent} of chunks; notes not yet embedded are found by their words only"
    )
