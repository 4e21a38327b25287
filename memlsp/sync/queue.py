"""One queue of pending changes, coalesced per path, handed to the single writer after a quiet time.

Every source of change (editor buffers, the file watcher, the client's file events) puts here. A new
change to a path replaces the pending one and restarts its quiet window, so a burst of keystrokes or
a `git pull` becomes one update per note.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BufferText:
    """The editor's current text of an open note; `disk_changed` when its file changed on disk
    too, so that a rename or delete behind an open tab is still looked at after the text."""

    text: str
    disk_changed: bool = False


@dataclass(frozen=True, slots=True)
class BufferClosed:
    """The editor closed the note: the disk is the truth again."""


@dataclass(frozen=True, slots=True)
class DiskChanged:
    """Something happened to the file on disk (created, modified, deleted, renamed)."""


@dataclass(frozen=True, slots=True)
class Rescan:
    """Compare the whole vault with the index (a folder moved, or the client asked)."""


@dataclass(frozen=True, slots=True)
class Caught:
    """No change: a mark that everything queued before it has been applied once it is taken
    (`ChangeQueue.put_last`), numbered in the order the marks were put."""

    number: int


Change = BufferText | BufferClosed | DiskChanged | Rescan | Caught
RESCAN = "\0rescan"  # the key a Rescan is queued under


class ChangeQueue:
    def __init__(self) -> None:
        self._pending: dict[str, tuple[Change, float]] = {}  # path -> (change, due time)
        self._condition = threading.Condition()
        self._closed = False
        self._marks = 0  # `Caught` marks put

    def put(self, path: str, change: Change, quiet: float = 0.0) -> None:
        with self._condition:
            before, due = self._pending.get(path, (None, 0.0))
            if isinstance(change, DiskChanged) and isinstance(before, BufferText | BufferClosed):
                # A disk event never replaces pending editor text; it is looked at after it.
                if isinstance(before, BufferText):
                    self._pending[path] = (BufferText(before.text, True), due)
                return
            if isinstance(change, BufferText) and (
                isinstance(before, DiskChanged)
                or (isinstance(before, BufferText) and before.disk_changed)
            ):
                change = BufferText(change.text, True)
            self._pending[path] = (change, time.monotonic() + quiet)
            self._condition.notify()

    def put_mark(self, path: str) -> int:
        """Put a `Caught` mark under `path`, to be taken no sooner than every change waiting
        now (with them, or after them); its number, one more than the mark put before."""
        with self._condition:
            self._marks += 1
            due = max((at for _, at in self._pending.values()), default=0.0)
            self._pending[path] = (Caught(self._marks), max(due, time.monotonic()))
            self._condition.notify()
            return self._marks

    def take(self, timeout: float | None = None) -> dict[str, Change]:
        """Wait for changes whose quiet time has passed; {} on timeout or once closed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._condition:
            while not self._closed:
                now = time.monotonic()
                due = {path: c for path, (c, at) in self._pending.items() if at <= now}
                if due:
                    for path in due:
                        del self._pending[path]
                    return due
                waits = [at - now for _, at in self._pending.values()]
                if deadline is not None:
                    waits.append(deadline - now)
                    if deadline <= now:
                        return {}
                self._condition.wait(min(waits) if waits else None)
            return {}

    def close(self) -> None:
        with self._condition:
            self._closed = True
            self._condition.notify_all()

    def disk_changes(self) -> list[str]:
        """The paths whose change on disk is waiting to be applied (a status lists them)."""
        with self._condition:
            found = [p for p, (c, _) in self._pending.items() if isinstance(c, DiskChanged)]
        return sorted(found)

    def __len__(self) -> int:
        with self._condition:
            return len(self._pending)
