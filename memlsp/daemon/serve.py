"""`memlsp serve`: keep a vault live in a process of its own and answer the command line's
commands (`search`, `links`, `related`, `mentions`, `graph`, `read`, `recent`) on the vault's
socket (`vault_socket.py`, through the one host of `host.py`) until it has been idle a while."""

from __future__ import annotations

import logging
import logging.handlers
import os
import signal
import sys
import threading
import time
from pathlib import Path

from memlsp.commands.status import announce_process
from memlsp.daemon.host import SocketHost
from memlsp.daemon.vault_socket import LOG_FILE
from memlsp.live.vault import LiveVault
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
    announce_process("memlsp serve")  # its status reports name it
    cache = cache_dir_for(root, settings)
    cache.mkdir(parents=True, exist_ok=True)
    _log_to(cache / LOG_FILE)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    sys.setswitchinterval(0.001)  # as the language server: requests win the interpreter quickly
    log.info("serving %s (pid %d, idle %.0f s)", root, os.getpid(), idle)
    answers = SocketHost()
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
