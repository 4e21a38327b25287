"""Fuzzy matching of what was typed against names: the letters in order, not necessarily together.

Both sides are compared folded: Unicode NFKC (full-width letters and digits become ASCII ones) and
case-insensitive, so `ｍｅｍ` finds `Memory` and `向量` finds `向量检索`. A match falls in one of four
tiers, best first: the name starts with what was typed; it holds it where a word starts; it holds
it anywhere; it holds its letters in order. Tiers, not a finer score, because they are computed
with a few string operations per name: 10,000 notes are matched in milliseconds.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import cached_property, lru_cache

PREFIX, WORD, INSIDE, SCATTERED = range(4)
# Where a word starts: after one of these, or where the script changes (`AI向量`).
_SEPARATORS = frozenset(" -_./\\|()[]{}:;,'\"·、，。：（）【】《》")


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def tier(query: str, folded: str) -> int | None:
    """The tier of a folded name for a folded query; None when the name does not match."""
    if folded.startswith(query):
        return PREFIX
    at = folded.find(query)
    if at == -1:
        return SCATTERED if _scattered(query).search(folded) else None
    while at != -1:
        if _word_start(folded, at):
            return WORD
        at = folded.find(query, at + 1)
    return INSIDE


def _word_start(folded: str, position: int) -> bool:
    if position == 0:
        return True
    before = folded[position - 1]
    return before in _SEPARATORS or before.isascii() != folded[position].isascii()


@lru_cache(maxsize=256)
def _scattered(query: str) -> re.Pattern[str]:
    """The query's letters in order. Before each letter, anything but that letter or a newline,
    taken possessively: the first place each letter can go is the only one tried, so a match costs
    time linear in the name (lazy gaps backtracked through every way to place the letters: a
    name like `hahaha…` against `hahahahax` took seconds). The newline keeps a match inside one
    name of many joined by newlines."""
    first, rest = query[:1], query[1:]
    gaps = (f"[^\n{re.escape(letter)}]*+{re.escape(letter)}" for letter in rest)
    return re.compile(re.escape(first) + "".join(gaps))


class Names:
    """Folded names searched together: one regular-expression pass over all of them finds the
    few that can match, before any is looked at one by one."""

    def __init__(self, names: Sequence[str]) -> None:
        self.folded = [fold(name).replace("\n", " ") for name in names]
        self._joined = "\n".join(self.folded)
        starts, offset = [], 0
        for name in self.folded:
            starts.append(offset)
            offset += len(name) + 1
        self._starts = starts

    @cached_property
    def _sorted(self) -> list[tuple[str, int]]:
        """The folded names in order, for `best`: only a vault's names are asked that."""
        return sorted((name, index) for index, name in enumerate(self.folded))

    def best(self, query: str, enough: int) -> tuple[list[tuple[int, int]], bool]:
        """Like `matches`, but when more than `enough` names start with the query (one or two
        letters typed), only those, and True: no other tier can come before them."""
        first = bisect_left(self._sorted, (query, -1))
        prefixed = []
        for name, index in self._sorted[first:]:
            if not name.startswith(query):
                break
            prefixed.append((PREFIX, index))
        if len(prefixed) > enough:
            return prefixed, True
        return self.matches(query), False

    def matches(self, query: str) -> list[tuple[int, int]]:
        """(tier, index) of every name the folded query matches, in index order."""
        if not query:
            return [(PREFIX, index) for index in range(len(self.folded))]
        found: list[tuple[int, int]] = []
        last = -1
        for match in _scattered(query).finditer(self._joined):
            index = bisect_right(self._starts, match.start()) - 1
            if index == last:
                continue
            last = index
            level = tier(query, self.folded[index])
            if level is not None:
                found.append((level, index))
        return found
