"""Names written as plain text in a note: where any of a set of names occurs outside links, code,
math, comments, URLs, tags and the frontmatter (docs/mentions.md has the rules).

A note's prose is read line by line (`prose_lines`): the parts that are not plain text are
replaced by a character no name holds, the line is case-folded and runs of spaces become one, and
each folded column keeps the column it came from. `find_names` then looks for the names, starting
only where a word, a CJK character or a punctuation mark starts, and keeps an occurrence when its
ends are word boundaries: a Latin end must not touch another Latin letter, digit or `_`; a CJK
end must fall between two words of jieba's most probable cut of its run of CJK characters, with
the names themselves added as words (parse/word_cuts.py).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice

from memlsp.parse.frontmatter import split_frontmatter
from memlsp.parse.links import find_links, find_tags
from memlsp.parse.markdown import split_lines
from memlsp.parse.mask import iter_masked
from memlsp.parse.word_cuts import ExtraWords, cuts, extra_words
from memlsp.text import CJK_CLASS, CJK_RUN

NOT_PROSE = "\x00"  # stands for what is not plain text: no name holds it, nothing joins across it
_LATIN_WORD_CHAR = re.compile(f"[^\\W{CJK_CLASS}]")
_CJK_CHAR = re.compile(f"[{CJK_CLASS}]")
# Where a name may start: a Latin word (whole), a CJK character, a punctuation mark.
_START = re.compile(f"[^\\W{CJK_CLASS}]+|[{CJK_CLASS}]|[^\\w\\s{NOT_PROSE}]")
# `<scheme:...>` and `<mail@host>` autolinks, bare web addresses.
_URL = re.compile(
    r"<[A-Za-z][A-Za-z0-9+.\-]*:[^\s<>]*>|<[^\s<>@]+@[^\s<>]+>"
    r"|(?<![\w/])(?:https?|ftp)://[^\s<>]+|(?<![\w/.])www\.[^\s<>]+"
)
_MASKED_RUN = re.compile(" +")
_SPACE_RUN = re.compile("[ \t]+")


def name_text(key: str) -> str:
    """A name as `find_names` looks for it: its key (already case-folded) with each run of
    spaces made one space."""
    return " ".join(key.split())


def is_cjk(character: str) -> bool:
    return _CJK_CHAR.match(character) is not None


def is_latin_word_char(character: str) -> bool:
    return _LATIN_WORD_CHAR.match(character) is not None


@dataclass(frozen=True, slots=True)
class ProseLine:
    """One line of a note as names are looked for in it."""

    line: int  # 0-based
    text: str  # as written
    folded: str  # plain text only, case-folded, one space for each run of spaces
    columns: tuple[int, ...] | None  # each folded character's column in `text`; None: the same

    def columns_of(self, start: int, end: int) -> tuple[int, int]:
        """The columns in `text` of the folded characters start..end."""
        if self.columns is None:
            return start, end
        return self.columns[start], self.columns[end - 1] + 1


def prose_lines(text: str, near: Collection[str] = ()) -> Iterator[ProseLine]:
    """The lines of a note's body that hold any plain text, in order; with `near` (folded
    names), only those where one of these is written."""
    lines = split_lines(text)
    body_start = split_frontmatter(lines).body_start
    for line_no, masked in enumerate(iter_masked(islice(lines, body_start, None)), body_start):
        if masked.in_block:
            continue
        original = lines[line_no]
        if near and not _may_hold(original, near):
            continue
        prose = _plain(masked.text, original, line_no)
        if prose.strip(f" \t{NOT_PROSE}"):
            yield _folded(line_no, original, prose)


def _may_hold(original: str, near: Collection[str]) -> bool:
    """Whether one of the folded names may be on the line, judged before its prose is read."""
    folded = original.casefold()
    if any(key in folded for key in near):
        return True
    return any(" " in key for key in near) and any(key in " ".join(folded.split()) for key in near)


def _plain(masked: str, original: str, line_no: int) -> str:
    """The line with what is not plain text (code, math, comments, links, tags, URLs) replaced
    by NOT_PROSE, column for column."""
    spans: list[tuple[int, int]] = []
    if masked != original:  # code, math or a comment was blanked: mark it as not prose
        spans += [
            match.span()
            for match in _MASKED_RUN.finditer(masked)
            if original[match.start() : match.end()].strip()
        ]
    links, without_links = find_links(masked, line_no, original)
    spans += [(link.span.start, link.span.end) for link in links]
    spans += [
        (tag.span.start, tag.span.end)
        for tag in find_tags(without_links, line_no, original)
        if tag.span is not None
    ]
    if "/" in without_links or "<" in without_links or "www." in without_links:
        spans += [match.span() for match in _URL.finditer(without_links)]
    if not spans:
        return original
    pieces = []
    done = 0
    for start, end in sorted(spans):
        start = max(start, done)
        if end <= start:
            continue
        pieces += [original[done:start], NOT_PROSE * (end - start)]
        done = end
    pieces.append(original[done:])
    return "".join(pieces)


def _folded(line_no: int, original: str, prose: str) -> ProseLine:
    folded = prose.casefold()
    spaced = "\t" in prose or "  " in prose
    if len(folded) == len(prose) and not spaced:
        return ProseLine(line_no, original, folded, None)
    # Casefold may lengthen a character (ß -> ss): fold one character at a time.
    characters: list[str] = []
    columns: list[int] = []
    at = 0
    for match in _SPACE_RUN.finditer(prose) if spaced else ():
        _fold_into(prose, at, match.start(), characters, columns)
        characters.append(" ")
        columns.append(match.start())
        at = match.end()
    _fold_into(prose, at, len(prose), characters, columns)
    return ProseLine(line_no, original, "".join(characters), tuple(columns))


def _fold_into(prose: str, start: int, end: int, characters: list[str], columns: list[int]) -> None:
    piece = prose[start:end]
    folded = piece.casefold()
    if len(folded) == len(piece):
        characters.append(folded)
        columns.extend(range(start, end))
        return
    for column in range(start, end):
        one = prose[column].casefold()
        characters.append(one)
        columns.extend([column] * len(one))


@dataclass(frozen=True, slots=True)
class NameMatcher:
    """Names to look for (as `name_text` gives them), by what each starts with."""

    by_start: Mapping[str, tuple[str, ...]]  # the first `_START` token -> names, longest first
    words: ExtraWords  # the names' CJK runs, as words for jieba's cut
    longest: int = 0  # characters of the longest name


def name_matcher(names: Iterable[str]) -> NameMatcher:
    by_start: dict[str, list[str]] = {}
    cjk_words: set[str] = set()
    for name in set(names):
        first = _START.match(name)
        if first is None:
            continue  # starts with a space or NOT_PROSE: never found
        by_start.setdefault(first.group(), []).append(name)
        cjk_words.update(CJK_RUN.findall(name))
    return NameMatcher(
        {
            start: tuple(sorted(found, key=lambda n: (-len(n), n)))
            for start, found in by_start.items()
        },
        extra_words(sorted(cjk_words)),
        max((len(name) for found in by_start.values() for name in found), default=0),
    )


@dataclass(frozen=True, slots=True)
class Found:
    name: str  # as the matcher holds it
    start: int  # columns in the line as written
    end: int


def find_names(matcher: NameMatcher, line: ProseLine, near: Collection[str] = ()) -> list[Found]:
    """The names on one line, apart: of overlapping ones the leftmost, then the longest. With
    `near` (folded names), only the names that can touch one of those where it is written: a
    note's own mentions, found without trying every name at every character of a long note."""
    folded = line.folded
    by_start = matcher.by_start
    hits: list[tuple[int, int, str]] = []
    run_cuts: dict[int, frozenset[int]] = {}
    for low, high in _windows(folded, near, matcher.longest) if near else [(0, len(folded))]:
        for match in _START.finditer(folded, low, high):
            names = by_start.get(match.group())
            if not names:
                continue
            start = match.start()
            for name in names:
                end = start + len(name)
                if folded.startswith(name, start) and _bounded(
                    folded, start, end, matcher, run_cuts
                ):
                    hits.append((start, end, name))
    hits.sort(key=lambda hit: (hit[0], hit[0] - hit[1]))
    found = []
    taken = 0
    for start, end, name in hits:
        if start >= taken:
            found.append(Found(name, *line.columns_of(start, end)))
            taken = end
    return found


def _windows(folded: str, near: Collection[str], longest: int) -> list[tuple[int, int]]:
    """The stretches of the line where a name touching one of `near` can start: from a name's
    length before each place one is written to its end, each widened to whole Latin words."""
    spans = []
    for key in near:
        at = folded.find(key)
        while at != -1:
            low = max(0, at - longest)
            while low > 0 and is_latin_word_char(folded[low - 1]):
                low -= 1
            high = at + len(key)
            while high < len(folded) and is_latin_word_char(folded[high]):
                high += 1
            spans.append((low, high))
            at = folded.find(key, at + 1)
    merged: list[tuple[int, int]] = []
    for low, high in sorted(spans):
        if merged and low <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


def _bounded(
    folded: str, start: int, end: int, matcher: NameMatcher, run_cuts: dict[int, frozenset[int]]
) -> bool:
    """Both ends of folded[start:end] are word boundaries."""
    first, last = folded[start], folded[end - 1]
    if is_latin_word_char(last) and end < len(folded) and is_latin_word_char(folded[end]):
        return False
    # A Latin start is a boundary already: `_START` reads a Latin word whole.
    inside_before = is_cjk(first) and start > 0 and is_cjk(folded[start - 1])
    if inside_before and start not in _cuts_around(folded, start, matcher, run_cuts):
        return False
    inside_after = is_cjk(last) and end < len(folded) and is_cjk(folded[end])
    return not (inside_after and end not in _cuts_around(folded, end - 1, matcher, run_cuts))


def _cuts_around(
    folded: str, inside: int, matcher: NameMatcher, run_cuts: dict[int, frozenset[int]]
) -> frozenset[int]:
    """Where jieba cuts the run of CJK characters that holds column `inside`, as line columns."""
    run_start = inside
    while run_start > 0 and is_cjk(folded[run_start - 1]):
        run_start -= 1
    known = run_cuts.get(run_start)
    if known is None:
        run_end = inside + 1
        while run_end < len(folded) and is_cjk(folded[run_end]):
            run_end += 1
        positions = cuts(folded[run_start:run_end], matcher.words)
        known = run_cuts[run_start] = frozenset(run_start + at for at in positions)
    return known
