"""Frozen value types shared by every layer.

Positions inside a note are 0-based lines and 0-based columns counted in Unicode code points
(Python string indices). The LSP layer converts columns to the client's negotiated encoding.
Chunk line ranges are 1-based and inclusive, as users read them in an editor or a search result.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from operator import attrgetter
from typing import Literal

from memlsp.text import stem as path_stem


@dataclass(frozen=True, slots=True)
class Span:
    """A range on one line: `line` 0-based, `start`/`end` code-point columns, end exclusive.

    `units` holds the same columns as (UTF-16 start, end, UTF-8 start, end) when the line before
    `end` is not plain ASCII (else they equal the code points), so a range can be sent to any
    client without reading its file again.
    """

    line: int
    start: int
    end: int
    units: tuple[int, int, int, int] | None = field(default=None, compare=False)

    def columns(self, encoding: str) -> tuple[int, int]:
        """(start, end) in "utf-32" (code points), "utf-16" or "utf-8" units."""
        if self.units is None or encoding == "utf-32":
            return self.start, self.end
        if encoding == "utf-8":
            return self.units[2], self.units[3]
        return self.units[0], self.units[1]

    @classmethod
    def on_line(cls, text: str, line: int, start: int, end: int) -> Span:
        """The span of `text[start:end]`, with its other units when the text needs them."""
        if text.isascii() or text[:end].isascii():
            return cls(line, start, end)
        before, inside = text[:start], text[start:end]
        start16 = len(before.encode("utf-16-le")) // 2
        start8 = len(before.encode())
        units = (
            start16,
            start16 + len(inside.encode("utf-16-le")) // 2,
            start8,
            start8 + len(inside.encode()),
        )
        return cls(line, start, end, units)


class LinkKind(StrEnum):
    WIKI = "wiki"
    MARKDOWN = "markdown"


@dataclass(frozen=True, slots=True)
class Link:
    """One link as written in a note.

    `target` is the note or file part ("" for a same-note link like `[[#Heading]]`), already
    URL-decoded for markdown links. `headings` is the heading path after `#` (`[[n#A#B]]` gives
    ("A", "B")); `block` is the id after `#^`.
    """

    kind: LinkKind
    target: str
    headings: tuple[str, ...]
    block: str | None
    label: str | None
    embed: bool
    span: Span

    def __post_init__(self) -> None:
        # One string per target, however many notes link to it: a vault's links are mostly to
        # a few names, and a vault of 50,000 notes holds 230,000 of them.
        object.__setattr__(self, "target", sys.intern(self.target))

    @property
    def anchor(self) -> str:
        if self.block:
            return "^" + self.block
        return "#".join(self.headings)


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    text: str
    slug: str
    line: int


@dataclass(frozen=True, slots=True)
class Block:
    id: str
    line: int


@dataclass(frozen=True, slots=True)
class Tag:
    name: str
    span: Span | None  # None for tags from frontmatter

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", sys.intern(self.name))  # as `Link.target`


@dataclass(frozen=True, slots=True)
class Note:
    """Everything parsed from one file; `path` is vault-relative with forward slashes."""

    path: str
    title: str
    aliases: tuple[str, ...]
    tags: tuple[Tag, ...]
    description: str
    date: str | None  # YYYY-MM-DD
    headings: tuple[Heading, ...]
    blocks: tuple[Block, ...]
    links: tuple[Link, ...]
    line_count: int
    body_start_line: int  # first line indexed as text: after valid frontmatter, 0-based
    problems: tuple[str, ...] = ()
    # The frontmatter's properties as filters read them (parse/properties.py): (key, values),
    # folded, values as text.
    properties: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def stem(self) -> str:
        return path_stem(self.path)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A searchable piece of a note: a heading section, or part of one."""

    id: str
    path: str
    breadcrumb: tuple[str, ...]  # title, then the enclosing headings
    start_line: int  # 1-based, inclusive
    end_line: int  # 1-based, inclusive
    text: str

    @property
    def heading(self) -> str:
        return self.breadcrumb[-1] if len(self.breadcrumb) > 1 else ""


def heading_path(breadcrumb: Sequence[str]) -> str:
    """A section's headings below the note's title as a link's anchor writes them ("A#B"), which
    `read` takes as its heading; "" for the text before a note's first heading."""
    return "#".join(breadcrumb[1:])


class LinkStatus(StrEnum):
    RESOLVED = "resolved"
    AMBIGUOUS = "ambiguous"  # resolved to one note, other candidates exist
    UNRESOLVED = "unresolved"
    OUTSIDE = "outside"  # points outside the vault: never resolved


@dataclass(frozen=True, slots=True)
class Resolution:
    """Where a link goes. `targets` has one path, or several for notes sharing an alias."""

    status: LinkStatus
    targets: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()  # for AMBIGUOUS: every note the name matched


@dataclass(frozen=True, slots=True)
class ResolvedLink:
    source: str
    link: Link
    resolution: Resolution


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A linked note as shown in link expansion and hover."""

    path: str
    name: str
    description: str
    anchors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str


# A file name may hold any character but "/" and NUL: a newline would split one problem into two
# lines, ESC and BEL drive the terminal, bidi controls reorder what the reader sees, and a lone
# surrogate (an undecodable byte of a name) cannot even be written as UTF-8.
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str) -> str:
    """`text` (a path, a reason) as one printable line: control characters (C0, DEL, C1), line and
    paragraph separators, bidi controls and lone surrogates are escaped visibly (`\\n`, `\\x1b`,
    `\\u2028`). A surrogate standing for an undecodable byte of a file name shows that byte."""
    return UNPRINTABLE.sub(_escape, text)


# Characters of an argument a sentence about it quotes back.
QUOTED_CHARACTERS = 100


def quoted(value: object) -> str:
    """An argument as an error quotes it (`repr`): whole up to 100 characters, else its head, '…'
    and its length, so that a sentence about a 200,000-character argument stays a sentence."""
    if isinstance(value, str) and len(value) > QUOTED_CHARACTERS:
        return f"{value[:QUOTED_CHARACTERS]!r}… ({len(value):,} characters)"
    text = repr(value)
    return text if len(text) <= QUOTED_CHARACTERS else text[:QUOTED_CHARACTERS] + "…"


def printable_lines(text: str) -> str:
    """Like `printable`, but newlines and tabs stay: text shown as several lines (a chunk)."""
    return UNPRINTABLE.sub(lambda m: m.group() if m.group() in "\n\t" else _escape(m), text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    if code < 0xA0:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for the byte (code - 0xDC00)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str
    limit: int = 10
    min_score: float = 0.0
    start_date: str | None = None
    end_date: str | None = None
    expand: bool = True
    budget_tokens: int | None = None
    mode: str = "hybrid"  # one of SEARCH_MODES
    sections: bool = False  # list each matching section; by default a note once, at its best
    min_strength: float | None = None  # None: the `min_strength` setting
    fusion: str | None = None  # one of settings.FUSION_RULES; None: the `fusion` setting
    # Which notes may answer (search/scope.py): vault-relative folders, note paths or globs, and
    # tags; a note must match one of each that is given. Empty: every note.
    paths: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    # Notes (vault-relative paths or names, `name#Heading` for a section) whose place in the
    # answer is explained (search/explain.py); explaining never changes the results.
    explain: tuple[str, ...] = ()
    # Notes (paths or names) whose results are favoured: a result that is one, links to one or
    # names one in plain text gains the `about_boost` setting (search/hybrid.py).
    about: tuple[str, ...] = ()
    # Property filters (search/where.py), each as written once checked (`type=movie`,
    # `rating>=4`, `cover`); a note must hold all of them. With any filter the query may be
    # empty: the matching notes are listed, newest first.
    where: tuple[str, ...] = ()
    # Whether the notes this search shows count as recalled (their `Recall`); False for a
    # benchmark, which must not train the ranking it measures (docs/search.md, "Recall").
    record: bool = True


SEARCH_MODES = ("hybrid", "keyword", "vector")

# The graph around a note (queries/graph_walk.py, queries/graph_view.py): its bounds
# are named here, where the command line reads them without importing the graph.
Direction = Literal["both", "out", "in"]
DIRECTIONS: tuple[Direction, ...] = ("both", "out", "in")
# The most results a list answer (search, related, recent) gives: more than any vault has notes
# or chunks to show, and a bound so a mistyped number is a sentence, not a failed allocation.
MAX_LIMIT = 100_000
MIN_DEPTH, MAX_DEPTH = 1, 5  # links from the note: five already reach most of a vault
MAX_PER_NODE = 200  # neighbours one note brings in per direction: a hub brings its first ones
MAX_NODES = 2000  # nodes in one answer: more is no graph anyone reads
MEANING = 5  # closest notes by meaning an answer shows unless asked otherwise
MOST_MEANING = 100  # as many as `memlsp/related` gives at most


@dataclass(frozen=True, slots=True)
class OtherSection:
    """Another section of a result's note that matched too, below the result's own."""

    start_line: int
    end_line: int
    heading: str
    breadcrumb: tuple[str, ...]
    score: float


@dataclass(frozen=True, slots=True)
class Recall:
    """How often a note was among the results a search showed its asker, and when last."""

    # Named as the JSON names them (where the time is ISO 8601 text instead).
    recall_count: int = 0
    last_recalled_at: int | None = None  # ns since 1970; None: never


NEVER = Recall()


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result with the evidence for its place in the ranking."""

    chunk: Chunk
    score: float
    keyword_score: float | None
    keyword_rank: int | None
    vector_score: float | None
    vector_rank: int | None
    matched_terms: tuple[str, ...]
    title: str
    date: str | None
    outlinks: tuple[Neighbour, ...] = ()
    inlinks: tuple[Neighbour, ...] = ()
    source: str = "hit"
    other_sections: tuple[OtherSection, ...] = ()  # of the same note, best first
    recall: Recall = NEVER  # filled where the answer leaves for its asker (search/recall.py)


@dataclass(frozen=True, slots=True)
class SearchCounts:
    keyword: int  # candidates from each side
    vector: int
    hybrid: bool  # both sides ran


@dataclass(frozen=True, slots=True)
class Dropped:
    """A result a token budget left out: enough to find it again (`read` takes its path and
    heading) and to judge whether it is worth a larger budget."""

    path: str
    heading: str  # `heading_path` of its section
    score: float
    tokens: int  # what showing it would have cost, by the measure of the budget that cut it


@dataclass(frozen=True, slots=True)
class BudgetCut:
    """What a token budget did to a list of results: the tokens it allowed, the tokens of the
    results shown, and the results it left out, in rank order."""

    budget_tokens: int
    budget_used: int
    dropped: tuple[Dropped, ...] = ()


# Why a note is or is not in a search's answer (search/explain.py): a fixed vocabulary, which
# scripts and agents switch on.
Verdict = Literal[
    "shown",
    "not_a_note",
    "not_indexed_yet",
    "filtered",
    "no_evidence",
    "below_floor",
    "beyond_limit",
    "cut_by_budget",
    "merged",
    "linked_only",
]


@dataclass(frozen=True, slots=True)
class KeywordEvidence:
    """What the keyword side found in a note: its best section's rank among the side's
    candidates (None past them), its BM25 score (None: no query term in it), the terms found."""

    rank: int | None
    score: float | None
    matched_terms: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class VectorEvidence:
    """What the vector side found of a note: its best section's rank among the side's candidates
    (None past them) and its similarity to the query (None: not asked, or not embedded)."""

    rank: int | None
    similarity: float | None
    embedded: bool


@dataclass(frozen=True, slots=True)
class Facts:
    """What a verdict rests on, as it applies (None: not part of this verdict)."""

    rank: int | None = None  # among the results (shown, past the limit, cut by the budget)
    score: float | None = None  # the score it shows, or would
    heading: str | None = None  # the section shown (`heading_path`)
    filter: str | None = None  # "path", "tag", "property" or "date"
    floor: str | None = None  # "min_score" or "min_strength"
    floor_value: float | None = None
    strength: float | None = None  # the query's evidence, under min_strength
    limit: int | None = None
    last_score: float | None = None  # the last result shown
    candidates: int | None = None  # how many candidates each side ranks
    tokens: int | None = None  # what it needed of the budget
    tokens_left: int | None = None
    linked_from: str | None = None  # the result it is a link of
    linked_rank: int | None = None
    reason: str | None = None  # why a file is not a note (sync/not_notes.py REASONS)
    terms: str | None = None  # the query's words, as typed


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why one note asked about is, or is not, in a search's answer: a verdict, one sentence a
    person reads, each side's evidence, and the facts the verdict rests on (its rank, the filter
    that left it out, the floor it is under ...), by name."""

    note: str  # as it was asked for
    path: str | None  # the vault-relative path it names, None when it names no file
    verdict: Verdict
    sentence: str
    keyword: KeywordEvidence | None = None  # None: the side did not run
    vector: VectorEvidence | None = None
    facts: Facts = Facts()


@dataclass(frozen=True, slots=True)
class SearchResponse:
    query: str
    hits: tuple[Hit, ...]
    counts: SearchCounts
    mode: str = "hybrid"
    # e.g. why the vector side did not run; what a budget left out is said beside them in the
    # JSON and the text, from `budget`
    warnings: tuple[str, ...] = ()
    # How well the query is answered at all, 0..1, the same scale for every query
    # (search/evidence.py); every result's score is its fused score times this.
    strength: float = 0.0
    fusion: str = "evidence"  # the rule that fused the sides (search/fusion.py)
    budget: BudgetCut | None = None  # None: no token budget was asked for
    explained: tuple[Explanation, ...] = ()  # one per note of `SearchRequest.explain`


@dataclass(frozen=True, slots=True)
class IndexSummary:
    notes: int
    chunks: int
    links: int
    unresolved: int
    ambiguous: int
    added: int
    modified: int
    deleted: int
    skipped: tuple[Skipped, ...]
    problems: tuple[Skipped, ...]
    seconds: float
    read_only: bool = False
    messages: tuple[str, ...] = field(default_factory=tuple)


_FIELDS: dict[type, Callable[[object], tuple[object, ...]]] = {}


def _reduce(self: object) -> tuple[type, tuple[object, ...]]:
    return type(self), _FIELDS[type(self)](self)


# The manifest pickles every parsed note. The default pickling of frozen slotted dataclasses goes
# through a slow pure-Python `__setstate__`; rebuilding them from positional fields loads a 10k-note
# manifest about three times faster.
for _value_type in (Span, Link, Heading, Block, Tag, Note, Chunk, Resolution, ResolvedLink):
    _FIELDS[_value_type] = attrgetter(*(f.name for f in fields(_value_type)))  # all have 2+
    setattr(_value_type, "__reduce__", _reduce)  # noqa: B010 - mypy rejects assigning a method
