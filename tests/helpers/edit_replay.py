"""Playing random edits: on the engine in this process or on a real server over stdio, compared at
checkpoints with a fresh index of the same files and buffers; a scenario (operations before the
index opens, then live ones), its replay, and its shrinking by delta debugging.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from memlsp.engine.engine import Engine
from tests.helpers.consistency import (
    IndexState,
    capture_engine,
    capture_fresh,
    capture_server,
    differences,
    disk_with_buffers,
    open_engine,
    tell_engine,
    vault_files,
)
from tests.helpers.edit_ops import (
    BUFFER_KINDS,
    FOLDER_KINDS,
    PROCESS_KINDS,
    TOKEN,
    WORDS,
    Generator,
    Op,
    buffer_applies,
    do_on_disk,
)
from tests.helpers.shrink import shrink
from tests.helpers.stdio_server import StdioServer, settle


class Replay:
    """Operations on a temp vault, and what they left for the comparison: every path that was
    ever a file of the vault, every probe word, the open buffers."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.vault = base / "vault"
        self.vault.mkdir(parents=True)
        self.seen: set[str] = set()
        self.probes: set[str] = set(WORDS)
        self.buffers: dict[str, str] = {}
        # Open buffers whose file has existed since they opened (it was there when they opened,
        # or another program wrote it since): only those can lose their file. One never saved
        # stays a note whatever happens around it.
        self.saved: set[str] = set()
        # Open buffers whose file another program deleted or moved away: not notes until the
        # file is there again (no ghost note behind an open tab).
        self.orphans: set[str] = set()

    def opened(self, path: str, text: str) -> None:
        self.buffers[path] = text
        if (self.vault / path).is_file():
            self.saved.add(path)

    def closed(self, path: str) -> None:
        del self.buffers[path]
        self.saved.discard(path)
        self.orphans.discard(path)

    def disk_changed(self) -> None:
        """What the index makes of a change on disk for the open buffers."""
        for path in self.buffers:
            if (self.vault / path).is_file():
                self.saved.add(path)
                self.orphans.discard(path)
            elif path in self.saved:
                self.orphans.add(path)

    def buffers_reset(self) -> None:
        self.buffers = {}
        self.saved = set()
        self.orphans = set()

    def note(self, op: Op) -> None:
        self.seen.update(vault_files(self.vault))
        self.seen.update(self.buffers)
        self.probes.update(TOKEN.findall(op.text))

    def expected(self) -> IndexState:
        """A fresh index of the disk, with each open buffer's text written to its file (but for
        buffers whose file is gone)."""
        buffers = {p: t for p, t in self.buffers.items() if p not in self.orphans}
        if not buffers:
            return capture_fresh(self.vault, self.seen, self.probes)
        with tempfile.TemporaryDirectory(prefix="memlsp-expected-") as folder:
            copy = disk_with_buffers(self.vault, buffers, Path(folder) / "vault")
            return capture_fresh(copy, self.seen, self.probes)


class EngineReplay(Replay):
    """The engine in this process, told of each change as the live server tells it: disk changes
    by the paths the watcher reports, buffers by `apply_text` and `release_text`. A crash cannot
    be had in-process: it is a restart here.

    With `together`, the disk changes made between two buffer operations or checkpoints are
    told at once, as the server's change queue merges what its watcher reports: a file written
    and deleted again is then one path that is gone."""

    def __init__(self, base: Path, together: bool = False) -> None:
        super().__init__(base)
        self.engine: Engine | None = None
        self.together = together
        self.untold: list[str] = []  # reported, not yet told (with `together`)

    def start(self) -> None:
        self.engine = open_engine(self.vault, self.base / "cache")
        self.engine.refresh()

    def tell(self) -> None:
        """Tell the engine what the watcher reported and it was not told yet."""
        if self.engine is not None and self.untold:
            tell_engine(self.engine, list(dict.fromkeys(self.untold)))
        self.untold = []

    def apply(self, op: Op) -> bool:
        engine = self.engine
        if op.kind not in BUFFER_KINDS and op.kind not in PROCESS_KINDS:
            reported = do_on_disk(self.base, op)
            if reported is None:
                return False
            if engine is not None:
                self.untold += reported
                if not self.together:
                    self.tell()
            self.disk_changed()
            self.note(op)
            return True
        self.tell()
        if op.kind in PROCESS_KINDS:
            if engine is None:
                return False
            self.close()
            self.buffers_reset()  # an editor would open its buffers again: not modelled
            self.start()
        elif op.kind in BUFFER_KINDS:
            if engine is None or not buffer_applies(op, list(self.buffers)):
                return False
            if op.kind == "close":
                self.closed(op.path)
                engine.release_text(op.path)
            else:
                if op.kind == "open":
                    self.opened(op.path, op.text)
                self.buffers[op.path] = op.text
                engine.apply_text(op.path, op.text)
        self.note(op)
        return True

    def differences(self) -> list[str]:
        assert self.engine is not None
        self.tell()
        live = capture_engine(self.engine, self.seen, self.probes)
        return differences(live, self.expected())

    def reopened_differences(self) -> list[str]:
        """Close the buffers, then the engine (it saves its manifest), and open it again on the
        same cache."""
        assert self.engine is not None
        self.tell()
        for path in list(self.buffers):
            self.closed(path)
            self.engine.release_text(path)
        self.close()
        self.start()
        assert self.engine is not None
        live = capture_engine(self.engine, self.seen, self.probes)
        return differences(live, self.expected(), name="reopened")

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None


class ServerReplay(Replay):
    """The real server over stdio, with its own file watcher: it learns of disk changes by
    itself; buffers are didOpen / didChange / didClose. With `client_events` the client reports
    each change too (`workspace/didChangeWatchedFiles`, as VS Code does): twice told, once done."""

    def __init__(self, base: Path, client_events: bool = False) -> None:
        super().__init__(base)
        self.server: StdioServer | None = None
        self.client_events = client_events
        # Since the server last settled: whether a folder was made (the watcher then watches the
        # vault afresh, and a file that comes and goes meanwhile is named by no event), and the
        # paths the watcher has reported.
        self.folder_made = False
        self.reported: set[str] = set()

    def start(self) -> None:
        self.server = StdioServer(self.vault, self.base / "cache")
        self.server.open_vault()
        # A file written right after `memlsp/indexed` can be missed while the watcher is still
        # starting (a separate finding); only once it reports a write is the vault watched.
        self.quiet()

    def quiet(self) -> None:
        """Wait until the server has applied every change made so far."""
        assert self.server is not None
        settle(self.server)
        self.folder_made = False
        self.reported = set()

    def _touched(self, path: str) -> bool:
        """A disk change to `path`, or to a folder above it, is not applied yet, maybe."""
        return any(path == r or path.startswith(r + "/") for r in self.reported)

    def apply(self, op: Op) -> bool:
        server = self.server
        if op.kind in PROCESS_KINDS:
            if server is None:
                return False
            if op.kind == "crash":
                server.kill()
            self.close()
            self.buffers_reset()
            self.start()
        elif op.kind in BUFFER_KINDS:
            if server is None or not buffer_applies(op, list(self.buffers)):
                return False
            if op.kind == "open":
                if not (self.vault / op.path).is_file() and self._touched(op.path):
                    # Another program just deleted or moved its file; the watcher may tell the
                    # server after the editor does, and then it reads as a file the open buffer
                    # had. Which came first is the model's to know, not the server's.
                    self.quiet()
                server.open(op.path, op.text)
                self.opened(op.path, op.text)
            elif op.kind == "change":
                server.change(op.path, op.text)
                self.buffers[op.path] = op.text
            else:
                server.close(op.path)
                self.closed(op.path)
            assert self.buffers == server.buffers
        else:
            folders = _folders(self.vault)
            reported = do_on_disk(self.base, op)
            if reported is None:
                return False
            self.folder_made |= not _folders(self.vault) <= folders
            self.reported.update(reported)
            if self.client_events and server is not None:
                changes = [
                    {"uri": server.uri(path), "type": 2 if (self.vault / path).exists() else 3}
                    for path in reported
                ]
                server.notify("workspace/didChangeWatchedFiles", {"changes": changes})
            saved = set(self.saved)
            self.disk_changed()
            if self.folder_made and server is not None and self.saved - saved:
                # The file of an open buffer that never had one appeared while the watcher may
                # be watching afresh: if it went again before the watcher was back, nothing
                # would tell the server it ever was, so let it see it now.
                self.quiet()
        self.note(op)
        return True

    def differences(self) -> list[str]:
        assert self.server is not None
        self.quiet()
        self.seen.update(vault_files(self.vault))
        live = capture_server(self.server, self.seen, self.probes)
        return differences(live, self.expected(), name="server")

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def _folders(vault: Path) -> set[str]:
    return {str(path.relative_to(vault)) for path in vault.rglob("*") if path.is_dir()}


# -- a scenario: operations before the index opens, then live ones with checkpoints -------------


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
