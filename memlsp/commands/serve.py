"""`memlsp serve`: keep a vault live in a process of its own and answer the command line's
commands (`search`, `links`, `related`, `mentions`, `graph`, `read`, `recent`) on the vault's
socket (daemon.py) until it has been idle a while."""

from __future__ import annotations

import logging
import logging.handlers
import os
import signal
import sys
import threading
import time
from pathlib import Path

from memlsp.commands.answers import answer_on_socket
from memlsp.daemon import LOG_FILE, VaultSocket, socket_path
from memlsp.live.vault import Listener, LiveVault
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings

log = logging.getLogger(__name__)


def serve(
    root: Path,
    settings: Settings,
    idle: float,
) -> int:
    """Keep the vault live and answer on its socket until `idle` seconds pass without a request,
    or SIGTERM; the vault is closed cleanly either way. Logs go to a file in the cache folder."""
    cache = cache_dir_for(root, settings)
    cache.mkdir(parents=True, exist_ok=True)
    _log_to(cache / LOG_FILE)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    sys.setswitchinterval(0.001)  # as the language server: requests win the interpreter quickly
    log.info("serving %s (pid %d, idle %.0f s)", root, os.getpid(), idle)
    answers = AnswersOnSocket()
    vault = LiveVault(root, settings, answers, watch=settings.watch)
    vault.start()
    started = time.monotonic()
    try:
        while not stop.wait(0.2):
            if answers.elsewhere.is_set():
                break  # another process answers for this vault, or none can
            if vault.state == "failed":
                log.error("%s: %s; exiting", root, vault.status().message)
                break
            quiet = answers.idle()
            if (time.monotonic() - started if quiet is None else quiet) >= idle:
                log.info("no request for %.0f s; exiting", idle)
                break
    except KeyboardInterrupt:
        pass
    finally:
        answers.close()
        vault.stop()
        log.info("stopped")
    return 0


class AnswersOnSocket(Listener):
    """Answers the command line on the vault's socket from this process's live vault, from the
    moment its index is open. `elsewhere` is set when another process already answers there (or
    no socket can be made): then this one does not."""

    def __init__(self) -> None:
        self.elsewhere = threading.Event()
        self._served: list[VaultSocket] = []
        self._closing = threading.Event()

    def indexing_started(self, vault: LiveVault) -> None:
        engine = vault.engine
        if self._served or self._closing.is_set() or engine is None:
            return
        path = socket_path(engine.cache_dir)
        where = None if path is None else VaultSocket(path, lambda r: answer_on_socket(vault, r))
        try:
            if where is not None and where.open():
                self._served.append(where)
                # The socket answers from inside `open`, before it is listed: a `close` in
                # between (a SIGTERM right after the first answer) did not see it.
                if self._closing.is_set():
                    where.close()
                return
        except OSError:
            log.exception("cannot answer on %s", path)
        self.elsewhere.set()

    def idle(self) -> float | None:
        """Seconds since the socket's last request; None while no socket is open."""
        return self._served[0].idle() if self._served else None

    def close(self) -> None:
        self._closing.set()
        for where in self._served:
            where.close()


def _log_to(path: Path) -> None:
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=1 << 20, backupCount=1, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.getLogger("watchfiles").setLevel(logging.WARNING)  # a line per change seen
