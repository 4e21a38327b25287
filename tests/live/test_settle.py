"""A live vault answers from what is on disk now without walking it: the watcher vouches that
every change made before a question has been reported, and the question waits for those alone."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlsp.live.vault import LiveVault
from memlsp.settings.table import Settings
from memlsp.sync.scan import scan_vault
from tests.helpers.vault import TWO_NOTES, write_notes


class ScanCount:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.scans = 0

        def counted(*args: object, **kwargs: object) -> object:
            self.scans += 1
            return scan_vault(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr("memlsp.engine.writer.scan_vault", counted)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveVault]:
    vault = write_notes(tmp_path / "vault", TWO_NOTES)
    live = LiveVault(vault, Settings(cache_dir=tmp_path / "cache", embedder="none"))
    live.start()
    assert live.wait_ready(30)
    try:
        yield live
    finally:
        live.stop()


def found(live: LiveVault, path: str) -> bool:
    snapshot = live.read()
    return snapshot is not None and path in snapshot.graph.notes


def watching(live: LiveVault) -> None:
    """The watcher has vouched for the disk once (it starts a moment after the first index)."""
    deadline = time.monotonic() + 10
    while not live.settle(5):
        assert time.monotonic() < deadline


def test_a_note_written_just_before_is_found_without_a_rescan(
    live: LiveVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    watching(live)
    count = ScanCount(monkeypatch)
    for number in range(5):
        (live.root / f"n{number}.md").write_text(f"# N{number}\n\nnew{number}\n")
        assert live.settle(10)
        assert found(live, f"n{number}.md")
    (live.root / "n0.md").unlink()
    assert live.settle(10) and not found(live, "n0.md")
    assert count.scans == 0


def test_a_quiet_vault_settles_in_a_fraction_of_a_second(live: LiveVault) -> None:
    watching(live)
    started = time.monotonic()
    for _ in range(5):
        assert live.settle(10)
    assert time.monotonic() - started < 2.5  # a rescan each would be as fast here: see below


def test_what_the_watcher_cannot_vouch_for_is_found_by_a_rescan(
    live: LiveVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    watching(live)
    count = ScanCount(monkeypatch)
    assert live._watcher is not None
    live._watcher.stop()  # it vouches for nothing from now on
    (live.root / "late.md").write_text("# Late\n\nwritten while nothing watched\n")
    assert live.settle(10) and found(live, "late.md")
    assert count.scans == 1


def test_a_folder_written_in_at_once_is_found(live: LiveVault) -> None:
    watching(live)
    folder = live.root / "new" / "deep"
    folder.mkdir(parents=True)
    for number in range(3):
        (folder / f"d{number}.md").write_text(f"# D{number}\n")
    assert live.settle(10)
    assert all(found(live, f"new/deep/d{number}.md") for number in range(3))
