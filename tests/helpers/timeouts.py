"""A time limit for each `e2e` test, so that a hung server, CLI or editor fails its test instead
of hanging the run (the limits themselves are set in tests/conftest.py).

pytest-timeout's signal method would raise inside whatever the main thread runs, an asyncio
event loop included, and leave the language-server fixtures unable to shut their servers down.
So the limit runs on a thread: when a test overruns, every process this test run started is
ended (a blocked `communicate`, `wait` or read returns and the test fails on its own, marked as
timed out); if the test is still stuck a grace period later, pytest-timeout's thread method
prints every thread's stack and ends the run.

The run's processes are found two ways, because `memlsp serve` detaches from the CLI that starts
it: the children of this process and theirs, and every process whose environment carries
`RUN_MARK` with this process's id (set before any test starts, inherited by every child).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_timeout  # type: ignore[import-untyped]

RUN_MARK = "MEMLSP_TEST_RUN"
GRACE_SECONDS = 30.0  # after the processes are ended, for the test to fail and tear down
PROC = Path("/proc")


def mark_this_run() -> None:
    """Mark the environment that every process started from now on inherits."""
    os.environ[RUN_MARK] = str(os.getpid())


def _parent(pid: int) -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        stat = (PROC / str(pid) / "stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[1])  # the name in parentheses may hold spaces
    return None


def _marked(pid: int, mark: bytes) -> bool:
    with contextlib.suppress(OSError):
        return mark in (PROC / str(pid) / "environ").read_bytes().split(b"\0")
    return False


def run_processes() -> set[int]:
    """Every process this test run started that is still there (Linux's /proc; none elsewhere)."""
    me = os.getpid()
    pids = [int(entry.name) for entry in PROC.glob("[0-9]*")] if PROC.is_dir() else []
    parents = {pid: _parent(pid) for pid in pids}
    mark = f"{RUN_MARK}={me}".encode()
    found = {pid for pid in pids if pid != me and _marked(pid, mark)}
    grew = True
    while grew:  # the descendants of this process and of every marked one
        more = {pid for pid, parent in parents.items() if parent in found | {me}} - found
        found |= more
        grew = bool(more)
    return found


def end_processes(pids: set[int]) -> None:
    """SIGTERM, two seconds to exit, then SIGKILL for what is left."""
    for number in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, number)
        deadline = time.monotonic() + 2.0
        while number == signal.SIGTERM and time.monotonic() < deadline:
            pids = {pid for pid in pids if (PROC / str(pid)).exists() and not _zombie(pid)}
            if not pids:
                return
            time.sleep(0.05)


def _zombie(pid: int) -> bool:
    with contextlib.suppress(OSError, IndexError):
        return (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    return True


class Limit:
    """One test's time limit: a timer thread, and whether it expired."""

    def __init__(self, item: pytest.Item, settings: Any) -> None:
        self.item = item
        self.settings = settings  # pytest_timeout.Settings: the seconds, and its own report's
        self.expired = threading.Event()
        self.reported = False  # whether a report of the test says it ran out of time
        self._over = threading.Event()
        self._timer = threading.Timer(settings.timeout, self._expire)
        self._timer.name = f"time limit of {item.nodeid}"
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        if self._over.is_set():
            return
        self.expired.set()
        end_processes(run_processes())
        if not self._over.wait(GRACE_SECONDS):
            pytest_timeout.timeout_timer(self.item, self.settings)  # prints the stacks, exits

    def cancel(self) -> None:
        """The test is over: the timer stops, or its grace period does."""
        self._over.set()
        self._timer.cancel()


LIMITS = pytest.StashKey[Limit]()
