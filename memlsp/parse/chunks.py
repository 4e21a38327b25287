"""Cut a note into chunks: heading sections, split under a size cap (docs/chunks.md).

A section never splits inside a code fence, math block or link unless the fence alone is over the
cap, in which case it becomes labelled parts. A chunk's id hashes its path, breadcrumb and text (and
its rank among identical siblings), never its line numbers, so lines shifting above a section leave
that section's id, and its vector, unchanged. The id also says whether the chunk is prose, that is
embedded (`parse.prose.chunk_id`): a vector stored for a chunk before it counted as not prose is
then stale, and deleted, rather than kept.

An Excalidraw drawing keeps only its words: the drawing's data and the plugin's banner are left out,
and every chunk is labelled as the drawing's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from itertools import islice

from memlsp.model import Chunk, Note
from memlsp.parse.excalidraw import DRAWING_HEADING, DRAWING_LABEL, is_boilerplate, is_drawing
from memlsp.parse.mask import iter_masked
from memlsp.parse.prose import chunk_id, is_prose
from memlsp.parse.tokens import estimate_tokens

_LINK = r"!?\[\[[^\[\]\n]*\]\]|!?\[[^\[\]\n]*\]\([^()\n]*\)"
# A word stops where a link starts: Chinese text glues links to words (`参考[[向量 检索]]的`).
# Only a `!` or `[` can start one, so only there is the look-ahead needed.
_WORD = rf"(?:[^\s!\[]++|(?!{_LINK})[!\[])++"
_ATOM = re.compile(rf"(?P<link>{_LINK})|{_WORD}")
# Runs of up to 64 and 8 atoms (with the spaces between them), as `_ATOM` finds them one by one.
_ATOM_RUNS = tuple(
    re.compile(rf"(?:{_LINK}|{_WORD})(?:\s*+(?:{_LINK}|{_WORD})){{0,{atoms - 1}}}")
    for atoms in (64, 8)
)


@dataclass(frozen=True, slots=True)
class _Piece:
    start: int  # 0-based line, inclusive
    end: int  # 0-based line, inclusive
    text: str
    label: str | None = None


class _Sized:
    """A file's lines and their token counts, each counted once however often a size is asked.

    No token spans a line break, so a range of lines holds the sum of its lines' tokens.
    """

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._tokens: list[int | None] = [None] * len(lines)

    def tokens(self, number: int) -> int:
        count = self._tokens[number]
        if count is None:
            count = self._tokens[number] = estimate_tokens(self.lines[number])
        return count

    def range_tokens(self, start: int, end: int) -> int:
        return sum(self.tokens(number) for number in range(start, end + 1))


def chunk_note(note: Note, lines: list[str], max_tokens: int) -> list[Chunk]:
    """Chunks of a Markdown note, in file order."""
    sized = _Sized(lines)
    pieces: list[tuple[tuple[str, ...], _Piece]] = []
    stack: list[tuple[int, str]] = []
    drawing = is_drawing(lines[: note.body_start_line])
    section_headings = [h for h in note.headings if h.line >= note.body_start_line]
    starts = [note.body_start_line] + [h.line for h in section_headings]
    ends = [*starts[1:], len(lines)]
    for index, (start, end) in enumerate(zip(starts, ends, strict=True)):
        if index > 0:
            heading = section_headings[index - 1]
            while stack and stack[-1][0] >= heading.level:
                stack.pop()
            stack.append((heading.level, heading.text))
        # An H1 that repeats the title (the usual case) is not shown twice.
        headings = [text for level, text in stack if not (level == 1 and text == note.title)]
        breadcrumb = (note.title, *headings)
        last = end - 1
        if drawing:
            if DRAWING_HEADING in headings:
                continue
            start, last = _trim(lines, start, last, _drawing_filler)
        pieces.extend(
            (breadcrumb, _as_drawing(piece) if drawing else piece)
            for piece in _split_section(sized, start, last, max_tokens)
        )
    return _to_chunks(note.path, pieces)


def _as_drawing(piece: _Piece) -> _Piece:
    return _Piece(piece.start, piece.end, piece.text, DRAWING_LABEL)


def chunk_jsonl(path: str, title: str, lines: list[str], max_tokens: int) -> list[Chunk]:
    """Records grouped by size with about an eighth of the cap repeated between neighbours."""
    sized = _Sized(lines)
    overlap = max_tokens // 8
    pieces: list[tuple[tuple[str, ...], _Piece]] = []
    index = 0
    while index < len(lines):
        used = 0
        end = index
        while end < len(lines) and (end == index or used + sized.tokens(end) <= max_tokens):
            used += sized.tokens(end)
            end += 1
        for piece in _split_range(sized, index, end - 1, max_tokens):
            pieces.append(((title,), piece))
        if end >= len(lines):
            break
        # A line repeated as overlap costs at least one token: lines without any (blank ones)
        # would otherwise all be repeated, and a file of them would be read once per line.
        back, kept = end, 0
        while back - 1 > index and kept + max(1, sized.tokens(back - 1)) <= overlap:
            back -= 1
            kept += max(1, sized.tokens(back))
        index = back
    return _to_chunks(path, pieces)


def _to_chunks(path: str, pieces: list[tuple[tuple[str, ...], _Piece]]) -> list[Chunk]:
    chunks = []
    seen: dict[str, int] = {}
    for breadcrumb, piece in pieces:
        crumbs = (*breadcrumb, piece.label) if piece.label else breadcrumb
        chunk = Chunk("", path, crumbs, piece.start + 1, piece.end + 1, piece.text)
        key = "\0".join((path, *crumbs, piece.text))
        ordinal = seen.get(key, 0)
        seen[key] = ordinal + 1
        digest = hashlib.sha1(f"{key}\0{ordinal}".encode(), usedforsecurity=False).hexdigest()
        chunks.append(replace(chunk, id=chunk_id(digest, is_prose(chunk))))
    return chunks


def _blank(line: str) -> bool:
    return not line.strip()


def _trim(
    lines: list[str], start: int, end: int, skip: Callable[[str], bool] = _blank
) -> tuple[int, int]:
    """The range without the lines `skip` names (blank ones, by default) at either end."""
    while start <= end and skip(lines[start]):
        start += 1
    while end >= start and skip(lines[end]):
        end -= 1
    return start, end


def _drawing_filler(line: str) -> bool:
    return _blank(line) or is_boilerplate(line)


def _split_section(sized: _Sized, start: int, end: int, max_tokens: int) -> Iterator[_Piece]:
    lines = sized.lines
    start, end = _trim(lines, start, end)
    if start > end:
        return
    text = "\n".join(lines[start : end + 1])
    # One count for the whole section (most fit whole), kept when it is a single line.
    tokens = sized.tokens(start) if start == end else estimate_tokens(text)
    if tokens <= max_tokens:
        yield _Piece(start, end, text)
        return
    yield from _pack(sized, _units(lines, start, end), max_tokens)


def _units(lines: list[str], start: int, end: int) -> list[tuple[int, int, bool]]:
    """(start, end, is_code) runs that should stay together: paragraphs and code/math blocks."""
    masked = iter_masked(islice(lines, start, end + 1))
    units: list[tuple[int, int, bool]] = []
    for number, line in enumerate(masked, start):
        if not lines[number].strip() and not line.in_block:
            continue
        if units and units[-1][1] == number - 1 and units[-1][2] == line.in_block:
            units[-1] = (units[-1][0], number, line.in_block)
        else:
            units.append((number, number, line.in_block))
    return units


def _pack(sized: _Sized, units: list[tuple[int, int, bool]], max_tokens: int) -> Iterator[_Piece]:
    current: tuple[int, int] | None = None
    used = 0
    for unit_start, unit_end, is_code in units:
        size = sized.range_tokens(unit_start, unit_end)
        if current is not None and used + size > max_tokens:
            yield from _split_range(sized, current[0], current[1], max_tokens)
            current, used = None, 0
        if size > max_tokens and is_code:
            parts = list(_split_range(sized, unit_start, unit_end, max_tokens))
            for number, part in enumerate(parts, 1):
                yield _Piece(part.start, part.end, part.text, f"code part {number}/{len(parts)}")
            continue
        current = (current[0] if current else unit_start, unit_end)
        used += size
    if current is not None:
        yield from _split_range(sized, current[0], current[1], max_tokens)


def _split_range(sized: _Sized, start: int, end: int, max_tokens: int) -> Iterator[_Piece]:
    """Whole lines under the cap; a line over the cap is cut between words, never in a link."""
    lines = sized.lines
    first = start
    used = 0
    for number in range(start, end + 1):
        size = sized.tokens(number)
        if number > first and used + size > max_tokens:
            yield from _lines_piece(lines, first, number - 1)
            first, used = number, 0
        if size > max_tokens:
            yield from _split_line(lines[number], number, max_tokens)
            first, used = number + 1, 0
            continue
        used += size
    yield from _lines_piece(lines, first, end)


def _lines_piece(lines: list[str], start: int, end: int) -> Iterator[_Piece]:
    """Lines `start..end` without blank lines at either end, so the range matches the text."""
    start, end = _trim(lines, start, end)
    if start <= end:
        yield _Piece(start, end, "\n".join(lines[start : end + 1]))


def _split_line(line: str, number: int, max_tokens: int) -> Iterator[_Piece]:
    """Cut one line between atoms; each part is a slice of the line, so its text is as written."""
    cutter = _LineCutter(line, number, max_tokens)
    cutter.cut(0, len(line), 0)
    yield from cutter.done()


class _LineCutter:
    """Greedy parts of one line: atoms are added while they fit, a part ends before one that does
    not (an atom over the cap alone makes a part).

    Atoms are taken a run at a time while a whole run fits (no token spans two atoms, so a run
    holds the sum of its atoms' tokens); a run that does not fit is taken in shorter runs, then
    atom by atom. The same parts as atom by atom, with a Python step per run, not per word.
    """

    def __init__(self, line: str, number: int, max_tokens: int) -> None:
        self.line = line
        self.number = number
        self.max_tokens = max_tokens
        self.parts: list[_Piece] = []
        self.first: int | None = None  # column where the current part starts
        self.last = 0
        self.used = 0

    def cut(self, begin: int, stop: int, level: int) -> None:
        if level == len(_ATOM_RUNS):
            for start, end in _atoms(self.line, begin, stop, self.max_tokens):
                self._add(start, end, estimate_tokens(self.line[start:end]))
            return
        pos = begin
        while (run := _ATOM_RUNS[level].search(self.line, pos, stop)) is not None:
            pos = run.end()
            size = estimate_tokens(run.group())
            if self.used + size <= self.max_tokens:
                self._add(run.start(), run.end(), size)
            else:
                self.cut(run.start(), run.end(), level + 1)

    def _add(self, start: int, end: int, size: int) -> None:
        if self.first is not None and self.used + size > self.max_tokens:
            self.parts.append(_Piece(self.number, self.number, self.line[self.first : self.last]))
            self.first, self.used = None, 0
        if self.first is None:
            self.first = start
        self.last = end
        self.used += size

    def done(self) -> list[_Piece]:
        if self.first is not None:
            self.parts.append(_Piece(self.number, self.number, self.line[self.first : self.last]))
            self.first = None
        return self.parts


def _atoms(line: str, begin: int, stop: int, max_tokens: int) -> Iterator[tuple[int, int]]:
    """Spans of links and words between columns `begin` and `stop`, in order.

    A word over the cap (a long CJK run) is cut every `max_tokens` characters; a link is never cut,
    even when it alone is over the cap.
    """
    for match in _ATOM.finditer(line, begin, stop):
        start, end = match.span()
        if match.group("link") is None and estimate_tokens(match.group()) > max_tokens:
            yield from ((i, min(i + max_tokens, end)) for i in range(start, end, max_tokens))
        else:
            yield start, end
