"""The vault watcher against the real file system (inotify through watchfiles)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

from memlsp.config import Settings
from memlsp.sync.watcher import VaultWatcher


class Recorder:
    def __init__(self) -> None:
        self.paths: set[str] = set()
        self.rescans = 0
        self.event = threading.Event()

    def changed(self, paths: set[str]) -> None:
        self.paths |= paths
        self.event.set()

    def rescan(self) -> None:
        self.rescans += 1
        self.event.set()

    def wait(self, check: object, again: Callable[[], object] | None = None) -> bool:
        """Up to 10 s, woken by every callback. `again` is redone every second: the watcher
        starts watching a moment after `start()`, later on a loaded machine."""
        for tick in range(100):
            if callable(check) and check():
                return True
            if again is not None and tick % 10 == 9:
                again()
            self.event.wait(0.1)
            self.event.clear()
        return False


def test_reports_notes_skips_dot_folders_and_survives_the_folder_being_replaced(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    seen = Recorder()
    watcher = VaultWatcher(vault, Settings(), seen.changed, on_rescan=seen.rescan)
    watcher.start()
    try:
        (vault / ".obsidian" / "workspace.json").write_text("{}")
        write_a = partial((vault / "a.md").write_text, "# A\n")
        write_a()
        assert seen.wait(lambda: "a.md" in seen.paths, again=write_a)
        assert not any(path.startswith(".obsidian") for path in seen.paths)

        shutil.rmtree(vault)  # e.g. a branch switch or a re-clone
        vault.mkdir()
        assert seen.wait(lambda: seen.rescans == 1)
        seen.paths.clear()
        write_b = partial((vault / "b.md").write_text, "# B\n")
        write_b()
        assert seen.wait(lambda: "b.md" in seen.paths, again=write_b)
    finally:
        watcher.stop()
