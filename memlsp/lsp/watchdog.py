"""Exit when the editor that started the server is gone, even if it never said `exit`."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)
EVERY = 2.0  # seconds between looks


def watch_parent(pid: int | None, stop: Callable[[], None]) -> None:
    """Look every few seconds whether process `pid` lives; once it is gone, `stop` and exit."""
    if not pid:
        return

    def check() -> None:
        while True:
            threading.Event().wait(EVERY)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                log.info("the client process %d is gone; exiting", pid)
                stop()
                os._exit(0)
            except PermissionError:
                pass  # alive, owned by someone else

    threading.Thread(target=check, name="watch client", daemon=True).start()
