"""A note's frontmatter properties as property filters read them (search/where.py), normalised
once when the note is parsed.

Each property is (key, values): the key and every value folded (NFC, case-insensitive,
`text.folded`), values as text: a number as Python writes it (`4`, `7.8`), a boolean as `true` /
`false`, a date as `2024-03-01`, a date and time as `2024-03-01 10:00:00`; a list gives its
elements (nested lists flattened), a null, an empty list or a nested map gives no value (the
property is still present). Only this is kept of the frontmatter: it is all filtering needs.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from typing import Any

from memlsp.text import folded

Properties = tuple[tuple[str, tuple[str, ...]], ...]

# Bounds on what one note keeps, so an odd frontmatter cannot grow the index: real notes have a
# few dozen keys, lists of a few values, and values a filter compares whole are short. A longer
# value is kept cut at VALUE_CHARS; a filter's value is cut the same way before it is compared.
MAX_PROPERTIES = 100
MAX_VALUES = 100
VALUE_CHARS = 200


def note_properties(meta: dict[str, Any]) -> Properties:
    """The properties of a parsed frontmatter, in the order written; keys that fold to the same
    text are one property."""
    kept: dict[str, list[str]] = {}
    for key, value in meta.items():
        name = folded(str(key).strip())
        if not name:
            continue
        if name not in kept:
            if len(kept) >= MAX_PROPERTIES:
                continue
            kept[sys.intern(name)] = []
        values = kept[name]
        for text in _texts(value):
            if len(values) >= MAX_VALUES:
                break
            if text not in values:
                values.append(text)
    return tuple((key, tuple(values)) for key, values in kept.items())


def property_text(value: str) -> str:
    """A value as it is kept and compared: stripped, folded, cut at VALUE_CHARS."""
    return folded(value.strip())[:VALUE_CHARS]


def _texts(value: Any) -> Iterator[str]:
    if value is None or isinstance(value, dict):
        return
    if isinstance(value, list | tuple | set):
        for item in value:
            yield from _texts(item)
        return
    text = _text(value)
    if text:
        # The same few values ("movie", "看过") recur in thousands of notes: kept once.
        yield sys.intern(property_text(text))


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    return str(value)  # a date as 2024-03-01, a date and time as 2024-03-01 10:00:00
