"""Giving every chunk its vector: the one embedding loop of the server, the CLI, the benchmarks and
the tests.

Each step plans first when the vault changed since the last plan (which chunks lack a vector, most
recently changed notes first), then embeds one batch, and says what happened: how many chunks it
stored, how many still wait, and the vector side's state, so a caller tells "done" from "cannot run
now" without asking twice. It plans from the engine's current snapshot; no lock is held while a
model runs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from memlsp.engine.engine import Engine
from memlsp.index.semantic import BATCH


@dataclass(frozen=True, slots=True)
class Step:
    embedded: int  # chunks given a vector by this step
    pending: int  # chunks still without one
    state: str  # the vector side's: "off", "connecting", "ready", "unavailable"
    problem: str = ""

    @property
    def done(self) -> bool:
        """Nothing left to embed (or semantic search is off)."""
        return self.state == "off" or (self.state == "ready" and self.pending == 0)

    @property
    def blocked(self) -> bool:
        """The vector side cannot run now; `connect` is tried again after its retry time."""
        return self.state in ("connecting", "unavailable") and self.embedded == 0


class Backfill:
    def __init__(
        self, engine: Engine, batch: int = BATCH, pause: Callable[[], object] | None = None
    ) -> None:
        """`pause`: called before each step and between the model's groups of texts; the
        language server waits there while someone waits for an answer (sync/activity.py)."""
        self.engine = engine
        self.batch = batch
        self.pause = pause
        self.embedded = 0  # over this backfill's life
        self._pruned = False

    def plan(self) -> Step:
        """Connect and plan without embedding anything: what is left to do."""
        self.engine.plan_vectors()
        return self._report(0)

    def step(self) -> Step:
        """Embed one batch (planning first when needed)."""
        if self.pause is not None:
            self.pause()
        return self._report(self.engine.embed_step(self.batch, self.pause))

    def run(
        self,
        stop: threading.Event | None = None,
        progress: Callable[[Step], None] | None = None,
    ) -> Step:
        """Step until nothing is pending, the vector side cannot run, or `stop` is set; the last
        step. `progress` sees every step that embedded something."""
        while True:
            step = self.step()
            if step.embedded and progress is not None:
                progress(step)
            if not step.embedded or (stop is not None and stop.is_set()):
                return step

    def _report(self, embedded: int) -> Step:
        self.embedded += embedded
        status = self.engine.read().vectors.status
        step = Step(embedded, status.pending, status.state, status.problem)
        if step.done and self.embedded and not self._pruned:
            # Once per backfill that embedded something: texts no longer in the vault leave the
            # content cache, which would otherwise only grow.
            self._pruned = True
            self.engine.forget_unused_vectors()
        return step
