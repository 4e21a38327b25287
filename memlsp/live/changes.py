"""Waiting for a value that one thread changes, without a lock."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Changes:
    """Wakes every thread waiting for a value that one thread changes. No lock: a waiter takes
    the event before it looks at the value, and the changer swaps in a new event after changing
    it, so a change between the look and the wait still sets the event waited on."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def tell(self) -> None:
        event, self._event = self._event, threading.Event()
        event.set()

    def wait(self, check: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            event = self._event
            if check():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            event.wait(left)
