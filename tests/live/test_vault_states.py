"""A live vault's state as its listener sees it: `indexing` until the first scan is done, then
`ready` for good, however often the vault is scanned again."""

from __future__ import annotations

import threading
from pathlib import Path

from memlsp.live.vault import Listener, LiveVault
from memlsp.model import IndexSummary
from memlsp.settings.table import Settings
from tests.helpers.vault import TWO_NOTES, write_notes

HANG = 30.0  # seconds: a hang guard, not a timing


class Seen(Listener):
    """The vault's state and progress at each start of a scan and each `memlsp/indexed`."""

    def __init__(self) -> None:
        self.started: list[tuple[str, int, int]] = []
        self.done: list[str] = []
        self.indexed = threading.Semaphore(0)

    def indexing_started(self, vault: LiveVault) -> None:
        status = vault.status()
        self.started.append((status.state, status.files_done, status.files_total))

    def indexing_done(self, vault: LiveVault, summary: IndexSummary) -> None:
        self.done.append(vault.status().state)
        self.indexed.release()


def test_a_scan_after_the_first_leaves_the_vault_ready(tmp_path: Path) -> None:
    root = write_notes(tmp_path / "vault", TWO_NOTES)
    seen = Seen()
    settings = Settings(cache_dir=tmp_path / "cache", embedder="none")
    vault = LiveVault(root, settings, seen, watch=False)
    vault.start()
    try:
        assert seen.indexed.acquire(timeout=HANG)
        for _ in range(2):
            vault.rescan()  # as memlsp/reindex, or the watcher catching up after it started
            assert seen.indexed.acquire(timeout=HANG)
    finally:
        vault.stop()
    assert seen.started[0] == ("indexing", 0, 0)
    # The counts are the last scan's until this one reports files of its own to index.
    assert seen.started[1:] == [("ready", 2, 2), ("ready", 2, 2)], seen.started
    assert seen.done == ["ready"] * 3
