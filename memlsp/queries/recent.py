"""The notes changed lately (`memlsp recent`), or recalled lately (`--recalled`): chosen from when
each last changed (or was recalled) and a given now, so that the choice is tested with any
clock."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from memlsp.model import NEVER, Recall

NS_PER_DAY = 86_400 * 1_000_000_000


@dataclass(frozen=True, slots=True)
class Change:
    path: str
    modified_ns: int  # when it last changed; now for an unsaved buffer
    unsaved: bool = False  # an editor's buffer holds text its file does not
    recall: Recall = NEVER  # how often searches showed it (index/recall.py)


@dataclass(frozen=True, slots=True)
class RecentChanges:
    days: float
    since_ns: int  # the window's start: now less `days`, never before 1970
    changes: tuple[Change, ...]  # newest first, ties by path (`by` "recalled": most recalled)
    more: int  # in the window, beyond the limit
    by: str = "changed"  # or "recalled"


def recent_changes(
    modified: Iterable[tuple[str, int | None]], *, now_ns: int, days: float, limit: int
) -> RecentChanges:
    """The notes changed in the `days` before `now_ns`, newest first, at most `limit`: each given
    as (path, when it last changed in ns, or None for an unsaved buffer, which changes now)."""
    since = window_start(now_ns, days)
    window = newest_first(
        ((path, when) for path, when in modified if when is None or when >= since), now_ns=now_ns
    )
    return RecentChanges(days, since, tuple(window[:limit]), max(len(window) - limit, 0))


def newest_first(modified: Iterable[tuple[str, int | None]], *, now_ns: int) -> list[Change]:
    """Notes given as (path, when it last changed in ns, or None for an unsaved buffer, which
    changes now), newest first, ties by path."""
    changes = [_change(path, when, now_ns) for path, when in modified]
    changes.sort(key=lambda change: (-change.modified_ns, change.path))
    return changes


def recalled_notes(
    recalls: Iterable[tuple[str, int | None, Recall]], *, now_ns: int, days: float, limit: int
) -> RecentChanges:
    """The notes recalled in the `days` before `now_ns`, most often first (then the latest
    recalled, then by path), at most `limit`: each given as (path, when it last changed as for
    `recent_changes`, its recall)."""
    since = window_start(now_ns, days)
    window = [
        replace(_change(path, when, now_ns), recall=recall)
        for path, when, recall in recalls
        if recall.recall_count and (recall.last_recalled_at or 0) >= since
    ]
    window.sort(
        key=lambda change: (
            -change.recall.recall_count,
            -(change.recall.last_recalled_at or 0),
            change.path,
        )
    )
    return RecentChanges(
        days, since, tuple(window[:limit]), max(len(window) - limit, 0), "recalled"
    )


def window_start(now_ns: int, days: float) -> int:
    """The start of the `days` before `now_ns`, never before 1970."""
    return max(now_ns - round(days * NS_PER_DAY), 0)


def _change(path: str, when: int | None, now_ns: int) -> Change:
    return Change(path, now_ns, True) if when is None else Change(path, when)
