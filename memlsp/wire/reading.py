"""The JSON of reading: a note, a section or some lines of it (`memlsp read --json`), and the
notes changed lately (`memlsp recent --json`); with how a parsed frontmatter value and a time are
written in JSON."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from typing import Literal, TypedDict

from memlsp.model import Heading, Note, Recall, ResolvedLink
from memlsp.queries.reading import Passage
from memlsp.queries.recent import RecentChanges

# `LinkStatus` of memlsp/model.py.
LinkState = Literal["resolved", "ambiguous", "unresolved", "outside"]


class ReadLinkJson(TypedDict):
    """A link written in the lines `memlsp read` gives, and where it goes."""

    line: int  # 1-based
    target: str  # as written ("" for a link inside the note)
    anchor: str | None  # heading path (`A#B`) or ^block
    status: LinkState
    paths: list[str]  # where it goes (several: notes sharing an alias); [] when nowhere


class ReadHeadingJson(TypedDict):
    level: int
    text: str  # as written
    line: int  # 1-based


class ReadJson(TypedDict):
    """`memlsp read --json`: a note, one section of it or a range of its lines, as it is now."""

    path: str
    title: str
    heading: str | None  # the section's heading as written, when one was asked for
    start_line: int  # 1-based, inclusive: the lines in `text`
    end_line: int
    line_count: int  # the whole note's
    frontmatter: dict[str, object]  # parsed; dates as ISO strings; {} when none or invalid
    text: str  # exactly the lines, joined by "\n"
    links: list[ReadLinkJson]  # written in these lines, in order
    headings: list[ReadHeadingJson]  # all of the note's, to pick a section by
    cut: str | None  # which lines the token budget left out, and how to read on
    hash: str  # of the note's whole text as read (an open buffer's), for `write`'s expected_hash


class RecentNoteJson(TypedDict):
    path: str
    title: str
    modified: str  # ISO-8601 UTC, to the second, with "Z"
    unsaved: bool  # an editor's buffer holds text its file does not: changed now
    description: str  # may be ""
    recall_count: int  # how many searches showed it (index/recall.py)
    last_recalled_at: str | None  # ISO-8601 UTC, to the second, with "Z"; None: never


class RecentJson(TypedDict):
    """`memlsp recent --json`: the notes changed lately, newest first; with `--recalled` (`by`
    "recalled") the notes recalled in the window, most often first."""

    days: float
    since: str  # the window's start, ISO-8601 UTC, to the second, with "Z"
    notes: list[RecentNoteJson]
    more: int  # in the window, beyond the limit
    by: str  # "changed" or "recalled"


# YAML nests as deep as a document likes; JSON written by Python recursion does not.
FRONTMATTER_DEPTH = 64
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_FIRST_SECOND = -62_135_596_800  # 0001-01-01T00:00:00Z
_LAST_SECOND = 253_402_300_799  # 9999-12-31T23:59:59Z


def read_link_json(item: ResolvedLink) -> ReadLinkJson:
    link = item.link
    return {
        "line": link.span.line + 1,
        "target": link.target,
        "anchor": link.anchor or None,
        "status": item.resolution.status.value,
        "paths": list(item.resolution.targets),
    }


def read_heading_json(heading: Heading) -> ReadHeadingJson:
    return {"level": heading.level, "text": heading.text, "line": heading.line + 1}


def read_json(passage: Passage) -> ReadJson:
    frontmatter = json_value(dict(passage.frontmatter))
    return {
        "path": passage.path,
        "title": passage.title,
        "heading": None if passage.heading is None else passage.heading.text,
        "start_line": passage.start_line,
        "end_line": passage.end_line,
        "line_count": passage.line_count,
        "frontmatter": frontmatter if isinstance(frontmatter, dict) else {},
        "text": passage.text,
        "links": [read_link_json(item) for item in passage.links],
        "headings": [read_heading_json(heading) for heading in passage.headings],
        "cut": passage.cut,
        "hash": passage.hash,
    }


def json_value(value: object, depth: int = 0) -> object:
    """A parsed YAML value as JSON writes it: dates as ISO strings, mappings with string keys,
    sets as lists, and what JSON has no word for (bytes, NaN) as a string."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dt.date):  # a datetime too
        return value.isoformat()
    if depth >= FRONTMATTER_DEPTH and isinstance(value, Mapping | list | tuple | set | frozenset):
        return "(nested too deep)"
    if isinstance(value, Mapping):
        return {str(key): json_value(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(item, depth + 1) for item in value]
    if isinstance(value, set | frozenset):
        return [json_value(item, depth + 1) for item in sorted(value, key=str)]
    return str(value)


def utc_text(ns: int) -> str:
    """A time in ns since 1970 as ISO-8601 UTC to the second (`2026-12-03T21:40:00Z`); a time
    outside years 1-9999 (a file's mtime can say anything) as the nearest one inside."""
    seconds = min(max(ns // 1_000_000_000, _FIRST_SECOND), _LAST_SECOND)
    moment = _EPOCH + dt.timedelta(seconds=seconds)
    return moment.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def recalled_at(recall: Recall) -> str | None:
    """When a note was last recalled, as `utc_text`; None when never."""
    return None if recall.last_recalled_at is None else utc_text(recall.last_recalled_at)


def recent_json(recent: RecentChanges, notes: Mapping[str, Note]) -> RecentJson:
    return {
        "days": float(recent.days),
        "since": utc_text(recent.since_ns),
        "notes": [
            {
                "path": change.path,
                "title": notes[change.path].title,
                "modified": utc_text(change.modified_ns),
                "unsaved": change.unsaved,
                "description": notes[change.path].description,
                "recall_count": change.recall.recall_count,
                "last_recalled_at": recalled_at(change.recall),
            }
            for change in recent.changes
        ],
        "more": recent.more,
        "by": recent.by,
    }
