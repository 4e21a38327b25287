"""Scenarios of random edits: operations before the index opens, then live ones with checkpoints;
a seed's random run, a scenario's replay, its shrinking by delta debugging and its report.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.helpers.edit_ops import FOLDER_KINDS, Generator, Op
from tests.helpers.edit_replay import EngineReplay, ServerReplay
from tests.helpers.shrink import shrink


@dataclass(frozen=True)
class Scenario:
    before: tuple[Op, ...]  # made on disk before the index is first opened
    during: tuple[Op, ...]  # made while it is live
    checkpoints: frozenset[int]  # indexes into `during` after which the states are compared

    def without(self, kept: Sequence[int]) -> Scenario:
        """The scenario with only the operations numbered in `kept` (0-based, over both
        phases); the checkpoints stay after the same operations, and one is at the end."""
        first = len(self.before)
        before = tuple(self.before[i] for i in kept if i < first)
        during_numbers = [i - first for i in kept if i >= first]
        checks = {n for n, i in enumerate(during_numbers) if i in self.checkpoints}
        checks.add(len(during_numbers) - 1)
        return Scenario(before, tuple(self.during[i] for i in during_numbers), frozenset(checks))

    def lines(self) -> list[str]:
        lines = ["  before the index opens:"] if self.before else []
        lines += [f"    {op}" for op in self.before]
        lines.append("  then, live:")
        for number, op in enumerate(self.during):
            lines.append(f"    {op}")
            if number in self.checkpoints and number != len(self.during) - 1:
                lines.append("    -- compared here --")
        return lines


def run_scenario(replay: EngineReplay | ServerReplay, scenario: Scenario) -> list[str]:
    """Play it; the differences at the first checkpoint that has any ([] if none has)."""
    try:
        for op in scenario.before:
            replay.apply(op)
        replay.start()
        if not scenario.during:
            return replay.differences()
        for number, op in enumerate(scenario.during):
            replay.apply(op)
            if number in scenario.checkpoints:
                found = replay.differences()
                if found:
                    return found
        return []
    finally:
        replay.close()


@dataclass(frozen=True)
class RandomRun:
    """What a seed's run did: its operations and checkpoints, and the differences at the first
    checkpoint that had any ([] if none had)."""

    scenario: Scenario
    found: list[str]


def play_random(
    generator: Generator,
    replay: EngineReplay | ServerReplay,
    before: int,
    operations: int,
    check_every: int,
) -> RandomRun:
    """`before` operations on disk, then the index opened and `operations` more, compared every
    `check_every` and right after each folder operation (a later write into a new folder makes
    the server scan the whole vault, which would hide what it left behind). The replay is left
    open: the caller closes it."""
    made: list[Op] = []
    for _ in range(before):
        op = generator.next(replay.base, live=False)
        replay.apply(op)
        made.append(op)
    replay.start()
    during: list[Op] = []
    checkpoints: set[int] = set()
    found: list[str] = []
    for number in range(operations):
        op = generator.next(replay.base, list(replay.buffers))
        applied = replay.apply(op)
        during.append(op)
        if (number + 1) % check_every == 0 or (applied and op.kind in FOLDER_KINDS):
            checkpoints.add(number)
            found = replay.differences()
            if found:
                break
    return RandomRun(Scenario(tuple(made), tuple(during), frozenset(checkpoints)), found)


def reproduce(
    make: Callable[[Path], EngineReplay | ServerReplay],
    scenario: Scenario,
    work: Path,
    seconds: float,
) -> tuple[Scenario, list[str], str]:
    """Shrink a diverging scenario; the shrunk one, its differences, and how it was shrunk."""
    total = len(scenario.before) + len(scenario.during)
    replays = iter(range(1_000_000))

    def diverges(kept: Sequence[int]) -> bool:
        if not kept:
            return False
        folder = work / f"replay-{next(replays)}"
        try:
            return bool(run_scenario(make(folder), scenario.without(kept)))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    shrunk = shrink(list(range(total)), diverges, seconds)
    result = scenario.without(shrunk.items)
    folder = work / "replay-shrunk"
    found = run_scenario(make(folder), result)
    how = f"{total} -> {len(shrunk.items)} operations in {shrunk.replays} replays"
    if not shrunk.minimal:
        how += " (time ran out: maybe not minimal)"
    return result, found, how


def report(title: str, scenario: Scenario, how: str, *sections: tuple[str, list[str]]) -> str:
    lines = [title, f"shrunk: {how}", "operations:", *scenario.lines()]
    for label, found in sections:
        lines.append(f"{label}:")
        lines += [f"  {line}" for line in found[:60]] or ["  (none: no divergence this time)"]
        if len(found) > 60:
            lines.append(f"  ... {len(found) - 60} more")
    return "\n".join(lines)
