"""The language server answers the command line's `search` and `links` of its vaults on each
vault's socket (daemon.py), so a command costs a connection instead of loading two models."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path

from memlsp import daemon
from memlsp.commands.answers import answer_on_socket
from memlsp.live.vault import LiveVault

log = logging.getLogger(__name__)


class SocketHost:
    def __init__(self) -> None:
        self._sockets: dict[Path, daemon.VaultSocket] = {}

    def answer(self, vault: LiveVault, still_open: Callable[[], bool]) -> None:
        """Answer on the vault's socket once its index is open, unless another process does
        (tried again at each full rescan, such as after taking over from the process that wrote
        the index). `still_open` says whether the server still has this vault open."""
        engine = vault.engine
        if vault.root in self._sockets or engine is None or not daemon.supported():
            return
        path = daemon.socket_path(engine.cache_dir)
        if path is None or not still_open():
            return
        socket = daemon.VaultSocket(path, partial(answer_on_socket, vault))
        try:
            if socket.open():
                self._sockets[vault.root] = socket
        except OSError as error:
            log.warning("%s: cannot answer on %s: %s", vault.root, path, error)

    def close(self, root: Path) -> None:
        socket = self._sockets.pop(root, None)
        if socket is not None:
            socket.close()
