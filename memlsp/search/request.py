"""A search request from loosely typed input (CLI flags, a JSONL line, an LSP request)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from memlsp.model import MAX_LIMIT, SEARCH_MODES, SearchRequest, quoted
from memlsp.parse.frontmatter import parse_iso_date
from memlsp.search.scope import NoteScope
from memlsp.settings.table import FUSION_RULES

# A question or a passage is far shorter: past this the embedders read no further, the keyword
# side only grows its query, and the answer (which repeats its query) outgrows an agent's budget.
MAX_QUERY_CHARACTERS = 2000
# What no note's text holds and no index takes: NUL, and a lone surrogate (no UTF-8 for it).
_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")

FIELDS = (
    "query",
    "limit",
    "min_score",
    "start_date",
    "end_date",
    "expand",
    "budget_tokens",
    "mode",
    "sections",
    "min_strength",
    "fusion",
    "paths",
    "tags",
    "explain",
    "about",
    "where",
    "record",
)
# Notes one search explains: each costs a look at its file and a search of its own sections.
MAX_EXPLAINED = 50


def build_request(values: Mapping[str, Any]) -> SearchRequest:
    """Raises ValueError with a message a user can act on."""
    scope = NoteScope.from_entries(
        _strings(values, "paths"), _strings(values, "tags"), values.get("where")
    )
    dates = (_date(values, "start_date"), _date(values, "end_date"))
    # With a filter and no words the matching notes are listed (Snapshot.search).
    query = _query(values, filtered=not scope.everything or dates != (None, None))
    limit = _number(values, "limit", int, 10)
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"'limit' must be from 1 to {MAX_LIMIT:,}, not {limit}")
    budget = values.get("budget_tokens")
    if budget is not None:
        budget = _number(values, "budget_tokens", int, 0)
        if budget < 1:
            raise ValueError(f"'budget_tokens' must be at least 1, not {budget}")
    expand = values.get("expand", True)
    if not isinstance(expand, bool):
        raise ValueError("'expand' must be true or false")
    sections = values.get("sections", False)
    if not isinstance(sections, bool):
        raise ValueError("'sections' must be true or false")
    record = values.get("record", True)
    if not isinstance(record, bool):
        raise ValueError("'record' must be true or false")
    min_strength = values.get("min_strength")
    if min_strength is not None:
        min_strength = _number(values, "min_strength", float, 0.0)
        if not 0.0 <= min_strength <= 1.0:
            raise ValueError("'min_strength' must be between 0 and 1")
    mode = values.get("mode") or "hybrid"
    if mode not in SEARCH_MODES:
        raise ValueError(f"'mode' must be one of {', '.join(SEARCH_MODES)}, not {quoted(mode)}")
    fusion = values.get("fusion")  # None: the vault's `fusion` setting
    if fusion is not None and fusion not in FUSION_RULES:
        raise ValueError(f"'fusion' must be one of {', '.join(FUSION_RULES)}, not {quoted(fusion)}")
    explain = _explained(values)
    if explain and not query:
        raise ValueError("'explain' needs a query: a list of notes by their filters ranks none")
    return SearchRequest(
        query=query,
        limit=limit,
        min_score=_number(values, "min_score", float, 0.0),
        start_date=dates[0],
        end_date=dates[1],
        expand=expand,
        budget_tokens=budget,
        mode=mode,
        sections=sections,
        min_strength=min_strength,
        fusion=fusion,
        paths=scope.paths,
        tags=scope.tags,
        explain=explain,
        about=_about(values),
        where=tuple(condition.text for condition in scope.where),
        record=record,
    )


def _query(values: Mapping[str, Any], *, filtered: bool) -> str:
    """The query; "" for none when the search is `filtered` (a list of the notes in scope)."""
    query = values.get("query")
    if query is None and filtered:
        query = ""
    if not isinstance(query, str):
        raise ValueError("'query' must be a string")
    _text("query", query)
    if not query.strip():
        if filtered:
            return ""
        raise ValueError("'query' is empty: give words or a question")
    if len(query) > MAX_QUERY_CHARACTERS:
        raise ValueError(
            f"'query' is {len(query):,} characters long; a query is at most "
            f"{MAX_QUERY_CHARACTERS:,}"
        )
    return query


def _text(key: str, value: str) -> None:
    found = _NOT_TEXT.search(value)
    if found:
        what = (
            "a NUL character"
            if found.group() == "\x00"
            else f"a lone surrogate ({found.group()!r})"
        )
        raise ValueError(f"'{key}' holds {what}, which is not text")


def _number(values: Mapping[str, Any], key: str, kind: type, default: Any) -> Any:
    value = values.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"'{key}' must be a number, not {quoted(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"'{key}' must be a finite number, not {value!r}")
    if kind is int and value != int(value):
        raise ValueError(f"'{key}' must be a whole number, not {quoted(value)}")
    return kind(value)


def _strings(values: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """A list of strings, or one string alone; none given is none."""
    value = values.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        _text(key, value)
        return (value,)
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        for item in value:
            _text(key, item)
        return tuple(value)
    raise ValueError(f"'{key}' must be a string or a list of strings, not {quoted(value)}")


def _explained(values: Mapping[str, Any]) -> tuple[str, ...]:
    notes = _strings(values, "explain")
    if len(notes) > MAX_EXPLAINED:
        raise ValueError(f"'explain' names {len(notes):,} notes; at most {MAX_EXPLAINED} at once")
    if any(not note.strip() for note in notes):
        raise ValueError("'explain' has an empty entry: give a note's path or name")
    return tuple(dict.fromkeys(notes))


def _about(values: Mapping[str, Any]) -> tuple[str, ...]:
    notes = _strings(values, "about")
    if any(not note.strip() for note in notes):
        raise ValueError("'about' has an empty entry: give a note's path or name")
    return tuple(dict.fromkeys(notes))


def _date(values: Mapping[str, Any], key: str) -> str | None:
    value = values.get(key)
    if value is None:
        return None
    date = parse_iso_date(value) if isinstance(value, str) else None
    if date is None:
        raise ValueError(f"'{key}' must be a date like 2024-03-01, not {quoted(value)}")
    return date
