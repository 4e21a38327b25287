"""Background embedding steps aside while someone waits for an answer (sync/activity.py)."""

from __future__ import annotations

import threading
import time

from memlsp.sync.activity import Activity


def test_quiet_returns_at_once_when_nothing_ran() -> None:
    assert Activity().wait_for_quiet(quiet=0.05, longest=5) < 0.5


def test_waits_while_work_runs_and_a_little_after() -> None:
    activity = Activity()
    started, release = threading.Event(), threading.Event()

    def request() -> None:
        with activity.busy():
            started.set()
            release.wait(5)

    worker = threading.Thread(target=request)
    worker.start()
    assert started.wait(5)
    threading.Timer(0.3, release.set).start()
    begun = time.monotonic()
    waited = activity.wait_for_quiet(quiet=0.1, longest=5)
    ended = time.monotonic() - begun
    worker.join(5)
    assert 0.35 <= ended < 3 and waited >= 0.35  # the request's 0.3 s, then 0.1 s of quiet


def test_work_that_never_ends_does_not_starve_embedding() -> None:
    activity = Activity()
    with activity.busy():
        waited = activity.wait_for_quiet(quiet=0.05, longest=0.3)
    assert 0.3 <= waited < 2
