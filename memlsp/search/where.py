"""Property filters (`--where type=Movie`): their grammar, and whether a note's properties hold
them. Pure: the vault's link resolution comes in as a function.

A filter is `KEY=VALUE`, `KEY!=VALUE`, `KEY` alone (the property is present), or `KEY<VALUE`,
`KEY<=VALUE`, `KEY>VALUE`, `KEY>=VALUE` with a number or a date as VALUE. Keys and values are
compared folded (NFC, case-insensitive) as the note's properties were kept (parse/properties.py).
A list property holds `=` when any element does, and `!=` when none does (a note without the
property holds every `!=`). An element written as a link (`[[folder/Books|label]]`) equals
`Books`, `folder/Books`, `[[Books]]` and the path of the note it resolves to. `<`, `>` and the
like compare numbers as numbers and dates (and dates with a time) by day; an element that is
neither never holds them.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memlsp.model import quoted
from memlsp.parse.properties import property_text
from memlsp.text import basename, folded

FORMS = (
    "KEY=VALUE, KEY!=VALUE, KEY (the property is present), or KEY<VALUE, KEY<=VALUE, KEY>VALUE, "
    "KEY>=VALUE with a number or a date"
)
_OPERATOR = re.compile(r"!=|<=|>=|=|<|>")
_ORDERS = ("<", "<=", ">", ">=")
_DATE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[ tT]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[zZ]|[+-]\d{2}:?\d{2})?)?"
)
_WIKILINK = re.compile(r"\[\[([^\[\]|#^]*)(?:[#^][^\[\]|]*)?(?:\|[^\[\]]*)?\]\]")
_QUOTES = ('"', "'")

# A note's path from a link's target as written in `source`'s frontmatter; None: it resolves
# to no note.
Resolver = Callable[[str, str], str | None]


@dataclass(frozen=True, slots=True)
class Condition:
    """One filter: `key` and `value` folded, `op` one of = != < <= > >=, or "" for a property
    that is present. `number` / `day`: the value as a number or a date, for the comparisons."""

    key: str
    op: str
    value: str = ""
    number: float | None = None
    day: dt.date | None = None

    @property
    def text(self) -> str:
        """The filter as written once checked, which `parse_condition` reads back the same."""
        return f"{self.key}{self.op}{self.value}"


def parse_condition(text: str) -> Condition:
    """Raises ValueError naming the forms a filter takes."""
    found = _OPERATOR.search(text)
    key = folded((text[: found.start()] if found else text).strip())
    if not key:
        raise _malformed(text)
    if found is None:
        return Condition(key, "")
    value = text[found.end() :].strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in _QUOTES:
        value = value[1:-1].strip()  # `state="想看"`: the quotes are the user's, not the value's
    if not value or _OPERATOR.match(value):
        raise _malformed(text)
    op = found.group()
    condition = Condition(key, op, property_text(value), _number(value), _day(value))
    if op in _ORDERS and condition.number is None and condition.day is None:
        raise ValueError(
            f"'where' compares with {op} a number or a date like 2024-03-01, not {quoted(value)} "
            f"(in {quoted(text)})"
        )
    return condition


def conditions_of(value: Any) -> tuple[Condition, ...]:
    """Filters as a surface gives them: a string, a list of strings, or an object whose values
    are `VALUE` (for KEY=VALUE), an operator and a value (`">=4"`, `"!=done"`), a number or a
    boolean (KEY=it), or null (KEY is present). Raises ValueError naming what is wrong."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (parse_condition(value),)
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(dict.fromkeys(parse_condition(item) for item in value))
    if isinstance(value, Mapping):
        return tuple(dict.fromkeys(_from_pair(str(key), item) for key, item in value.items()))
    raise ValueError(
        f"'where' must be a list of filters ({FORMS}) or an object of KEY: VALUE, "
        f"not {quoted(value)}"
    )


def _from_pair(key: str, value: Any) -> Condition:
    if _OPERATOR.search(key) or not key.strip():
        raise ValueError(f"'where' keys are property names, not {quoted(key)}")
    if value is None:
        return parse_condition(key)
    if isinstance(value, bool):
        return parse_condition(f"{key}={'true' if value else 'false'}")
    if isinstance(value, int | float) and math.isfinite(value):
        return parse_condition(f"{key}={value}")
    if isinstance(value, str):
        return parse_condition(key + (value if _OPERATOR.match(value) else "=" + value))
    raise ValueError(
        f"'where' values are text, a number, true/false or null, not {quoted(value)} "
        f"(for {quoted(key)})"
    )


def _malformed(text: str) -> ValueError:
    return ValueError(f"'where' takes {FORMS}; not {quoted(text)}")


def _number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _day(text: str) -> dt.date | None:
    if not _DATE.fullmatch(text):
        return None
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


def holds(
    condition: Condition, values: tuple[str, ...] | None, path: str, resolve: Resolver
) -> bool:
    """Whether a note holds the condition, given its values of the condition's key (None: it has
    no such property)."""
    if condition.op == "":
        return values is not None
    if condition.op in ("=", "!="):
        equal = values is not None and _any_equal(condition, values, path, resolve)
        return equal if condition.op == "=" else not equal
    return values is not None and any(_ordered(condition, value) for value in values)


def _any_equal(condition: Condition, values: tuple[str, ...], path: str, resolve: Resolver) -> bool:
    # The value's kept text is cut at VALUE_CHARS, and so is the condition's.
    wanted = _link_target(condition.value) or condition.value
    if condition.value in values or wanted in values:
        return True
    return any(_equal(condition.number, wanted, value, path, resolve) for value in values)


def _equal(number: float | None, wanted: str, value: str, path: str, resolve: Resolver) -> bool:
    """Equal as numbers, or as a link and a name (`wanted` is a name, or a link's target)."""
    if number is not None and _number(value) == number:
        return True
    target = _link_target(value) if value.startswith("[[") else None
    if target is None:
        return False
    if wanted in (target, basename(target)):
        return True
    resolved = resolve(target, path)
    if resolved is None:
        return False
    note = folded(resolved)
    bare = note.removesuffix(".md")
    return wanted in (note, bare, basename(bare))


def _link_target(value: str) -> str | None:
    """`[[folder/Books#Part|label]]` -> `folder/Books`; None when `value` is not a wikilink."""
    found = _WIKILINK.fullmatch(value)
    return found.group(1).strip() if found and found.group(1).strip() else None


def _ordered(condition: Condition, value: str) -> bool:
    sign = _sign(condition, value)
    if sign is None:
        return False
    return {"<": sign < 0, "<=": sign <= 0, ">": sign > 0, ">=": sign >= 0}[condition.op]


def _sign(condition: Condition, value: str) -> int | None:
    """-1, 0 or 1 as `value` is below, at or above the condition's number or date; None when it
    is not one of those."""
    if condition.number is not None and (number := _number(value)) is not None:
        return (number > condition.number) - (number < condition.number)
    if condition.day is not None and (day := _day(value)) is not None:
        return (day > condition.day) - (day < condition.day)
    return None
