"""Watch a vault folder for changes made by other programs (git, Obsidian, scripts).

The only module that imports watchfiles. Its default filter does not skip `.obsidian/` or other
dot-folders, so the vault's own rules decide what is reported.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

import watchfiles

from memlsp.config import Settings

log = logging.getLogger(__name__)


class VaultWatcher:
    """Calls `on_change(relative paths)` from its own thread until `stop()`."""

    def __init__(
        self,
        root: Path,
        settings: Settings,
        on_change: Callable[[set[str]], None],
        avoid: tuple[Path, ...] = (),
        on_rescan: Callable[[], None] = lambda: None,
    ) -> None:
        self.root = root.resolve()
        self.settings = settings
        self.on_change = on_change
        self.on_rescan = on_rescan
        self.avoid = tuple(path.resolve() for path in avoid)
        self._stop = threading.Event()
        self._root_touched = False
        self._thread = threading.Thread(target=self._run, name=f"watch {root.name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def relative(self, path: str) -> str | None:
        """The vault-relative path of a reported file, or None when the vault ignores it."""
        try:
            relative = Path(path).relative_to(self.root)
        except ValueError:
            return None
        if any(Path(path).is_relative_to(avoided) for avoided in self.avoid):
            return None
        parts = relative.parts
        if not parts or any(p.startswith(".") or p in self.settings.exclude for p in parts):
            return None
        return relative.as_posix()

    def _run(self) -> None:
        """Watch; if the vault folder goes away, wait for it, and when it is back (a re-clone, a
        restored backup) ask for a rescan before watching it again."""
        lost = False
        while not self._stop.is_set():
            if not self.root.is_dir():
                lost = True
                self._stop.wait(0.5)
                continue
            if lost:
                self.on_rescan()
                lost = False
            try:
                lost = self._watch()
            except Exception as error:
                if not self._stop.is_set():
                    log.warning("watching %s failed (%s); trying again", self.root, error)
                    self._stop.wait(1.0)

    def _accepts(self, _change: watchfiles.Change, path: str) -> bool:
        if Path(path) == self.root:
            self._root_touched = True  # the folder itself was deleted or replaced
            return False
        return self.relative(path) is not None

    def _watch(self) -> bool:
        """Report changes until stopped (False) or until the vault folder itself goes (True)."""
        self._root_touched = False
        for changes in watchfiles.watch(
            self.root,
            watch_filter=self._accepts,
            stop_event=self._stop,
            debounce=50,  # ms of quiet before a batch is reported
            step=10,
            rust_timeout=1000,
            yield_on_timeout=True,  # an empty batch every second: time to check the folder
            raise_interrupt=False,
        ):
            paths = {p for _, path in changes if (p := self.relative(path)) is not None}
            if paths:
                self.on_change(paths)
            if self._root_touched or not self.root.is_dir():
                return True
        return False
