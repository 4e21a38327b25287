"""Indexing and embedding shown to the user as `$/progress`, and the notifications that tell a
client a vault is indexed (`memlsp/indexed`) or embedded (`memlsp/vectors`). Told by a vault's
threads through `vault_events.py`; talks to the client through its port (`client_port.py`)."""

from __future__ import annotations

import asyncio
import itertools
import logging
from pathlib import Path

from lsprotocol import types

from memlsp import wire
from memlsp.index.semantic import VectorStatus
from memlsp.live.status import notes_done, sections_done
from memlsp.live.vault import LiveVault
from memlsp.lsp import convert
from memlsp.lsp.client_port import ClientPort
from memlsp.model import IndexSummary

log = logging.getLogger(__name__)


class ProgressBar:
    """One run of `$/progress` with a token of its own: pygls never forgets a token, so reusing
    one fails from the second run on. The token is created before `begin`; a report sent before
    the client answered is dropped, and `end` waits for `begin`."""

    _numbers = itertools.count(1)
    CREATE_TIMEOUT = 10.0  # seconds a client may take to accept the token

    def __init__(self, port: ClientPort, kind: str) -> None:
        self.port = port
        self.token = f"memlsp-{kind}-{next(self._numbers)}"
        self._begun: asyncio.Task[bool] | None = None

    def begin(self, title: str, message: str) -> None:
        def start() -> None:
            self._begun = asyncio.ensure_future(self._begin(title, message))

        self.port.on_loop(start)

    async def _begin(self, title: str, message: str) -> bool:
        progress = self.port.progress()
        if progress is None:
            return False
        try:
            await asyncio.wait_for(progress.create_async(self.token), self.CREATE_TIMEOUT)
        except Exception as error:  # the client refused or never answered: no progress shown
            log.info("progress %s not created: %s", self.token, error)
            return False
        begin = types.WorkDoneProgressBegin(title=title, message=message, percentage=0)
        progress.begin(self.token, begin)
        return True

    def report(self, message: str, percentage: int) -> None:
        value = types.WorkDoneProgressReport(message=message, percentage=percentage)

        def send() -> None:
            begun = self._begun
            progress = self.port.progress()
            if begun is not None and begun.done() and begun.result() and progress is not None:
                progress.report(self.token, value)

        self.port.on_loop(send)

    def end(self, message: str) -> None:
        async def finish() -> None:
            progress = self.port.progress()
            if self._begun is None or not await self._begun or progress is None:
                return
            progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            progress.tokens.pop(self.token, None)

        self.port.on_loop(lambda: keep(asyncio.ensure_future(finish())))


_running: set[asyncio.Future[None]] = set()


def keep(task: asyncio.Future[None]) -> None:
    """Hold a fire-and-forget task until it is done (the loop keeps only a weak reference)."""
    _running.add(task)
    task.add_done_callback(_running.discard)


class VaultProgress:
    """Indexing and embedding as `$/progress`, in the words of `VaultStatus.summary`;
    `memlsp/indexed` when a vault is ready, `memlsp/vectors` when embedding caught up. Its
    methods are the `Listener`'s, called from the vault's threads."""

    def __init__(self, port: ClientPort) -> None:
        self.port = port
        self.bars: dict[tuple[str, Path], ProgressBar] = {}

    def _begin(self, kind: str, vault: LiveVault, title: str, message: str) -> None:
        if self.port.progress() is None:  # the client shows no `$/progress`
            return
        old = self.bars.pop((kind, vault.root), None)
        if old is not None:
            old.end("")
        bar = self.bars[(kind, vault.root)] = ProgressBar(self.port, kind)
        bar.begin(title, message)

    def _end(self, kind: str, vault: LiveVault, message: str) -> None:
        bar = self.bars.pop((kind, vault.root), None)
        if bar is not None:
            bar.end(message)

    def indexing_started(self, vault: LiveVault) -> None:
        self._begin("index", vault, f"Indexing {vault.root.name}", "looking for changed notes")

    def indexing_progress(self, vault: LiveVault, done: int, total: int) -> None:
        bar = self.bars.get(("index", vault.root))
        if bar is not None:
            bar.report(notes_done(done, total), int(100 * done / max(total, 1)))

    def indexing_done(self, vault: LiveVault, summary: IndexSummary) -> None:
        self._end(
            "index",
            vault,
            f"{summary.notes:,} notes, {summary.links:,} links "
            f"({summary.unresolved:,} to notes not written yet, {summary.ambiguous:,} ambiguous)",
        )
        for text in summary.messages:
            self.port.log(f"memlsp: {text}", types.MessageType.Warning)
        params = wire.indexed_json(convert.uri_of(vault.root), summary)
        self.port.on_loop(lambda: self.port.notify("memlsp/indexed", params))

    def vectors_progress(self, vault: LiveVault, status: VectorStatus, done: bool) -> None:
        """`$/progress` while embedding, and `memlsp/vectors` when it caught up or cannot go on."""
        message = sections_done(status)
        bar = self.bars.get(("vectors", vault.root))
        if not done:
            if bar is None:
                self._begin("vectors", vault, f"Finding meaning in {vault.root.name}", message)
            else:
                bar.report(
                    message, int(100 * status.stored / max(status.stored + status.pending, 1))
                )
            return
        if status.state != "ready":
            message = f"semantic search unavailable: {status.problem}"
        self._end("vectors", vault, message)
        if status.state == "unavailable":
            self.port.log(
                f"memlsp: semantic search unavailable, keyword search only: {status.problem}",
                types.MessageType.Warning,
            )
        params = wire.vectors_notice_json(convert.uri_of(vault.root), status)
        self.port.on_loop(lambda: self.port.notify("memlsp/vectors", params))
