"""Buffers an editor sends at once (an edit applied to many notes) are indexed as one revision."""

from __future__ import annotations

import time
from pathlib import Path

from memlsp.live.vault import LiveVault
from memlsp.settings.table import Settings
from tests.helpers.vault import write_notes


def test_many_buffers_at_once_are_one_revision(tmp_path: Path) -> None:
    notes = {f"n{i}.md": f"# N{i}\n\n[[hub]]\n" for i in range(100)}
    vault = write_notes(tmp_path / "vault", {**notes, "hub.md": "# Hub\n"})
    live = LiveVault(vault, Settings(cache_dir=tmp_path / "cache", embedder="none"), watch=False)
    live.start()
    try:
        assert live.wait_ready(30)
        snapshot = live.read()
        assert snapshot is not None
        before = snapshot.revision
        for path in notes:  # as a rename's edit arrives: one didOpen after another
            live.buffer_changed(path, "# N\n\n[[hub renamed]]\n")
        deadline = time.monotonic() + 10
        while (snapshot := live.read()) is not None and len(snapshot.buffers) < len(notes):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert snapshot is not None
        assert snapshot.revision - before <= 2  # not one per note
        assert snapshot.graph.inlink_sources("hub.md") == []
    finally:
        live.stop()
