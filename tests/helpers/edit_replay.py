"""Playing random edits on the engine in this process or on a real server over stdio, and comparing
either with a fresh index of the same files and buffers (the scenarios that drive them are in
tests/helpers/edit_scenarios.py).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from functools import partial
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
    PROCESS_KINDS,
    TOKEN,
    WORDS,
    Op,
    buffer_applies,
    do_on_disk,
)
from tests.helpers.engine import embed_all
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.stdio_server import StdioServer, settle

ENDPOINT_DIMENSION = 64  # of the test embedder behind a server's embedding endpoint
# Seconds a server's related notes may take to equal a fresh index's once the keyword side has
# settled: its embedding thread plans and embeds the last changes in the background.
VECTORS_SETTLE = 10.0


class Replay:
    """Operations on a temp vault, and what they left for the comparison: every path that was
    ever a file of the vault, every probe word, the open buffers."""

    def __init__(self, base: Path, embedder: FakeEmbedder | None = None) -> None:
        """`embedder`: the vault has vectors too (the live index and the fresh one embed every
        chunk with it), so related notes and the graph's meaning edges are compared as well."""
        self.base = base
        self.embedder = embedder
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

    def viewed(self) -> list[str]:
        """The notes whose views are compared: every note on disk, every open buffer."""
        notes = {path for path in vault_files(self.vault) if path.endswith(".md")}
        return sorted(notes | set(self.buffers))

    def expected(self, viewed: Sequence[str]) -> IndexState:
        """A fresh index of the disk, with each open buffer's text written to its file (but for
        buffers whose file is gone); with the views of `viewed`."""
        buffers = {p: t for p, t in self.buffers.items() if p not in self.orphans}
        # A new embedder too: the fresh index shares nothing with the live one.
        embedder = FakeEmbedder() if self.embedder is not None else None
        fresh = partial(capture_fresh, embedder=embedder)
        if not buffers:
            return fresh(self.vault, self.seen, self.probes, viewed)
        with tempfile.TemporaryDirectory(prefix="memlsp-expected-") as folder:
            copy = disk_with_buffers(self.vault, buffers, Path(folder) / "vault")
            return fresh(copy, self.seen, self.probes, viewed)


class EngineReplay(Replay):
    """The engine in this process, told of each change as the live server tells it: disk changes
    by the paths the watcher reports, buffers by `apply_text` and `release_text`. A crash cannot
    be had in-process: it is a restart here.

    With `together`, the disk changes made between two buffer operations or checkpoints are
    told at once, as the server's change queue merges what its watcher reports: a file written
    and deleted again is then one path that is gone."""

    def __init__(
        self, base: Path, together: bool = False, embedder: FakeEmbedder | None = None
    ) -> None:
        super().__init__(base, embedder)
        self.engine: Engine | None = None
        self.together = together
        self.untold: list[str] = []  # reported, not yet told (with `together`)

    def start(self) -> None:
        self.engine = open_engine(self.vault, self.base / "cache", self.embedder)
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
        if self.embedder is not None:
            embed_all(self.engine)  # as the server's embedding thread does, in the background
        viewed = self.viewed()
        live = capture_engine(self.engine, self.seen, self.probes, viewed)
        return differences(live, self.expected(viewed))

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
        if self.embedder is not None:
            embed_all(self.engine)
        viewed = self.viewed()
        live = capture_engine(self.engine, self.seen, self.probes, viewed)
        return differences(live, self.expected(viewed), name="reopened")

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None


class ServerReplay(Replay):
    """The real server over stdio, with its own file watcher: it learns of disk changes by
    itself; buffers are didOpen / didChange / didClose. With `client_events` the client reports
    each change too (`workspace/didChangeWatchedFiles`, as VS Code does): twice told, once done.
    With `embedder_url` (tests/helpers/fake_embedder.py `embedding_endpoint`) the server embeds
    every chunk through it, and the fresh index with the same embedder in this process."""

    def __init__(
        self, base: Path, client_events: bool = False, embedder_url: str | None = None
    ) -> None:
        super().__init__(base, FakeEmbedder(ENDPOINT_DIMENSION) if embedder_url else None)
        self.server: StdioServer | None = None
        self.client_events = client_events
        self.options: dict[str, str] = {}
        if embedder_url is not None:
            self.options = {
                "embedder": "endpoint",
                "embedder_url": embedder_url,
                "embedder_model": f"fake-{ENDPOINT_DIMENSION}",
            }
        # Since the server last settled: whether a folder was made (the watcher then watches the
        # vault afresh, and a file that comes and goes meanwhile is named by no event), and the
        # paths the watcher has reported.
        self.folder_made = False
        self.reported: set[str] = set()

    def start(self) -> None:
        self.server = StdioServer(self.vault, self.base / "cache", **self.options)
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
                if self._touched(op.path):
                    # Another program just wrote, deleted or moved its file, and the watcher may
                    # tell the server after the editor does: a file deleted a moment before the
                    # buffer opened then reads as one the buffer had; one written a moment
                    # before, in a folder the watcher is not watching yet, and moved away a
                    # moment after, as one it never had. Which came first is the model's to
                    # know, not the server's.
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
        server = self.server
        assert server is not None
        self.quiet()
        self.seen.update(vault_files(self.vault))
        viewed = self.viewed()
        expected = self.expected(viewed)
        deadline = time.monotonic() + VECTORS_SETTLE
        while True:
            if self.embedder is not None:
                server.until(partial(_embedded, server), "every chunk has its vector")
            found = differences(
                capture_server(server, self.seen, self.probes, viewed), expected, name="server"
            )
            # The embedding thread works behind the index: until it has planned for the last
            # change, the status may count vectors of chunks that are gone as done (a client
            # cannot tell which revision they are of). Only what meaning shows may wait for it.
            meaning = all(line.startswith(("related of", "graph of")) for line in found)
            if not found or self.embedder is None or not meaning:
                return found
            if time.monotonic() > deadline:
                return found
            time.sleep(0.25)

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def _embedded(server: StdioServer) -> bool:
    """The vector side is ready and has nothing left to embed, as far as it knows."""
    vectors = server.status()["vectors"]
    return bool(vectors["state"] == "ready" and vectors["pending"] == 0)


def _folders(vault: Path) -> set[str]:
    return {str(path.relative_to(vault)) for path in vault.rglob("*") if path.is_dir()}
