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
    ) -> None:
        self.root = root.resolve()
        self.settings = settings
        self.on_change = on_change
        self.avoid = tuple(path.resolve() for path in avoid)
        self._stop = threading.Event()
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

    def _accepts(self, _change: watchfiles.Change, path: str) -> bool:
        return self.relative(path) is not None

    def _run(self) -> None:
        try:
            for changes in watchfiles.watch(
                self.root,
                watch_filter=self._accepts,
                stop_event=self._stop,
                debounce=50,  # ms of quiet before a batch is reported
                step=10,
                raise_interrupt=False,
            ):
                paths = {p for _, path in changes if (p := self.relative(path)) is not None}
                if paths:
                    self.on_change(paths)
        except Exception as error:
            if not self._stop.is_set():
                log.warning("stopped watching %s: %s", self.root, error)
