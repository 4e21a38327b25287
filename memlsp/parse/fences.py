"""Where a fenced code block opens and closes, and where a list item's content runs: one rule for
every reader of a note's blocks (the masking before links are read, parse/mask.py; the hover's
safe Markdown and its math closer, navigation/markdown_safe.py and navigation/hover.py), so they
never disagree about what is code.

CommonMark's rule: a fence is a run of three or more backticks or tildes indented at most three
spaces, and a backtick fence's info string holds no backtick (such a line is inline code). Inside
a list item the item's content is itself indented, so there a fence may be indented more (code in
a list). A fence is closed by a run of its character at least as long, with only spaces after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FENCE_INDENT = 3  # spaces before a fence's marker, at most (outside a list item)
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_FENCE_OPEN = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True, slots=True)
class Fence:
    """The line that opens a fenced code block."""

    indent: str  # as written before the marker
    marker: str  # the opening run: ``` or ~~~~ ...
    info: str  # the rest of the line


def may_open_block(line: str, in_list: bool = False) -> bool:
    """Whether a block's marker (a fence, a `$$`) may begin `line`: it is indented at most three
    spaces, or the line is inside a list item (`in_list`)."""
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    return in_list or len(indent.expandtabs(4)) <= FENCE_INDENT


def fence_opening(line: str, in_list: bool = False) -> Fence | None:
    """The fence `line` opens, if it opens one; `in_list`: the line is inside a list item."""
    if "```" not in line and "~~~" not in line:
        return None
    match = _FENCE_OPEN.match(line)
    if match is None or not may_open_block(line, in_list):
        return None
    indent, marker, info = match.groups()
    if marker[0] == "`" and "`" in info:
        return None  # inline code, not a fence
    return Fence(indent, marker, info)


def closes_fence(line: str, marker: str) -> bool:
    """Whether `line` closes the fence opened by `marker`."""
    stripped = line.strip()
    return stripped.startswith(marker[0] * len(marker)) and set(stripped) <= {marker[0]}


def indented(line: str) -> bool:
    """Indented as code is (four spaces or a tab), and not blank."""
    return line.startswith(("    ", "\t")) and bool(line.strip())


@dataclass(slots=True)
class ListItems:
    """Whether the lines read so far leave the next one inside a list item: an item's marker
    opens one; a line at the margin after a blank line ends it. Lines inside a block (a fence,
    math, indented code) are `skipped`: they neither open nor end one."""

    in_list: bool = False
    after_blank: bool = True

    def read(self, line: str) -> None:
        blank = not line.strip()
        if not blank:
            if LIST_ITEM.match(line):
                self.in_list = True
            elif not line[:1].isspace() and self.after_blank:
                self.in_list = False
        self.after_blank = blank

    def skipped(self) -> None:
        self.after_blank = False
