"""What a person is waiting for right now, so that background embedding steps aside.

Requests and the indexing of edits mark themselves `busy()`; the embedding thread calls
`wait_for_quiet()` between small batches and so never competes with them for the two cores and
the interpreter's lock for longer than one batch. Embedding goes on regardless after `longest`
seconds, so a client that never stops asking cannot starve it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

QUIET = 0.05  # seconds without work someone waits for before embedding goes on
LONGEST = 2.0  # the longest embedding waits for quiet


class Activity:
    def __init__(self) -> None:
        self._busy = 0
        self._ended = 0.0  # when the last piece of work ended (monotonic)
        self._changed = threading.Condition()

    @contextmanager
    def busy(self) -> Iterator[None]:
        with self._changed:
            self._busy += 1
        try:
            yield
        finally:
            with self._changed:
                self._busy -= 1
                self._ended = time.monotonic()
                self._changed.notify_all()

    def wait_for_quiet(self, quiet: float = QUIET, longest: float = LONGEST) -> float:
        """Return once nothing has been busy for `quiet` seconds, or after `longest`; the
        seconds waited."""
        started = time.monotonic()
        deadline = started + longest
        with self._changed:
            while True:
                now = time.monotonic()
                if now >= deadline:
                    break
                if self._busy:
                    self._changed.wait(deadline - now)
                    continue
                calm = now - self._ended
                if calm >= quiet:
                    break
                self._changed.wait(min(quiet - calm, deadline - now))
        return time.monotonic() - started
