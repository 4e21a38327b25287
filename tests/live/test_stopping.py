"""A live vault stops whole: stopped while it opens, it leaves no thread behind."""

from __future__ import annotations

from pathlib import Path

from memlsp.live.vault import LiveVault
from memlsp.settings.table import Settings
from tests.helpers.vault import TWO_NOTES, live_threads, write_notes


def test_a_vault_stopped_while_it_opens_leaves_no_watcher(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "stopped-early", TWO_NOTES)
    for _ in range(3):  # the watcher starts once the index is open: stopped before, then after
        live = LiveVault(vault, Settings(cache_dir=tmp_path / "cache", embedder="none"))
        live.start()
        live.stop()
        assert live_threads(vault) == []
        assert live.read() is None and live.state == "stopped"


def test_stop_before_start_and_twice(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "never", TWO_NOTES)
    live = LiveVault(vault, Settings(cache_dir=tmp_path / "cache", embedder="none"))
    live.stop()  # a vault reopened before it had started
    live.stop()
    assert live_threads(vault) == [] and live.state == "stopped"
