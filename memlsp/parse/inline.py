"""The reading text of inline Markdown, found by one left-to-right scan of the text.

What `strip_markup` removes, tried in this order at each position (a regex alternation did this
before, but its `[^\\]]*` and `.*?` parts re-read the rest of the text from every `[` or `<!--`,
which made a run of them quadratic):

1. `[[target|label]]` (or `![[...]]`) shows its label, or the target without a label;
2. `[label](destination)` (or `![...](...)`) shows its label;
3. `<!-- comment -->` disappears, up to the end of its line when unclosed on the last line;
4. emphasis and code marks `*`, `_`, `` ` ``, `~` disappear;
5. a block id ` ^id` ending the text disappears.

Each look-ahead below asks for the next `]`, `)`, `-->` or newline at or after a position that
never moves back, and is answered from the previous answer while that still lies ahead, so the
text is read a bounded number of times whatever it holds.
"""

from __future__ import annotations

import re

_START = re.compile(r"!?\[+|<!--|[*_`~]+")
_ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-"
# Read on the reversed text: trailing spaces, then `tag#` and the spaces before it, repeated.
_REVERSED_TRAILING_TAGS = re.compile(r"\s*+(?:[\w\-/]++#\s++)++")


class _Ahead:
    """The next occurrence of `needle` at or after a position, for positions that only grow."""

    def __init__(self, text: str, needle: str) -> None:
        self._text = text
        self._needle = needle
        self._asked = len(text) + 1  # no answer yet
        self._found = -1

    def find(self, position: int) -> int:
        still_valid = self._asked <= position and (self._found == -1 or position <= self._found)
        if not still_valid:
            self._asked = position
            self._found = self._text.find(self._needle, position)
        return self._found


class _Scan:
    def __init__(self, text: str) -> None:
        self.text = text
        self.open = _Ahead(text, "[")
        self.close = _Ahead(text, "]")
        self.paren = _Ahead(text, ")")
        self.arrow = _Ahead(text, "-->")
        self.newline = _Ahead(text, "\n")

    def wikilink(self, at: int) -> tuple[int, str] | None:
        """`[[...]]` at `at` (its two `[` already seen): (end, shown text)."""
        text = self.text
        inner_start = at + 2
        close = self.close.find(inner_start)
        if close < 0 or not text.startswith("]]", close):
            return None
        opening = self.open.find(inner_start)
        if 0 <= opening < close:
            return None
        inner = text[inner_start:close]
        _, bar, label = inner.partition("|")
        return close + 2, (label if bar else inner)

    def inline_link(self, label_start: int) -> tuple[int, str] | None:
        """`[label](...)` whose label starts at `label_start`: (end, label)."""
        close = self.close.find(label_start)
        if close < 0 or not self.text.startswith("(", close + 1):
            return None
        paren = self.paren.find(close + 2)
        if paren < 0:
            return None
        return paren + 1, self.text[label_start:close]

    def comment(self, at: int) -> int | None:
        """The end of an HTML comment opening at `at`, as `<!--.*?(?:-->|$)` would match it."""
        arrow = self.arrow.find(at + 4)
        newline = self.newline.find(at + 4)
        if arrow >= 0 and (newline < 0 or arrow < newline):
            return arrow + 3
        if newline < 0:
            return len(self.text)
        return newline if newline == len(self.text) - 1 else None


def _block_id_start(text: str) -> int:
    """Where a trailing ` ^block-id` (and the spaces after it) starts; -1 if there is none."""
    if "^" not in text:
        return -1
    end = len(text.rstrip())
    before_id = len(text[:end].rstrip(_ID_CHARS))
    if before_id == end or before_id < 2 or text[before_id - 1] != "^":
        return -1
    return before_id - 2 if text[before_id - 2].isspace() else -1


def strip_markup(text: str) -> str:
    """The text as it reads: links show their labels, marks and comments are gone."""
    scan = _Scan(text)
    block_id = _block_id_start(text)
    shown: list[str] = []
    pos = 0
    while pos < len(text):
        found = _START.search(text, pos)
        start = found.start() if found else len(text)
        if pos <= block_id < start:
            shown.append(text[pos:block_id])
            break
        shown.append(text[pos:start])
        if found is None:
            break
        token = found.group()
        if token == "<!--":
            end = scan.comment(start)
            if end is None:
                shown.append("<")
                pos = start + 1
            else:
                pos = end
        elif token[-1] == "[":
            pos = _brackets(scan, start, found.end(), shown)
        else:  # a run of emphasis or code marks
            pos = found.end()
    return "".join(shown).strip()


def _brackets(scan: _Scan, start: int, run_end: int, shown: list[str]) -> int:
    """Read a run of `[` (after an optional `!`) from `start`; returns where reading resumes.

    Inside the run only its last two `[` can open a `[[wikilink]]` (an earlier one sees a `[`
    where the link text would start), and every `[` of it opens the same `[label](...)` if any (a
    label runs to the next `]`, over the other `[`), so the run is read once, not once per `[`.
    """
    text = scan.text
    first = start + 1 if text[start] == "!" else start
    last_pair = run_end - 2  # the only place a wikilink can open
    if last_pair == first:
        link = scan.wikilink(first)
        if link is not None:
            shown.append(link[1])
            return link[0]
    inline = scan.inline_link(first + 1)
    if inline is not None:
        shown.append(inline[1])
        return inline[0]
    if last_pair > first:
        shown.append(text[start:last_pair])
        link = scan.wikilink(last_pair)
        if link is not None:
            shown.append(link[1])
            return link[0]
        shown.append(text[last_pair:run_end])
        return run_end
    shown.append(text[start:run_end])
    return run_end


def without_trailing_tags(text: str) -> str:
    """The text without the `#tags` (and spaces) that end it, as in `... done. #todo #work`."""
    if "#" not in text:
        return text
    found = _REVERSED_TRAILING_TAGS.match(text[::-1])
    return text[: len(text) - found.end()] if found else text
