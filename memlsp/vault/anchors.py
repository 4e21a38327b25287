"""Find the heading or block a link's anchor names inside its target note."""

from __future__ import annotations

import re

from memlsp.model import Block, Heading, Note
from memlsp.parse.markdown import slugify, strip_markup
from memlsp.vault.names import name_key

_NON_WORD = re.compile(r"[\W_]+")


def _loose(text: str) -> str:
    """Obsidian writes `[[n#a: b]]` for heading "a: b" as `[[n#a b]]`: compare words only."""
    return _NON_WORD.sub(" ", name_key(text)).strip()


def heading_matches(heading: Heading, wanted: str) -> bool:
    text = strip_markup(heading.text)
    return (
        name_key(text) == name_key(wanted)
        or heading.slug == slugify(wanted)
        or _loose(text) == _loose(wanted)
    )


def find_heading(note: Note, path: tuple[str, ...]) -> Heading | None:
    """`("A", "B")` is heading B nested under heading A (anywhere below it, in A's section)."""
    found = heading_path(note, path)
    return found[-1] if found else None


def heading_path(note: Note, path: tuple[str, ...]) -> tuple[Heading, ...] | None:
    """The heading each part of an anchor path names, or None if one names nothing."""
    return heading_path_in(note.headings, path)


def heading_path_in(
    headings: tuple[Heading, ...], path: tuple[str, ...]
) -> tuple[Heading, ...] | None:
    """`heading_path` among a note's headings, in their order."""
    candidates = list(headings)
    found: list[Heading] = []
    for wanted in path:
        match = next((h for h in candidates if heading_matches(h, wanted)), None)
        if match is None:
            return None
        found.append(match)
        after = candidates[candidates.index(match) + 1 :]
        section_end = next((i for i, h in enumerate(after) if h.level <= match.level), len(after))
        candidates = after[:section_end]
    return tuple(found)


def find_block(note: Note, block_id: str) -> Block | None:
    wanted = block_id.casefold()
    return next((b for b in note.blocks if b.id.casefold() == wanted), None)
