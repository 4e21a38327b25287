"""YAML frontmatter: found by line, parsed safely, never fatal."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

_HANDLER = YAMLHandler()  # safe loading only


@dataclass(frozen=True, slots=True)
class Frontmatter:
    meta: dict[str, Any]
    body_start: int  # 0-based index of the first line after the closing fence
    problem: str | None


def split_frontmatter(lines: list[str]) -> Frontmatter:
    """Frontmatter is a `---` first line up to the next `---` or `...` line."""
    if not lines or lines[0].rstrip() != "---":
        return Frontmatter({}, 0, None)
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return _load("\n".join(lines[1:index]), index + 1)
    return Frontmatter({}, 0, "frontmatter has no closing '---'; indexed as text")


def _load(text: str, body_start: int) -> Frontmatter:
    if not text.strip():
        return Frontmatter({}, body_start, None)
    try:
        meta = _HANDLER.load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at frontmatter line {mark.line + 2}" if mark is not None else ""
        reason = getattr(error, "problem", None) or type(error).__name__
        return Frontmatter({}, body_start, f"invalid YAML frontmatter{where}: {reason}")
    except Exception as error:  # any loader failure must not stop indexing
        return Frontmatter({}, body_start, f"unreadable frontmatter: {error}")
    if meta is None:
        return Frontmatter({}, body_start, None)
    if not isinstance(meta, dict):
        return Frontmatter({}, body_start, "frontmatter is not a mapping; ignored")
    return Frontmatter({str(key): value for key, value in meta.items()}, body_start, None)


def as_strings(value: Any) -> list[str]:
    """A frontmatter value that may be one string, a list, or junk, as a list of strings."""
    if value is None:
        return []
    if isinstance(value, list | tuple | set):
        return [str(item).strip() for item in value if item is not None and str(item).strip()]
    text = str(value).strip()
    return [text] if text else []


def as_date(value: Any) -> str | None:
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        return parse_iso_date(value[:10])
    return None


def parse_iso_date(text: str) -> str | None:
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        return None
