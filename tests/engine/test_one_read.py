"""A request reads one snapshot: one revision, one set of settings, one vector state; and a
takeover from another process never hands a request a closed engine."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from memlsp.engine.engine import Engine, EngineClosed
from memlsp.live.vault import LiveVault
from memlsp.model import SearchRequest
from memlsp.settings.table import Settings

NOTES = {
    "hub.md": "# Hub\n\nThe okapi lives in the forest. See [[leaf]].\n",
    "leaf.md": "# Leaf\n\nA leaf of the okapi tree.\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    for path, text in NOTES.items():
        (root / path).write_text(text, encoding="utf-8")
    return root


def _settings(tmp_path: Path) -> Settings:
    return Settings(cache_dir=tmp_path / "cache", embedder="none")


def _keyword(query: str) -> SearchRequest:
    return SearchRequest(query, mode="keyword", expand=False)


def _paths(hits: Any) -> list[str]:
    return sorted(hit.chunk.path for hit in hits)


def _until(check: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the state waited for never came"
        time.sleep(0.02)


def test_a_snapshot_keeps_its_revision_and_settings_whatever_comes_after(
    vault: Path, tmp_path: Path
) -> None:
    engine = Engine.open(vault, _settings(tmp_path))
    try:
        engine.refresh()
        held = engine.read()
        engine.apply_text("new.md", "# New\n\nokapi again\n")
        engine.use_settings(replace(held.settings, symbol_limit=7, min_strength=0.0))
        now = engine.read()
        assert now.revision > held.revision
        assert (held.settings.symbol_limit, now.settings.symbol_limit) == (100, 7)
        assert held.counts() == (2, 2) and now.counts() == (3, 3)
        assert _paths(held.search(_keyword("okapi")).hits) == ["hub.md", "leaf.md"]
        assert "new.md" in _paths(now.search(_keyword("okapi")).hits)
        assert held.find_note("new") is None and now.find_note("new") == "new.md"
        assert held.vectors.status.state == "off"
    finally:
        engine.close()


def test_a_closed_engine_refuses_to_be_read(vault: Path, tmp_path: Path) -> None:
    engine = Engine.open(vault, _settings(tmp_path))
    engine.refresh()
    engine.close()
    with pytest.raises(EngineClosed):
        engine.read()


def test_status_counts_the_snapshot_it_is_given(vault: Path, tmp_path: Path) -> None:
    live = LiveVault(vault, _settings(tmp_path), watch=False)
    live.start()
    try:
        assert live.wait_ready(30)
        held = live.read()
        assert held is not None
        live.buffer_changed("new.md", "# New\n\nokapi\n")
        _until(lambda: (live.read() or held).revision > held.revision)
        status = live.status(held)
        assert (status.notes, status.revision) == (2, held.revision)
        assert live.status().notes == 3
    finally:
        live.stop()
    assert live.read() is None  # a stopped vault has no engine to read


class _SlowOpen:
    """Engine.open, held at its next call until released (or failing once, if told to)."""

    def __init__(self, fail: bool = False) -> None:
        self.real = Engine.open
        self.entered = threading.Event()
        self.release = threading.Event()
        self.fail = fail

    def __call__(self, *args: Any, **options: Any) -> Engine:
        first = not self.entered.is_set()
        self.entered.set()
        if first:
            assert self.release.wait(20)
            if self.fail:
                raise OSError("the disk went away for a moment")
        return self.real(*args, **options)


@pytest.fixture
def writer_and_reader(vault: Path, tmp_path: Path) -> Iterator[tuple[LiveVault, LiveVault]]:
    """Two live vaults on one index in one process: the first writes it, the second answers
    read-only until the first stops and it takes over."""
    settings = _settings(tmp_path)
    writer = LiveVault(vault, settings, watch=False)
    writer.start()
    assert writer.wait_ready(30)
    reader = LiveVault(vault, settings, watch=False)
    reader.start()
    assert reader.wait_ready(30)
    assert reader.engine is not None and reader.engine.read_only
    try:
        yield writer, reader
    finally:
        reader.stop()
        writer.stop()


def test_a_request_during_a_takeover_is_answered_from_the_engine_still_open(
    writer_and_reader: tuple[LiveVault, LiveVault], monkeypatch: pytest.MonkeyPatch
) -> None:
    writer, reader = writer_and_reader
    before = reader.read()
    assert before is not None
    slow = _SlowOpen()
    monkeypatch.setattr(Engine, "open", slow)
    writer.stop()  # lets go of the index: the reader takes it over at its next look
    assert slow.entered.wait(20)
    old = reader.engine
    during = reader.read()  # while the new engine is still opening
    assert during is not None and reader.engine is old
    assert _paths(during.search(_keyword("okapi")).hits) == ["hub.md", "leaf.md"]
    slow.release.set()
    _until(lambda: reader.engine is not old)
    engine = reader.engine
    assert engine is not None and not engine.read_only
    # What was read before and during the takeover still answers, and so does the new engine.
    for snapshot in (before, during, reader.read()):
        assert snapshot is not None
        assert _paths(snapshot.search(_keyword("okapi")).hits) == ["hub.md", "leaf.md"]
    reader.buffer_changed("typed.md", "# Typed\n\nokapi typed here\n")
    _until(lambda: (reader.read() or before).find_note("typed") == "typed.md")


def test_a_takeover_that_cannot_open_keeps_answering_read_only(
    writer_and_reader: tuple[LiveVault, LiveVault], monkeypatch: pytest.MonkeyPatch
) -> None:
    writer, reader = writer_and_reader
    old = reader.engine
    slow = _SlowOpen(fail=True)
    monkeypatch.setattr(Engine, "open", slow)
    writer.stop()
    assert slow.entered.wait(20)
    slow.release.set()
    # The failed attempt leaves the old engine published and open; the next look succeeds.
    _until(lambda: reader.engine is not old)
    engine = reader.engine
    assert engine is not None and not engine.read_only
    assert reader.status().state == "ready"
    snapshot = reader.read()
    assert snapshot is not None
    assert _paths(snapshot.search(_keyword("okapi")).hits) == ["hub.md", "leaf.md"]


def test_reads_of_a_revision_share_its_memo_but_a_read_only_vaults_do_not(
    writer_and_reader: tuple[LiveVault, LiveVault],
) -> None:
    """What a request computed once from a revision serves the next request of that revision; a
    read-only vault sees the other process's commits without a revision of its own."""
    writer, reader = writer_and_reader
    for live, shared in ((writer, True), (reader, False)):
        first, second = live.read(), live.read()
        assert first is not None and second is not None
        assert (first.memo("key", object) is second.memo("key", object)) is shared
