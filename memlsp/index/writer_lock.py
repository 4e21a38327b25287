"""One writer per cache folder, across processes.

Two editor windows, an editor and a script, or four CLIs started at once may open the same vault.
Exactly one of them may create, rebuild or change the index; the others answer read-only. The
lock is an advisory file lock, so the operating system releases it when its holder dies, even by
`kill -9`, and a read-only process can take over writing.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import IO


class WriterLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[bytes] | None = None

    def acquire(self) -> bool:
        """Take the lock if no other process (or other `WriterLock` on it) holds it; never waits."""
        if self._handle is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+b")  # noqa: SIM115 - held open for as long as the lock is
        if not _try_lock(handle):
            handle.close()
            return False
        self._handle = handle
        return True

    def release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):
                _unlock(handle)
            handle.close()


if sys.platform == "win32":
    import msvcrt

    def _try_lock(handle: IO[bytes]) -> bool:
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(handle: IO[bytes]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(handle: IO[bytes]) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except OSError:
            # A file system without locks (some network mounts): fall back to tantivy's own
            # writer lock, which still keeps a second writer out.
            return True
        return True

    def _unlock(handle: IO[bytes]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
