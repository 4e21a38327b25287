"""What a live vault prepares while it indexes, so that no question waits for it afterwards."""

from __future__ import annotations

import time
from pathlib import Path

from memlsp.index.dictionary import VERSION
from memlsp.live.vault import LiveVault
from memlsp.settings.table import Settings
from tests.helpers.vault import TWO_NOTES, write_notes


def test_the_bilingual_dictionary_is_built_before_any_question(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", TWO_NOTES)
    live = LiveVault(vault, Settings(cache_dir=tmp_path / "cache", embedder="none"))
    live.start()
    try:
        assert live.wait_ready(30)
        built = tmp_path / "cache" / "models" / f"cedict-{VERSION}.sqlite3"
        deadline = time.monotonic() + 60
        while not built.is_file():  # no search asked for it
            assert time.monotonic() < deadline, "the dictionary was not built"
            time.sleep(0.1)
    finally:
        live.stop()
