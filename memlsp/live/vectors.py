"""The embedding thread of a live vault: gives chunks vectors, newest notes first, at low
priority, and says how it goes. It may take minutes; indexing never waits for it. Between steps it
unloads the models once nobody used them for `model_idle_seconds`."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memlsp.engine.backfill import Backfill, Step
from memlsp.engine.engine import Engine
from memlsp.index.semantic import VectorStatus
from memlsp.sync.activity import Activity

log = logging.getLogger(__name__)

VECTOR_REPORT = 1.0  # seconds between embedding progress reports
VECTOR_IDLE = 10.0  # with nothing to embed, look again this often (and on every change)
# Past the moment a model is due to be unloaded, so that it is due when looked at again.
UNLOAD_SLACK = 0.05


@dataclass(frozen=True, slots=True)
class VectorsAt:
    """The embedding thread's last step, and the index revision it had planned for (at least)."""

    revision: int
    step: Step


# How embedding goes, for the vault's owner: `done` False while it goes on, True when it caught up
# or cannot go on (`Listener.vectors_progress`).
Report = Callable[[VectorStatus, bool], None]


class EmbeddingLoop:
    """`run` until `stopping` is set; `wake` after each change so new chunks are planned soon."""

    def __init__(
        self,
        root: Path,
        report: Report,
        engine: Callable[[], Engine | None],
        activity: Activity,
        stopping: threading.Event,
        stepped: Callable[[VectorsAt], None],
    ) -> None:
        self._root = root
        self._report = report
        self._engine = engine  # the current one: a new one after taking over from another process
        self._activity = activity
        self._stopping = stopping
        self._stepped = stepped
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"vectors {root.name}", daemon=True)

    def start(self) -> None:
        if not self._thread.is_alive():
            self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def join(self, timeout: float) -> bool:
        """Whether the thread has ended (or never started)."""
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    def _sleep(self, seconds: float) -> None:
        self._wake.wait(seconds)
        self._wake.clear()

    def _run(self) -> None:
        """Connect (again) when the vector side is unavailable, every `vector_retry_seconds`."""
        _lower_priority()
        busy = False
        reported = 0.0
        said = ("", "")  # the last unavailable state reported, so each is told once
        backfill: Backfill | None = None
        while not self._stopping.is_set():
            engine = self._engine()
            if engine is None:
                return  # the vault stopped
            try:
                if not engine.connect_vectors():
                    snapshot = engine.read()
                    status = snapshot.vectors.status
                    blocked = Step(0, status.pending, status.state, status.problem)
                    self._stepped(VectorsAt(snapshot.revision, blocked))
                    if (status.state, status.problem) != said:
                        self._report(status, True)
                        said = (status.state, status.problem)
                    busy = False
                    self._rest(engine, snapshot.settings.vector_retry_seconds)
                    continue
                if backfill is None or backfill.engine is not engine:
                    backfill = Backfill(engine, pause=self._activity.wait_for_quiet)
                revision = engine.read().revision  # a step plans for this revision or a later one
                step = backfill.step()
                self._stepped(VectorsAt(revision, step))
                done = step.embedded
            except Exception:  # never let the thread die: keyword search goes on regardless
                log.exception("embedding %s failed", self._root)
                done = 0
            if done:
                busy = True
                if time.monotonic() - reported > VECTOR_REPORT:
                    self._report(engine.read().vectors.status, False)
                    reported = time.monotonic()
                continue
            if busy or not reported:
                self._report(engine.read().vectors.status, True)
                busy, reported, said = False, time.monotonic(), ("", "")
            self._rest(engine, VECTOR_IDLE)

    def _rest(self, engine: Engine, longest: float) -> None:
        """Sleep up to `longest` seconds (a change wakes it sooner). First unload the models if
        none was used for long enough, else wake when that will be so: a vault with nothing to
        embed for hours still gives its models' memory back."""
        try:
            due = engine.unload_idle_models()
        except Exception:  # keep embedding: a model kept loaded costs memory, nothing else
            log.exception("unloading the models of %s failed", self._root)
            due = None
        self._sleep(longest if due is None else min(longest, due + UNLOAD_SLACK))


def _lower_priority() -> None:
    """Let the calling thread (and the model threads it starts) yield the CPU to requests: on
    Linux a thread has its own nice value. Elsewhere it runs at normal priority."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
