"""What a live vault prepares while it indexes, so that no question waits for it afterwards."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memlsp.index.dictionary import VERSION
from memlsp.live.vault import LiveVault
from memlsp.queries import mentions
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


def test_the_names_mentions_are_found_by_are_ready_before_the_vault_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[int] = []
    build = mentions._build

    def counted(graph: object, min_length: int) -> object:
        built.append(min_length)
        return build(graph, min_length)  # type: ignore[arg-type]

    monkeypatch.setattr(mentions, "_build", counted)
    vault = write_notes(tmp_path / "vault", TWO_NOTES)
    live = LiveVault(vault, Settings(cache_dir=tmp_path / "cache", embedder="none"))
    live.start()
    try:
        assert live.wait_ready(30)
        assert len(built) == 1  # before `memlsp/indexed`
        snapshot = live.read()
        assert snapshot is not None
        mentions.names_of(snapshot.view, snapshot.settings.mention_min_length)
        assert len(built) == 1  # the first note opened builds nothing
    finally:
        live.stop()
