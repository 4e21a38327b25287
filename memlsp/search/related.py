"""Related notes: the notes closest to one note, from the vectors its sections already have and
from what ties the notes together besides meaning. Nothing is embedded here: each section's stored
vector is turned into the vector a question of the same text would have (`embed.base.as_query`,
which lets a Chinese note reach English notes as a Chinese question does), the store is asked for
the nearest chunks of all of them at once, and the pairs of sections found are combined per note
(`combine`, a pure function).

A pair's similarity is placed on the embedder's scale for the section's script and the block the
pair met in (`SimilarityScale`, as a search's vector side does): that puts an English note found by
MiniLM and a Chinese one found by USE, whose cosines run differently, on one footing. A note
scores its best pair, plus a bonus for each of what a reader looks at besides meaning (`Ties`):
the two notes link one to the other, the other note's text has this note's name (a reader's grep),
they sit in one folder. The notes linked or naming this one are candidates even when the store's
nearest chunks miss them: their sections are compared with this note's directly
(`VectorSide.compare_to`). Chosen on the development sets by benchmarks/bench_related.py.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from memlsp.index.keyword.reader import KeywordReader
from memlsp.index.semantic import VectorSide, embedding_text
from memlsp.index.vectors import VectorHit
from memlsp.model import Chunk, LinkStatus, Note
from memlsp.parse.prose import embeds
from memlsp.search.evidence import coverage
from memlsp.search.hybrid import scale_of
from memlsp.vault.link_graph import LinkGraph

# What a note scores besides its best pair, chosen on the development sets
# (benchmarks/bench_related.py, recall@10 of the notes a reader listed; round values, each
# checked tuned on one vault and measured on the other):
# - a share of its second best section: none (0.3 cost 0.02 to 0.03 on both vaults once the
#   bonuses below are in);
# - the notes link one to the other: a reader lists them first (0.3 to 0.7 within 0.01);
# - its text has this note's title or aliases, by the keyword index's idf-weighted coverage of
#   their words (0.1 suits the English vault, 0.3 the Chinese one);
# - it sits in this note's folder (siblings in a course or topic folder; 0.0 -> 0.2 is the
#   largest single gain, +0.05 on each vault; 0.3 within 0.01).
SECOND_PAIR = 0.0
LINKED = 0.5
MENTIONS = 0.2
SAME_FOLDER = 0.2
# A huge note asks with its 16 longest sections only: they carry most of what it is about, and
# each section is one more query row (a note of 300 sections would take seconds).
MOST_SECTIONS = 16
NEIGHBOURS = 20  # nearest chunks asked for per section, besides the note's own
# Linked and naming notes the nearest chunks missed are compared directly: at most this many
# notes, by their longest sections among at most `COMPARED_CHUNKS` read. A hub's hundreds of
# links, or a book's thousand highlights, would cost more than they add.
MOST_COMPARED = 16
COMPARED_SECTIONS = 4
COMPARED_CHUNKS = 256
NAME_HITS = 50  # chunks asked of the keyword index for this note's names
SHOWN_MENTION = 0.5  # the coverage from which a reason says the other note has the name
NEEDS_VECTORS = "related notes need vectors (embedder = none)"


@dataclass(frozen=True, slots=True)
class SectionPair:
    mine: tuple[str, ...]  # breadcrumb of this note's section
    mine_line: int  # 1-based start line
    theirs: tuple[str, ...]
    theirs_line: int
    # cosine in the block of vectors where the two met, times the question's weight there (the
    # bilingual embedder's blocks): what a search shows as a section's vector score
    similarity: float


@dataclass(frozen=True, slots=True)
class RelatedNote:
    path: str
    score: float  # 0..1 (the order is by the score before it is held to 0..1)
    linked: bool  # this note links to it or it links to this note
    closest: SectionPair
    shared_tags: tuple[str, ...]
    title: str = ""
    mentions: str = ""  # this note's name, when the other note's text has (most of) its words
    same_folder: bool = False

    @property
    def reason(self) -> str:
        """`“Fusion” ↔ “Reciprocal rank fusion › Formula” (0.71); linked; mentions “Fusion”;
        same folder; shared tags #search`: the closest pair, then each tie that added to it."""
        pair = self.closest
        mine = " › ".join(pair.mine[1:] or pair.mine[:1])
        parts = [f"“{mine}” ↔ “{' › '.join(pair.theirs)}” ({pair.similarity:.2f})"]
        if self.linked:
            parts.append("linked")
        if self.mentions:
            parts.append(f"mentions “{self.mentions}”")
        if self.same_folder:
            parts.append("same folder")
        if self.shared_tags:
            parts.append("shared tags " + " ".join(f"#{tag}" for tag in self.shared_tags))
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class RelatedAnswer:
    note: str
    results: tuple[RelatedNote, ...]
    warning: str = ""


@dataclass(frozen=True, slots=True)
class PairScore:
    """One of this note's sections (`mine`, an index into the sections asked with) near a chunk of
    another note."""

    mine: int
    theirs: str  # chunk id
    path: str
    similarity: float
    placed: float  # the similarity on the embedder's scale: 0 at `low`, 1 at `high`


@dataclass(frozen=True, slots=True)
class Ties:
    """What ties other notes to this one besides meaning."""

    linked: frozenset[str] = frozenset()  # linked either way
    # path -> the idf-weighted share of the words of this note's names its text has (0..1)
    mentions: Mapping[str, float] = field(default_factory=dict)
    folder: str | None = None  # this note's folder ("" at the vault's root)
    name: str = ""  # this note's title, for a reason

    def in_folder(self, path: str) -> bool:
        return self.folder is not None and posixpath.dirname(path) == self.folder

    def candidates(self) -> list[str]:
        """The notes these ties reach, linked ones first, each once."""
        return list(dict.fromkeys([*sorted(self.linked), *self.mentions]))


@dataclass(frozen=True, slots=True)
class Weights:
    """How much a note scores for each thing beyond its best pair (see the constants)."""

    second: float = SECOND_PAIR
    linked: float = LINKED
    mentions: float = MENTIONS
    same_folder: float = SAME_FOLDER
    placed: bool = True  # pairs on the embedder's scale (else by raw cosine)

    def shown(self, score: float) -> float:
        """A score as shown, 0..1: over the most a note scores with a pair at the scale's
        `high` and every tie, so the order stays and scores do not pile up at 1.0."""
        most = 1.0 + self.linked + self.mentions + self.same_folder
        return min(1.0, max(0.0, score / most))


@dataclass(frozen=True, slots=True)
class NoteScore:
    path: str
    score: float  # the ranking score: unbounded, a display holds it to 0..1
    best: PairScore


def combine(
    pairs: Iterable[PairScore], ties: Ties = Ties(), weights: Weights = Weights()
) -> list[NoteScore]:
    """Notes by score, best first: each note's best pair plus `weights.second` times the best pair
    of another of its sections, over 1 + `second`, plus a bonus for each of its `ties`: linked,
    the coverage of this note's names in it times `weights.mentions`, in the same folder. Not
    held to [0, 1]: two notes beyond the scale's `high` keep their order. Ties go by path."""
    placed = weights.placed
    by_chunk: dict[str, dict[str, PairScore]] = {}
    for pair in pairs:
        chunks = by_chunk.setdefault(pair.path, {})
        known = chunks.get(pair.theirs)
        if known is None or _value(pair, placed) > _value(known, placed):
            chunks[pair.theirs] = pair
    notes = []
    for path, chunks in by_chunk.items():
        ranked = sorted(chunks.values(), key=lambda p: (-_value(p, placed), p.theirs))
        extra = max(_value(ranked[1], placed), 0.0) if len(ranked) > 1 else 0.0
        score = (_value(ranked[0], placed) + weights.second * extra) / (1.0 + weights.second)
        score += weights.linked if path in ties.linked else 0.0
        score += weights.mentions * ties.mentions.get(path, 0.0)
        score += weights.same_folder if ties.in_folder(path) else 0.0
        notes.append(NoteScore(path, score, ranked[0]))
    notes.sort(key=lambda note: (-note.score, -_value(note.best, placed), note.path))
    return notes


def _value(pair: PairScore, placed: bool) -> float:
    return pair.placed if placed else pair.similarity


def asking_sections(chunks: Sequence[Chunk], most: int = MOST_SECTIONS) -> list[Chunk]:
    """The sections a note asks with (or is compared by): its prose chunks, the `most` longest
    when it has more, in the note's order."""
    prose = [chunk for chunk in chunks if embeds(chunk.id)]
    if len(prose) <= most:
        return prose
    longest = sorted(prose, key=lambda chunk: -len(chunk.text))[:most]
    chosen = {chunk.id for chunk in longest}
    return [chunk for chunk in prose if chunk.id in chosen]


@dataclass(frozen=True, slots=True)
class Pairs:
    """What the store found for a note: its sections asked with, the pairs, or why none."""

    sections: tuple[Chunk, ...]
    pairs: tuple[PairScore, ...]
    warning: str = ""
    # the sections' stored vectors, so that comparing more notes need not read them again
    vectors: tuple[np.ndarray, ...] = field(default=(), compare=False)


def section_pairs(
    path: str, graph: LinkGraph, keyword: KeywordReader, side: VectorSide, limit: int
) -> Pairs:
    """Every pair of one of this note's sections and a chunk of another note among its nearest."""
    chunks = keyword.chunks_of(path)
    sections = asking_sections(chunks)
    if not sections:
        return Pairs((), (), "this note has no text to compare")
    stored = side.vectors([chunk.id for chunk in sections])
    if stored is None:
        return Pairs((), (), _unavailable(side))
    waiting = side.pending_for([path])
    have = tuple(chunk for chunk in sections if chunk.id in stored)
    if not have:
        count = waiting or len(sections)
        return Pairs((), (), f"this note's vectors are not made yet ({count} chunks waiting)")
    vectors = tuple(stored[chunk.id] for chunk in have)
    found = side.nearest_to(vectors, NEIGHBOURS + limit + len(chunks))
    if found is None:
        return Pairs((), (), _unavailable(side))
    warning = f"{waiting} chunks of this note are still waiting for vectors" if waiting else ""
    return Pairs(have, _placed(path, graph, side, have, found), warning, vectors)


def compared_pairs(
    path: str,
    found: Pairs,
    others: Sequence[str],
    graph: LinkGraph,
    keyword: KeywordReader,
    side: VectorSide,
) -> tuple[PairScore, ...]:
    """The pairs of this note's sections with those of `others` the store's nearest did not
    reach (the first `MOST_COMPARED` of them), computed from their stored vectors."""
    reached = {pair.path for pair in found.pairs}
    missed = [other for other in others if other not in reached and other != path]
    if not found.sections or not missed:
        return ()
    chunks = keyword.chunks_of_notes(missed[:MOST_COMPARED], COMPARED_CHUNKS)
    theirs = {
        chunk.id: other
        for other, its in chunks.items()
        for chunk in asking_sections(its, COMPARED_SECTIONS)
    }
    compared = side.compare_to(found.vectors, theirs) if theirs else None
    if compared is None:
        return ()
    return _placed(path, graph, side, found.sections, compared)


def _placed(
    path: str,
    graph: LinkGraph,
    side: VectorSide,
    sections: Sequence[Chunk],
    found: Sequence[Sequence[VectorHit]],
) -> tuple[PairScore, ...]:
    """Each hit of each section as a pair, its similarity placed on the section's scale."""
    pairs = []
    for index, (chunk, hits) in enumerate(zip(sections, found, strict=True)):
        scales = side.scales(embedding_text(chunk))
        for hit in hits:
            if hit.path == path or hit.path not in graph.notes:
                continue  # itself, or a vector whose note is gone
            place = scale_of(hit, scales).placed(hit.similarity)
            pairs.append(PairScore(index, hit.chunk_id, hit.path, hit.similarity, place))
    return tuple(pairs)


def _unavailable(side: VectorSide) -> str:
    status = side.status()
    if status.state == "off":
        return NEEDS_VECTORS
    if status.state == "connecting":
        return "related notes need vectors: semantic search is starting"
    return f"related notes need vectors: semantic search unavailable ({status.problem})"


def note_ties(path: str, graph: LinkGraph, keyword: KeywordReader) -> Ties:
    """The notes linked to this one, those whose text has the words of its title or aliases (as a
    reader greps for its key term), and its folder."""
    note = graph.notes[path]
    terms = keyword.query_terms(" ".join([note.title, *note.aliases]))
    weights = keyword.term_stats(terms).weights()
    mentions: dict[str, float] = {}
    for hit in keyword.search(terms, NAME_HITS):
        other = hit.chunk.path
        if other != path and other in graph.notes:
            mentions[other] = max(mentions.get(other, 0.0), coverage(hit.matched, weights))
    return Ties(
        frozenset(linked_notes(graph, path)),
        mentions,
        posixpath.dirname(path),
        note.title,
    )


def related(
    path: str,
    graph: LinkGraph,
    keyword: KeywordReader,
    side: VectorSide,
    limit: int = 10,
    weights: Weights = Weights(),
) -> RelatedAnswer:
    found = section_pairs(path, graph, keyword, side, limit)
    ties = note_ties(path, graph, keyword)
    more = compared_pairs(path, found, ties.candidates(), graph, keyword, side)
    scored = combine((*found.pairs, *more), ties, weights)[: max(limit, 0)]
    theirs = keyword.chunks_by_id([note.best.theirs for note in scored])
    note = graph.notes[path]
    results = []
    for item in scored:
        chunk = theirs.get(item.best.theirs)
        other = graph.notes[item.path]
        if chunk is None:  # changed since the store answered: it is found again next time
            continue
        mine = found.sections[item.best.mine]
        pair = SectionPair(
            mine.breadcrumb,
            mine.start_line,
            chunk.breadcrumb,
            chunk.start_line,
            round(item.best.similarity, 4),
        )
        named = ties.mentions.get(item.path, 0.0) >= SHOWN_MENTION and weights.mentions > 0
        results.append(
            RelatedNote(
                item.path,
                round(weights.shown(item.score), 4),
                item.path in ties.linked,
                pair,
                shared_tags(note, other),
                other.title,
                ties.name if named else "",
                ties.in_folder(item.path) and weights.same_folder > 0,
            )
        )
    return RelatedAnswer(path, tuple(results), found.warning)


def linked_notes(graph: LinkGraph, path: str) -> set[str]:
    """The notes this note links to (where its links resolve) and those that link to it."""
    reached = (LinkStatus.RESOLVED, LinkStatus.AMBIGUOUS)
    targets = {
        target
        for item in graph.outlinks(path)
        if item.resolution.status in reached
        for target in item.resolution.targets
    }
    return (targets | set(graph.inlink_sources(path))) - {path}


def shared_tags(mine: Note, theirs: Note) -> tuple[str, ...]:
    """This note's tags the other has too (tags compare without case, as Obsidian's do)."""
    their_tags = {tag.name.casefold() for tag in theirs.tags}
    return tuple(dict.fromkeys(tag.name for tag in mine.tags if tag.name.casefold() in their_tags))
