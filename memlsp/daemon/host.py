"""The one host of the vaults' sockets in a process: the language server, `memlsp serve` and MCP
each answer the command line on the socket of every vault they keep live, through this.

A vault answers from the moment its index is open (`Listener.indexing_started`), unless another
process already answers on its socket. The socket answers from inside `VaultSocket.open`, before
the host has listed it, so a close that comes in between (a SIGTERM right after the first answer,
a vault closed by the editor meanwhile) does not see it: the thread that opened it looks again once
it is listed, and whichever of the two sees it last closes it. `VaultSocket.close` may run twice,
from any thread; no lock is needed here.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

from memlsp.commands.answers import answer_on_socket
from memlsp.daemon.vault_socket import VaultSocket, socket_path, supported
from memlsp.live.vault import Listener, LiveVault

log = logging.getLogger(__name__)


def _always() -> bool:
    return True


class SocketHost(Listener):
    """Answers the command line on the sockets of the live vaults of this process.

    As a vault's listener (`memlsp serve`, MCP's own vault) it opens the vault's socket when the
    index is open; a language server calls `answer` itself, with whether the vault is still open.
    `elsewhere` is set when a vault's socket could not be had: another process answers there, or
    no socket can be made."""

    def __init__(self) -> None:
        self.elsewhere = threading.Event()
        self._sockets: dict[Path, VaultSocket] = {}
        self._closing = threading.Event()

    def indexing_started(self, vault: LiveVault) -> None:
        self.answer(vault)

    def answer(self, vault: LiveVault, still_open: Callable[[], bool] = _always) -> None:
        """Answer on the vault's socket once its index is open, unless another process does
        (tried again at each full rescan, such as after taking over from the process that wrote
        the index). `still_open` says whether this process still keeps the vault."""
        engine = vault.engine
        if vault.root in self._sockets or engine is None or self._closing.is_set():
            return
        if not still_open():
            return
        path = socket_path(engine.cache_dir) if supported() else None
        where = None if path is None else VaultSocket(path, partial(answer_on_socket, vault))
        try:
            if where is not None and where.open():
                self._sockets[vault.root] = where
                if self._closing.is_set() or not still_open():  # closed while it opened
                    self.close_vault(vault.root)
                return
        except OSError as error:
            log.warning("%s: cannot answer on %s: %s", vault.root, path, error)
        self.elsewhere.set()

    def idle(self) -> float | None:
        """Seconds since a socket's last request; None while no socket is open."""
        sockets = list(self._sockets.values())
        return min(where.idle() for where in sockets) if sockets else None

    def close_vault(self, root: Path) -> None:
        """Stop answering for the vault at `root` (once its threads have stopped)."""
        where = self._sockets.pop(root, None)
        if where is not None:
            where.close()

    def close(self) -> None:
        """Stop answering for every vault, and never again."""
        self._closing.set()
        for root in list(self._sockets):
            self.close_vault(root)
