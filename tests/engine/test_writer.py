"""The vault's one writer: a plain lock taken once per operation, and open buffers that are
notes of the vault whether or not their file exists yet."""

from __future__ import annotations

import threading
from pathlib import Path

from memlsp.engine.engine import Engine
from memlsp.model import SearchRequest
from memlsp.settings.table import Settings


class _CountingLock:
    """A plain lock that counts how often it is taken; taking it again while held fails."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.taken = 0

    def __enter__(self) -> None:
        assert self._lock.acquire(blocking=False), "the writer's lock was taken again"
        self.taken += 1

    def __exit__(self, *_: object) -> None:
        self._lock.release()


def _engine(tmp_path: Path) -> Engine:
    vault = tmp_path / "vault"
    (vault / "a").mkdir(parents=True)
    (vault / "a" / "one.md").write_text("# One\n\nfirst okapi [[two]]\n", encoding="utf-8")
    engine = Engine.open(vault, Settings(cache_dir=tmp_path / "cache", embedder="none"))
    engine.refresh()
    return engine


def test_the_writer_takes_its_plain_lock_once_per_operation(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    try:
        writer = engine.writer
        assert type(writer._lock) is type(threading.Lock())  # not re-entrant
        counting = _CountingLock()
        writer._lock = counting  # type: ignore[assignment]
        (engine.root / "a" / "two.md").write_text("# Two\n\nsecond\n", encoding="utf-8")
        engine.refresh_paths(["a/two.md"])
        engine.apply_text("a/one.md", "# One\n\nedited okapi\n")
        engine.release_text("a/one.md")
        engine.refresh()
        engine.save_manifest()
        assert counting.taken == 5
    finally:
        engine.close()


def test_an_open_note_never_saved_stays_when_its_folder_appears_on_disk(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    try:
        engine.apply_text("x/z/e.md", "# E\n\ntoki pona\n")  # no such file or folder
        engine.apply_text("a/one.md", "# One\n\nsee [[e]]\n")
        (engine.root / "x").mkdir()
        (engine.root / "x" / "d.md").write_text("# D\n\nanother program\n", encoding="utf-8")
        # The watcher reports the new folder by its own path; the live vault then rescans.
        engine.refresh_paths(["x"])
        engine.refresh()
        snapshot = engine.read()
        hits = snapshot.search(SearchRequest("toki", mode="keyword", expand=False)).hits
        assert [hit.chunk.path for hit in hits] == ["x/z/e.md"]
        [link] = snapshot.links("a/one.md").outlinks
        assert link.resolution.targets == ("x/z/e.md",)
        assert snapshot.find_note("d") == "x/d.md"
    finally:
        engine.close()


def test_an_open_note_whose_file_is_deleted_leaves_and_comes_back(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    try:
        engine.apply_text("a/one.md", "# One\n\nbuffered okapi\n")
        (engine.root / "a" / "one.md").unlink()
        engine.refresh_paths(["a/one.md"])
        assert engine.read().find_note("one") is None  # no ghost of a file that went away
        (engine.root / "a" / "one.md").write_text("# One\n\nsaved\n", encoding="utf-8")
        engine.refresh_paths(["a/one.md"])
        snapshot = engine.read()
        assert snapshot.find_note("one") == "a/one.md"
        assert snapshot.read("a/one.md") == "# One\n\nbuffered okapi\n"  # the buffer wins
    finally:
        engine.close()


def test_an_open_note_whose_file_went_unreported_leaves_at_the_next_scan(tmp_path: Path) -> None:
    """A watcher that starts over (a new folder, a failed watch) reports nothing of what
    happened meanwhile; the rescan after it still sees an open note's file come and go."""
    engine = _engine(tmp_path)
    try:
        engine.apply_text("a/one.md", "# One\n\nbuffered okapi\n")
        (engine.root / "a" / "one.md").unlink()
        engine.refresh()
        assert engine.read().find_note("one") is None
        (engine.root / "a" / "one.md").write_text("# One\n\nsaved\n", encoding="utf-8")
        engine.refresh()
        assert engine.read().find_note("one") == "a/one.md"
    finally:
        engine.close()
