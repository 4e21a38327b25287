"""Parsing any note takes time linear in its size and bounded memory (reliability F3 and F4).

Each pathological note is parsed in a separate process that is killed if it runs away, so a
regression fails here within the guard instead of hanging the test run. The guards are generous
(each note parses in a small fraction of them); they only catch super-linear work.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlsp.model import LinkKind, Note, Span
from memlsp.parse.files import parse_file
from memlsp.parse.frontmatter import MAX_FRONTMATTER_CHARS
from memlsp.parse.limits import MAX_HEADINGS, MAX_LINKS, MAX_NAME_CHARS, MAX_TAGS
from memlsp.parse.markdown import parse_markdown, split_lines, strip_markup
from memlsp.settings.table import Settings
from memlsp.sync.prepare import prepare_text
from memlsp.sync.scan import FileStat

# The pathological inputs are parsed in a child process that bounds their time and memory.
pytestmark = pytest.mark.e2e

HANG_GUARD = 5.0  # seconds a note of at most a few megabytes may take to parse, chunk and segment
KILL_AFTER = 30.0  # a child still running then is stopped and the test fails


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a child process reports about one prepared note."""

    seconds: float
    peak_bytes: int | None  # traced Python allocations at their highest, when traced
    note: Note
    chunks: int


def _prepare(text: str, path: str, trace_memory: bool) -> Outcome:
    if trace_memory:  # tracing slows allocation several times over: not while timing
        tracemalloc.start()
    started = time.perf_counter()
    try:
        prepared = prepare_text(Settings(), FileStat(path, 0, len(text)), text)
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1] if trace_memory else None
    finally:
        tracemalloc.stop()
    assert prepared.note is not None, prepared.problem
    return Outcome(seconds, peak, prepared.note, len(prepared.documents))


def _strip_markup(text: str) -> float:
    started = time.perf_counter()
    strip_markup(text)
    return time.perf_counter() - started


class Child:
    """A process that prepares notes, started again after one was stopped for running away."""

    def __init__(self) -> None:
        self._pool: multiprocessing.pool.Pool | None = None

    def prepare(self, text: str, path: str = "note.md", *, trace_memory: bool = False) -> Outcome:
        """`text` prepared as the note at `path`, within the hang guard."""
        outcome: Outcome = self._call(_prepare, text, path, trace_memory)
        assert outcome.seconds < HANG_GUARD, f"took {outcome.seconds:.1f} s"
        return outcome

    def strip_markup(self, text: str) -> None:
        seconds: float = self._call(_strip_markup, text)
        assert seconds < HANG_GUARD, f"took {seconds:.1f} s"

    def _call(self, function: Callable[..., Any], *args: object) -> Any:
        if self._pool is None:
            self._pool = multiprocessing.get_context("spawn").Pool(1)
        pending = self._pool.apply_async(function, args)
        try:
            return pending.get(KILL_AFTER)
        except multiprocessing.TimeoutError:
            self.close()
            pytest.fail(f"still running after {KILL_AFTER:g} s")

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


@pytest.fixture(scope="module")
def child() -> Iterator[Child]:
    process = Child()
    yield process
    process.close()


def yaml_bomb(key: str) -> str:
    """374 bytes whose aliases stand for 9**7 (4.8 million) strings (the reproducer of F3)."""
    lines = ["---", 'l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 7)]
    return "\n".join([*lines, f"{key}: *l6", "---", "# Bomb", "", "bombtoken [[after]]", ""])


# -- F3: frontmatter ------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["tags", "title", "aliases", "description"])
def test_yaml_alias_bomb_is_refused_in_bounded_memory(child: Child, key: str) -> None:
    outcome = child.prepare(yaml_bomb(key), trace_memory=True)
    note = outcome.note
    assert outcome.peak_bytes is not None and outcome.peak_bytes < 50_000_000
    assert note.tags == () and note.aliases == ()
    assert note.title == "Bomb"  # the H1: the frontmatter was ignored
    assert len(note.problems) == 1
    assert "aliases" in note.problems[0] and "indexed as text" in note.problems[0]
    assert note.body_start_line == 0  # like invalid YAML: the frontmatter is searchable text
    assert [link.target for link in note.links] == ["after"]


def test_aliases_within_the_budget_still_work() -> None:
    text = "---\nshared: &shared [search, ranking]\ntags: *shared\naliases: *shared\n---\nbody\n"
    note = parse_markdown("n.md", text)
    assert [tag.name for tag in note.tags] == ["search", "ranking"]
    assert note.aliases == ("search", "ranking")
    assert note.problems == ()


def test_a_recursive_alias_is_reported() -> None:
    note = parse_markdown("n.md", "---\nloop: &loop [a, *loop]\ntags: *loop\n---\n# T\n")
    assert note.tags == ()
    assert len(note.problems) == 1 and "recursive alias" in note.problems[0]


def test_an_oversized_frontmatter_is_reported_and_indexed_as_text() -> None:
    filler = "".join(f"k{n}: {'v' * 60}\n" for n in range(MAX_FRONTMATTER_CHARS // 60))
    note = parse_markdown("n.md", f"---\ntitle: Big\n{filler}---\n# Heading\n[[target]]\n")
    assert note.title == "Heading"
    assert note.body_start_line == 0
    assert len(note.problems) == 1 and "frontmatter is over 65,536" in note.problems[0]
    assert [link.target for link in note.links] == ["target"]


def test_frontmatter_fields_are_cut_to_their_limits() -> None:
    tags = ", ".join(f"t{n}" for n in range(MAX_TAGS + 10))
    aliases = ", ".join(f"a{n}" for n in range(1_010))
    text = f"---\ntitle: {'T' * 5_000}\ntags: [{tags}]\naliases: [{aliases}]\n---\n#inline\n"
    note = parse_markdown("n.md", text)
    assert len(note.title) == MAX_NAME_CHARS
    assert len(note.tags) == MAX_TAGS and note.tags[-1].name == f"t{MAX_TAGS - 1}"
    assert len(note.aliases) == 1_000
    assert note.problems == (
        "over the limits of one note (2,000 tags, 1,000 aliases, 1,000 characters in the title);"
        " the rest is not indexed",
    )


def test_aliases_are_kept_short_in_all() -> None:
    # The index stores the aliases with every chunk of the note.
    aliases = ", ".join(f"{n:03d}{'a' * 97}" for n in range(200))
    note = parse_markdown("n.md", f"---\naliases: [{aliases}]\n---\nbody\n")
    assert len(note.aliases) == 100 and note.aliases[-1].startswith("099")
    assert note.problems == (
        "over the limits of one note (10,000 characters of aliases); the rest is not indexed",
    )


# -- F4: super-linear parsing ---------------------------------------------------------------


PATHOLOGICAL: dict[str, Callable[[], str]] = {
    # The reproducers of F4.
    "heading with a run of spaces": lambda: "# a" + " " * 64_000 + "b\n",
    "paragraph of tags then a word": lambda: "x" + " #a" * 21_333 + " !\n",
    "run of [": lambda: "[" * 64_000,
    "100k wikilinks on one line": lambda: " ".join(f"[[t{i}]]" for i in range(100_000)),
    # Same shapes elsewhere.
    "run of [[ then ]]": lambda: "[[" * 32_000 + "]]" * 32_000,
    "spaces between words": lambda: "word " + " " * 128_000 + " word\n",
    "unclosed markdown links": lambda: "[a](" * 16_000,
    "spaces in a markdown link": lambda: "[a](" + " " * 64_000 + "x",
    "code spans": lambda: "`a` " * 250_000,
    "backtick runs of every width": lambda: (
        "".join("`" * n + "a" for n in range(2, 500)) + "`a" * 100_000
    ),
    "inline math": lambda: "$a$ " * 250_000,
    "wikilinks after a CJK character": lambda: (
        "中 " + " ".join(f"[[t{i}]]" for i in range(100_000))
    ),
    "100k tags on one line": lambda: " ".join(f"#t{i}" for i in range(100_000)),
    "a 2 MB line of words": lambda: "word " * 400_000,
    "a 2 MB line of one word": lambda: "w" * 2_000_000,
}


@pytest.mark.parametrize("name", PATHOLOGICAL)
def test_pathological_note_parses_within_the_guard(child: Child, name: str) -> None:
    outcome = child.prepare(PATHOLOGICAL[name]())
    assert len(outcome.note.links) <= MAX_LINKS
    assert len(outcome.note.tags) <= MAX_TAGS


def test_records_without_words_are_not_repeated_in_every_window(
    child: Child,
) -> None:
    def record(words: int) -> str:
        return '{"t": "' + " ".join(f"w{i}" for i in range(words)) + '"}\n'

    # A long record, thousands of empty ones, a short one and a long one: the overlap used to walk
    # back over every empty record, so each window started one line later than the one before.
    text = record(499) + "{}\n" * 6_000 + record(9) + record(509)
    outcome = child.prepare(text, "records.jsonl")
    assert outcome.chunks < 100


# -- limits per note ------------------------------------------------------------------------


def test_links_past_the_limit_are_dropped_with_one_problem_line() -> None:
    text = "\n".join(f"[[first{i}]] [[second{i}]]" for i in range(MAX_LINKS)) + "\n"
    note = parse_markdown("n.md", text)
    assert len(note.links) == MAX_LINKS
    assert note.links[-1].target == f"second{MAX_LINKS // 2 - 1}"  # in the order written
    assert note.problems == ("over the limits of one note (10,000 links); the rest is not indexed",)


def test_headings_tags_and_block_ids_past_their_limits() -> None:
    text = "".join(f"# H{i}\n#t{i} ^b{i}\n" for i in range(MAX_HEADINGS + 1))
    note = parse_markdown("n.md", text)
    assert len(note.headings) == MAX_HEADINGS and note.headings[-1].text == "H4999"
    assert len(note.tags) == MAX_TAGS and note.tags[-1].name == "t1999"
    assert len(note.blocks) == 5_000
    assert note.problems == (
        "over the limits of one note (5,000 headings, 2,000 tags, 5,000 block ids);"
        " the rest is not indexed",
    )


def test_a_note_at_the_limits_has_no_problem() -> None:
    note = parse_markdown("n.md", " ".join(f"[[n{i}]]" for i in range(MAX_LINKS)))
    assert len(note.links) == MAX_LINKS and note.problems == ()


def test_a_long_heading_is_cut() -> None:
    note = parse_markdown("n.md", "## " + "word " * 2_000 + "\n\nbody\n")
    assert len(note.headings[0].text) <= MAX_NAME_CHARS
    assert note.problems == (
        "over the limits of one note (1,000 characters in a heading); the rest is not indexed",
    )


@pytest.mark.parametrize(
    "text",
    [
        "<!--" * 16_000 + "\nlast line",  # each comment reads on to a newline that is not last
        "[" * 64_000 + "](",
        "[[a" * 32_000,
        "x ^" * 32_000 + "a",
    ],
    ids=["unclosed comments", "labels", "wikilinks", "block ids"],
)
def test_strip_markup_is_linear(child: Child, text: str) -> None:
    child.strip_markup(text)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("[[note|Label]] and [[other]]", "Label and other"),
        ("![[image.png]] ![alt](pic.png)", "image.png alt"),
        ("**bold** _em_ `code` ~~gone~~", "bold em code gone"),
        ("keep <!-- hidden --> this", "keep  this"),
        ("text <!-- unclosed", "text"),
        ("a paragraph ^block-1", "a paragraph"),
        ("[[a]]b[x](y) [[", "abx [["),
        ("[not a link] [x] (y)", "[not a link] [x] (y)"),
    ],
)
def test_strip_markup_reads_as_before(text: str, shown: str) -> None:
    assert strip_markup(text) == shown


# -- fuzz -----------------------------------------------------------------------------------

SPECIAL = [*"#[]()!|^`~*_<>-=:$%", " ", "\t", "\n", "\r", "中", "文", "\N{GRINNING FACE}"]
PIECES = ["word", "note", "[[a]]", "[[a#H|l]]", "[l](n%20x.md)", "#tag", " ^id", "# ", "```", "$$"]
RUN = st.tuples(
    st.sampled_from(SPECIAL + PIECES),
    st.sampled_from([1, 2, 3, 10, 100, 500, 2_000, 10_000, 30_000]),
).map(lambda piece: piece[0] * piece[1])
TEXT = st.tuples(
    st.sampled_from(["", "---\n", "---\ntags: [a]\n---\n"]),
    st.lists(RUN, min_size=1, max_size=10),
).map(lambda parts: (parts[0] + "".join(parts[1]))[:120_000])


def _check_ranges(note: Note, lines: list[str]) -> None:
    assert note.line_count == len(lines)
    for link in note.links:
        line = _on_line(link.span, lines)
        written = line[link.span.start : link.span.end]
        if link.kind is LinkKind.WIKI:
            assert link.target in line
        else:
            assert link.target in unquote(written)
    for tag in note.tags:
        if tag.span is not None:  # inline, `#name`; in the frontmatter, `name` or `#name`
            written = _on_line(tag.span, lines)[tag.span.start : tag.span.end]
            assert written.startswith("#") or tag.span.line < note.body_start_line
            assert tag.name in written
    for heading in note.headings:
        assert 0 <= heading.line < len(lines)
        assert heading.text in lines[heading.line]
    for block in note.blocks:
        assert f"^{block.id}" in lines[block.line]


def _on_line(span: Span, lines: list[str]) -> str:
    assert 0 <= span.line < len(lines)
    line = lines[span.line]
    assert 0 <= span.start <= span.end <= len(line)
    assert span.units == Span.on_line(line, span.line, span.start, span.end).units
    return line


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_any_text_parses_quickly_and_consistently(text: str) -> None:
    started = time.perf_counter()
    prepared_file = prepare_text(Settings(), FileStat("fuzz.md", 0, len(text)), text)
    assert time.perf_counter() - started < HANG_GUARD
    note = prepared_file.note
    assert note is not None, prepared_file.problem
    lines = split_lines(text)
    _check_ranges(note, lines)
    assert len(note.links) <= MAX_LINKS and len(note.tags) <= MAX_TAGS
    assert len(note.headings) <= MAX_HEADINGS
    for document in prepared_file.documents:
        chunk = document.chunk
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines)
        assert chunk.text in "\n".join(lines[chunk.start_line - 1 : chunk.end_line])


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_any_text_chunks_quickly_as_records(text: str) -> None:
    started = time.perf_counter()
    parsed = parse_file("fuzz.jsonl", text, 64, records=True)
    assert time.perf_counter() - started < HANG_GUARD
    lines = split_lines(text)
    for chunk in parsed.chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines)
