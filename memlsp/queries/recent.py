"""The notes changed lately (`memlsp recent`): chosen from when each last changed and a given now,
so that the choice is tested with any clock."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

NS_PER_DAY = 86_400 * 1_000_000_000


@dataclass(frozen=True, slots=True)
class Change:
    path: str
    modified_ns: int  # when it last changed; now for an unsaved buffer
    unsaved: bool = False  # an editor's buffer holds text its file does not


@dataclass(frozen=True, slots=True)
class RecentChanges:
    days: float
    since_ns: int  # the window's start: now less `days`, never before 1970
    changes: tuple[Change, ...]  # newest first, ties by path
    more: int  # changed in the window, beyond the limit


def recent_changes(
    modified: Iterable[tuple[str, int | None]], *, now_ns: int, days: float, limit: int
) -> RecentChanges:
    """The notes changed in the `days` before `now_ns`, newest first, at most `limit`: each given
    as (path, when it last changed in ns, or None for an unsaved buffer, which changes now)."""
    since = max(now_ns - round(days * NS_PER_DAY), 0)
    window = newest_first(
        ((path, when) for path, when in modified if when is None or when >= since), now_ns=now_ns
    )
    return RecentChanges(days, since, tuple(window[:limit]), max(len(window) - limit, 0))


def newest_first(modified: Iterable[tuple[str, int | None]], *, now_ns: int) -> list[Change]:
    """Notes given as (path, when it last changed in ns, or None for an unsaved buffer, which
    changes now), newest first, ties by path."""
    changes = [
        Change(path, now_ns, True) if when is None else Change(path, when)
        for path, when in modified
    ]
    changes.sort(key=lambda change: (-change.modified_ns, change.path))
    return changes
