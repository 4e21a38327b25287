"""The one place a live vault's news reaches the client: a vault's threads tell it (it is the
vault's `Listener`), and it fans each piece of news out.

- The index is open: the vault answers the command line on its socket (`daemon/host.py`), and
  indexing shows as `$/progress` (`progress.py`), as embedding does.
- The vault changed: ONE snapshot is read, on the writer's thread as it publishes it; from it the
  open notes' problems are worked out and sent (`diagnostics.py`), then `memlsp/changed` names that
  same revision, then the client is asked for code lenses again. Changes are sent in the order they
  came.
- The client's settings changed a vault in place: its open notes' problems again, under the new
  levels.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from memlsp import wire
from memlsp.daemon.host import SocketHost
from memlsp.engine.snapshot import Snapshot
from memlsp.index.semantic import VectorStatus
from memlsp.live.vault import Listener, LiveVault
from memlsp.lsp import convert
from memlsp.lsp.client_port import ClientPort
from memlsp.lsp.diagnostics import Publisher
from memlsp.lsp.progress import VaultProgress, keep
from memlsp.model import IndexSummary

log = logging.getLogger(__name__)


class VaultEvents(Listener):
    def __init__(
        self,
        port: ClientPort,
        diagnostics: Publisher,
        sockets: SocketHost,
        still_open: Callable[[LiveVault], bool],
    ) -> None:
        """`still_open`: whether the server still has this vault open (a vault's socket opens
        only then)."""
        self._port = port
        self._diagnostics = diagnostics
        self._sockets = sockets
        self._still_open = still_open
        self._progress = VaultProgress(port)

    # -- from the vault's threads --------------------------------------------------------------

    def indexing_started(self, vault: LiveVault) -> None:
        self._sockets.answer(vault, lambda: self._still_open(vault))
        self._progress.indexing_started(vault)

    def indexing_progress(self, vault: LiveVault, done: int, total: int) -> None:
        self._progress.indexing_progress(vault, done, total)

    def indexing_done(self, vault: LiveVault, summary: IndexSummary) -> None:
        self._progress.indexing_done(vault, summary)

    def vectors_progress(self, vault: LiveVault, status: VectorStatus, done: bool) -> None:
        self._progress.vectors_progress(vault, status, done)

    def changed(self, vault: LiveVault) -> None:
        snapshot = vault.read()  # the one revision everything below names
        self._port.on_loop(lambda: keep(asyncio.ensure_future(self._fan_out(vault, snapshot))))

    async def _fan_out(self, vault: LiveVault, snapshot: Snapshot | None) -> None:
        try:
            await self._diagnostics.vault_changed(vault, snapshot)
        except Exception:  # the client still hears of the change
            log.exception("problems of the open notes of %s", vault.root)
        revision = snapshot.revision if snapshot is not None else 0
        self._port.notify("memlsp/changed", wire.changed_json(convert.uri_of(vault.root), revision))
        self._port.refresh_lenses()

    # -- from the event loop -------------------------------------------------------------------

    def settings_changed(self, vault: LiveVault) -> None:
        """The vault took new settings in place: its problems again, under the new levels."""
        self._diagnostics.vault_changed(vault, vault.read())
