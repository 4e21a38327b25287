"""Blank out the parts of Markdown where nothing is a link, tag, heading or block id.

Code (fenced, indented, inline), HTML comments and math (`$$` blocks, inline `$...$`) are replaced
by spaces of the same length, so every later regex runs on text whose columns match the original.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from memlsp.parse.fences import ListItems, closes_fence, fence_opening, indented

_BACKTICKS = re.compile(r"`+")
_INLINE_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$")
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?=[^\s$])(?:[^$\n\\]|\\.)*?(?<=[^\s\\])\$(?!\d)")


@dataclass(frozen=True, slots=True)
class MaskedLine:
    text: str  # same length as the original line, masked regions replaced by spaces
    in_block: bool  # the whole line belongs to a fence, indented code or math block


def _blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each (start, end) span, in order and apart, replaced by spaces: one copy."""
    if not spans:
        return text
    pieces = []
    done = 0
    for start, end in spans:
        pieces.append(text[done:start])
        pieces.append(" " * (end - start))
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def _mask_inline_code(line: str) -> str:
    """Mask `code spans`: a run of N backticks up to the next run of exactly N."""
    if "`" not in line:
        return line
    runs = [match.span() for match in _BACKTICKS.finditer(line)]
    # Run indices by width, so finding the closing run never reads the runs in between.
    by_width: dict[int, deque[int]] = defaultdict(deque)
    for index, (start, end) in enumerate(runs):
        by_width[end - start].append(index)
    spans = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        later = by_width[end - start]
        while later and later[0] <= index:
            later.popleft()
        if not later:
            index += 1
            continue
        closing = later.popleft()
        spans.append((start, runs[closing][1]))
        index = closing + 1
    return _blank_spans(line, spans)


def _mask_inline_math(line: str) -> str:
    if "$" not in line:
        return line
    # `$$...$$` inside a paragraph is display math too; mask it before the single-`$` form.
    line = _blank_spans(line, [match.span() for match in _INLINE_DISPLAY_MATH.finditer(line)])
    return _blank_spans(line, [match.span() for match in _INLINE_MATH.finditer(line)])


class _Scanner:
    def __init__(self) -> None:
        self.fence: str | None = None  # the opening fence marker while inside a fence
        self.in_math = False
        self.in_comment = False
        self.prev_indented_code = False
        self.lists = ListItems()

    def _mask_comments(self, line: str) -> str:
        if not self.in_comment and "<!--" not in line:
            return line
        spans = []
        pos = 0
        while pos <= len(line):
            if self.in_comment:
                end = line.find("-->", pos)
                if end < 0:
                    spans.append((pos, len(line)))
                    break
                spans.append((pos, end + 3))
                self.in_comment = False
                pos = end + 3
            start = line.find("<!--", pos)
            if start < 0:
                break
            self.in_comment = True
            pos = start
        return _blank_spans(line, spans)

    def _block_line(self, line: str) -> bool:
        """Track fences, math blocks and indented code; True when the whole line is masked."""
        if self.fence is not None:
            if closes_fence(line, self.fence):
                self.fence = None
            return True
        if self.in_math:
            if "$$" in line:
                self.in_math = False
            return True
        fence = fence_opening(line, self.lists.in_list)
        if fence is not None:
            self.fence = fence.marker
            return True
        stripped = line.strip()
        if stripped.startswith("$$"):
            if not (len(stripped) >= 4 and stripped.endswith("$$")):
                self.in_math = True
            return True
        lists = self.lists
        if indented(line) and not lists.in_list and (lists.after_blank or self.prev_indented_code):
            self.prev_indented_code = True
            return True
        return False

    def scan(self, line: str) -> MaskedLine:
        if self.in_comment:
            line = self._mask_comments(line)
            if not line.strip():
                return MaskedLine(line, in_block=False)
        if self._block_line(line):
            self.lists.skipped()
            return MaskedLine(" " * len(line), in_block=True)
        if line.strip():
            self.prev_indented_code = False
        self.lists.read(line)
        masked = _mask_inline_code(line)
        masked = self._mask_comments(masked)
        masked = _mask_inline_math(masked)
        return MaskedLine(masked, in_block=False)


def iter_masked(lines: Iterable[str]) -> Iterator[MaskedLine]:
    """Each line masked, one at a time (a long note's masked copy is never held whole)."""
    scanner = _Scanner()
    return map(scanner.scan, lines)


def mask_lines(lines: list[str]) -> list[MaskedLine]:
    return list(iter_masked(lines))
