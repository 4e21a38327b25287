"""Related notes: the notes closest in meaning to one note, from the vectors its sections already
have. Nothing is embedded here: each section's stored vector is turned into the vector a question
of the same text would have (`embed.base.as_query`, which lets a Chinese note reach English notes
as a Chinese question does), the store is asked for the nearest chunks of all of them at once, and
the pairs of sections found are combined per note (`combine`, a pure function).

A pair's similarity is placed on the embedder's scale for the section's script and the block the
pair met in (`SimilarityScale`, as a search's vector side does): that puts an English note found by
MiniLM and a Chinese one found by USE, whose cosines run differently, on one footing. A note
scores its best pair plus a share of the second best of its other sections (as a search ranks a
note by its best section plus a share of its second, search/notes.py), plus a bonus when the two
notes link one to the other; chosen on the development sets by benchmarks/bench_related.py.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace

from memlsp.index.keyword import KeywordReader
from memlsp.index.semantic import VectorSide, embedding_text
from memlsp.model import Chunk, LinkStatus, Note
from memlsp.parse.prose import embeds
from memlsp.search.hybrid import scale_of
from memlsp.vault.graph import LinkGraph

SECOND_PAIR = 0.3  # share of a note's second best section added to its best pair
# Added to the score of a note linked either way: notes a reader lists as related are often
# linked, and meaning alone misses some (recall@10 0.60 -> 0.65 on vaultofknowledge, 0.37 ->
# 0.42 on knowledge-garden; benchmarks/bench_related.py). It reorders the notes found by
# meaning, and adds none.
LINKED = 0.2
# A huge note asks with its 16 longest sections only: they carry most of what it is about, and
# each section is one more query row (a note of 300 sections would take seconds).
MOST_SECTIONS = 16
NEIGHBOURS = 30  # nearest chunks asked for per section, besides the note's own
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
    score: float  # 0..1
    linked: bool  # this note links to it or it links to this note
    closest: SectionPair
    shared_tags: tuple[str, ...]
    title: str = ""

    @property
    def reason(self) -> str:
        """`“Fusion” ↔ “Reciprocal rank fusion › Formula” (0.71); shared tags #search`"""
        pair = self.closest
        mine = " › ".join(pair.mine[1:] or pair.mine[:1])
        text = f"“{mine}” ↔ “{' › '.join(pair.theirs)}” ({pair.similarity:.2f})"
        if self.shared_tags:
            text += "; shared tags " + " ".join(f"#{tag}" for tag in self.shared_tags)
        return text


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
class NoteScore:
    path: str
    score: float  # 0..1
    best: PairScore


def combine(
    pairs: Iterable[PairScore],
    second: float = SECOND_PAIR,
    placed: bool = True,
    linked: Collection[str] = frozenset(),
    link_bonus: float = LINKED,
) -> list[NoteScore]:
    """Notes by score, best first: each note's best pair plus `second` times the best pair of
    another of its sections, over 1 + `second`, plus `link_bonus` for a note among `linked`, held
    to [0, 1]. `placed`: combine the similarities on the embedder's scale (else the raw ones).
    Ties go by path."""
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
        score = (_value(ranked[0], placed) + second * extra) / (1.0 + second)
        score += link_bonus if path in linked else 0.0
        notes.append(NoteScore(path, score, ranked[0]))
    notes.sort(key=lambda note: (-note.score, -_value(note.best, placed), note.path))
    return [replace(note, score=min(1.0, max(0.0, note.score))) for note in notes]


def _value(pair: PairScore, placed: bool) -> float:
    return pair.placed if placed else pair.similarity


def asking_sections(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The sections a note asks with: its prose chunks, the `MOST_SECTIONS` longest when it has
    more, in the note's order."""
    prose = [chunk for chunk in chunks if embeds(chunk.id)]
    if len(prose) <= MOST_SECTIONS:
        return prose
    longest = sorted(prose, key=lambda chunk: -len(chunk.text))[:MOST_SECTIONS]
    chosen = {chunk.id for chunk in longest}
    return [chunk for chunk in prose if chunk.id in chosen]


@dataclass(frozen=True, slots=True)
class Pairs:
    """What the store found for a note: its sections asked with, the pairs, or why none."""

    sections: tuple[Chunk, ...]
    pairs: tuple[PairScore, ...]
    warning: str = ""


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
    found = side.nearest_to([stored[chunk.id] for chunk in have], NEIGHBOURS + limit + len(chunks))
    if found is None:
        return Pairs((), (), _unavailable(side))
    pairs = []
    for index, (chunk, hits) in enumerate(zip(have, found, strict=True)):
        scales = side.scales(embedding_text(chunk))
        for hit in hits:
            if hit.path == path or hit.path not in graph.notes:
                continue  # itself, or a vector whose note is gone
            place = scale_of(hit, scales).placed(hit.similarity)
            pairs.append(PairScore(index, hit.chunk_id, hit.path, hit.similarity, place))
    warning = f"{waiting} chunks of this note are still waiting for vectors" if waiting else ""
    return Pairs(have, tuple(pairs), warning)


def _unavailable(side: VectorSide) -> str:
    status = side.status()
    if status.state == "off":
        return NEEDS_VECTORS
    if status.state == "connecting":
        return "related notes need vectors: semantic search is starting"
    return f"related notes need vectors: semantic search unavailable ({status.problem})"


def related(
    path: str,
    graph: LinkGraph,
    keyword: KeywordReader,
    side: VectorSide,
    limit: int = 10,
    second: float = SECOND_PAIR,
) -> RelatedAnswer:
    found = section_pairs(path, graph, keyword, side, limit)
    linked = linked_notes(graph, path)
    scored = combine(found.pairs, second, linked=linked)[: max(limit, 0)]
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
        results.append(
            RelatedNote(
                item.path,
                round(item.score, 4),
                item.path in linked,
                pair,
                shared_tags(note, other),
                other.title,
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
