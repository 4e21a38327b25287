"""What one note may hold, and the one problem line of a note that holds more.

The largest notes of the real vaults we parse have about 200 links, 80 headings, 40 block ids
and 10 tags. These limits are 25 to 200 times that (a contents note linking every note of a
10,000-note vault still fits) and keep a hostile 10 MB note, which could hold a million links, to
a few megabytes of parsed values. Past a limit the rest is dropped, not the note.
"""

from __future__ import annotations

from collections.abc import Sized
from dataclasses import dataclass, field
from typing import TypeVar

MAX_LINKS = 10_000
MAX_HEADINGS = 5_000
MAX_BLOCKS = 5_000
MAX_TAGS = 2_000
MAX_ALIASES = 1_000
# The index stores a note's aliases with every chunk of the note, so their text is kept short.
MAX_ALIAS_TEXT = 10_000
# A heading or a name longer than this is cut: a heading is repeated in the breadcrumb of every
# chunk of its section, so a heading line of megabytes would be stored once per chunk.
MAX_NAME_CHARS = 1_000

LINKS = f"{MAX_LINKS:,} links"
HEADINGS = f"{MAX_HEADINGS:,} headings"
TAGS = f"{MAX_TAGS:,} tags"
BLOCKS = f"{MAX_BLOCKS:,} block ids"
ALIASES = f"{MAX_ALIASES:,} aliases"
ALIAS_TEXT = f"{MAX_ALIAS_TEXT:,} characters of aliases"
HEADING_CHARS = f"{MAX_NAME_CHARS:,} characters in a heading"
TITLE_CHARS = f"{MAX_NAME_CHARS:,} characters in the title"
ALIAS_CHARS = f"{MAX_NAME_CHARS:,} characters in an alias"
_ORDER = (
    LINKS,
    HEADINGS,
    TAGS,
    BLOCKS,
    ALIASES,
    ALIAS_TEXT,
    HEADING_CHARS,
    TITLE_CHARS,
    ALIAS_CHARS,
)

_Item = TypeVar("_Item")


@dataclass(slots=True)
class NoteLimits:
    """Which limits one note went past."""

    passed: set[str] = field(default_factory=set)

    def room(self, what: str, left: int) -> int:
        """How many to look for: one more than there is room for, so that finding it says the
        limit was passed; none once it was."""
        return 0 if what in self.passed else left + 1

    def keep(self, found: Sized, room: int, what: str) -> int:
        """How many of `found` fit in `room`; notes the limit when some do not."""
        if len(found) > room:
            self.passed.add(what)
            return max(room, 0)
        return len(found)

    def add(self, items: list[_Item], item: _Item, limit: int, what: str) -> None:
        if len(items) < limit:
            items.append(item)
        else:
            self.passed.add(what)

    def cut(self, text: str, what: str) -> str:
        if len(text) > MAX_NAME_CHARS:
            self.passed.add(what)
            return text[:MAX_NAME_CHARS]
        return text

    def problem(self) -> str | None:
        if not self.passed:
            return None
        passed = ", ".join(what for what in _ORDER if what in self.passed)
        return f"over the limits of one note ({passed}); the rest is not indexed"
