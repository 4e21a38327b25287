"""Where an agent's answers come from: the process that has the vault open, else this one.

An editor's language server or `memlsp serve` answers the command line on the vault's socket
(daemon.py) with the index and the models already loaded: asking it costs a connection. When no
process answers, this one opens the vault itself, keeps it current with the file watcher, and
answers the command line on the socket in turn. Either way an answer is what the command would
print, so a tool's answer is the command line's JSON by construction.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from memlsp import daemon
from memlsp.commands.answers import answer_on_socket
from memlsp.daemon.host import SocketHost
from memlsp.live.vault import LiveVault
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings

log = logging.getLogger(__name__)


class VaultSource:
    def __init__(self, root: Path, settings: Settings) -> None:
        self.root = root
        self.settings = settings
        cache = cache_dir_for(root, settings, tell=lambda _: None)
        self._socket = daemon.socket_path(cache) if daemon.supported() else None
        self._key = tuple(sorted(daemon.settings_key(settings, cache).items()))
        self._own: LiveVault | None = None
        self._answers: SocketHost | None = None
        self._opening = threading.Lock()

    def start(self) -> None:
        """Open the vault here at once unless another process answers for it, so that a first
        question does not wait for the index to open."""
        if self._socket is None or not daemon.answers(self._socket):
            self._vault()

    def ask(self, argv: list[str]) -> daemon.Reply:
        """What `memlsp ARGV` prints, with its exit status; `argv` names the vault by its path."""
        request = daemon.Request(tuple(argv), str(self.root), self._key)
        if self._own is None and self._socket is not None:
            try:
                return daemon.ask(self._socket, request)
            except daemon.Unanswered as why:  # none answers, or not this (an older memlsp)
                log.info("%s; answering here", why)
        try:
            return answer_on_socket(self._vault(), request)
        except daemon.Refused as error:
            return daemon.Reply("", f"memlsp: {error}\n", 2)

    def close(self) -> None:
        if self._answers is not None:
            self._answers.close()
        if self._own is not None:
            self._own.stop()

    def _vault(self) -> LiveVault:
        with self._opening:
            if self._own is None:
                log.info("no process has %s open; opening it here", self.root)
                self._answers = SocketHost()
                vault = LiveVault(
                    self.root, self.settings, self._answers, watch=self.settings.watch
                )
                vault.start()
                self._own = vault
            return self._own
