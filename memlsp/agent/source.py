"""Where an agent's answers come from: the process that has the vault open, else this one.

An editor's language server or `memlsp serve` answers on the vault's socket (memlsp/daemon/) with the
index and the models already loaded: asking it costs a connection, and a typed call comes back as
its answer's JSON, parsed once. When no process answers, this one opens the vault itself, keeps it
current with the file watcher, answers the command line on the socket in turn, and answers its
own calls directly from its snapshot. Either way an answer is the command line's `--json`.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memlsp import daemon
from memlsp.commands.answers import answer_json, ready_snapshot, status_json
from memlsp.commands.arguments import UsageError
from memlsp.commands.calls import Call, StatusCall, argv, call_json, needs_vectors
from memlsp.commands.status import announce_process
from memlsp.daemon.host import SocketHost
from memlsp.live.vault import LiveVault
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings

log = logging.getLogger(__name__)


class VaultSource:
    def __init__(self, root: Path, settings: Settings) -> None:
        announce_process("memlsp mcp")  # its status reports name it
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

    def answer(self, call: Call) -> Mapping[str, Any]:
        """The `--json` answer to `call`; `UsageError` with the sentence the command line would
        print when there is none."""
        root = str(self.root)
        if self._own is None and self._socket is not None:
            typed = {**call_json(call), "vault": root}
            request = daemon.Request(tuple(argv(call, root)), root, self._key, typed)
            try:
                return _answer_of(daemon.ask(self._socket, request))
            except daemon.Unanswered as why:  # none answers, or not this (an older memlsp)
                log.info("%s; answering here", why)
        vault = self._vault()
        try:
            if isinstance(call, StatusCall):
                return status_json(vault)
            snapshot = ready_snapshot(vault, needs_vectors(call))
            with vault.activity.busy():
                return answer_json(snapshot, call, root)
        except daemon.Refused as error:
            raise UsageError(str(error)) from None

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


def _answer_of(reply: daemon.Reply) -> Mapping[str, Any]:
    """A typed answer as it came; what an older server printed, parsed; its complaint raised."""
    if isinstance(reply.answer, dict):
        return reply.answer
    if reply.code != 0:
        lines = [line.removeprefix("memlsp: ") for line in reply.stderr.splitlines()]
        raise UsageError(" ".join(line for line in lines if line))
    try:
        answer = json.loads(reply.stdout)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise daemon.Unanswered("an answer that is not a JSON object")
    return answer
