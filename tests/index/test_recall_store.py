"""The recall store (index/recall.py): counts that add up across searches, threads, processes and
restarts, in the cache folder alone, and that never fail a search."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memlsp.index.recall import RECALL_FILE, RecallStore, RecallTotals
from memlsp.model import Recall

NOW = 1_800_000_000 * 1_000_000_000


def test_each_record_counts_each_path_once_and_a_new_store_reads_them(tmp_path: Path) -> None:
    store = RecallStore(tmp_path)
    assert store.record(["a.md", "b.md", "a.md"], NOW) == {
        "a.md": Recall(1, NOW),
        "b.md": Recall(1, NOW),
    }
    assert store.record(["a.md"], NOW + 5) == {"a.md": Recall(2, NOW + 5)}
    again = RecallStore(tmp_path)  # another process, or this one after a restart
    assert again.recalls(["a.md", "b.md", "c.md"]) == {
        "a.md": Recall(2, NOW + 5),
        "b.md": Recall(1, NOW),
    }
    assert again.totals() == RecallTotals(notes=2, recalls=3, last_ns=NOW + 5)
    assert again.recalled_since(NOW + 1) == {"a.md": Recall(2, NOW + 5)}


def test_an_earlier_clock_never_moves_the_last_recall_back(tmp_path: Path) -> None:
    store = RecallStore(tmp_path)
    store.record(["a.md"], NOW)
    assert store.record(["a.md"], NOW - 10) == {"a.md": Recall(2, NOW)}


def test_reading_a_store_never_written_creates_nothing(tmp_path: Path) -> None:
    store = RecallStore(tmp_path / "cache")
    assert store.recalls(["a.md"]) == {}
    assert store.totals() == RecallTotals()
    assert store.recalled_since(0) == {}
    assert not (tmp_path / "cache").exists()


def test_the_store_is_in_wal_mode(tmp_path: Path) -> None:
    RecallStore(tmp_path).record(["a.md"], NOW)
    with sqlite3.connect(tmp_path / RECALL_FILE) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_many_paths_at_once(tmp_path: Path) -> None:
    paths = [f"n/{number}.md" for number in range(1_234)]  # more than one `IN (...)` holds
    found = RecallStore(tmp_path).record(paths, NOW)
    assert len(found) == 1_234 and set(found.values()) == {Recall(1, NOW)}


def test_threads_adding_at_once_lose_no_count(tmp_path: Path) -> None:
    store = RecallStore(tmp_path)

    def search() -> None:
        for _ in range(25):
            store.record(["shared.md"], NOW)

    threads = [threading.Thread(target=search) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.recalls(["shared.md"])["shared.md"].recall_count == 100


ADDER = """
import sys
from pathlib import Path
from memlsp.index.recall import RecallStore
store = RecallStore(Path(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    store.record(["shared.md", sys.argv[3]], 1)
"""


@pytest.mark.e2e
def test_processes_adding_at_once_lose_no_count(tmp_path: Path) -> None:
    """A language server, `memlsp serve` and a command line answering read-only all add to the
    same file: that is how a process that does not write the index hands its counts on."""
    adders = [
        subprocess.Popen([sys.executable, "-c", ADDER, str(tmp_path), "60", f"own{number}.md"])
        for number in range(3)
    ]
    assert [adder.wait(timeout=120) for adder in adders] == [0, 0, 0]
    found = RecallStore(tmp_path).recalls(["shared.md", "own0.md", "own1.md", "own2.md"])
    assert {path: recall.recall_count for path, recall in found.items()} == {
        "shared.md": 180,
        "own0.md": 60,
        "own1.md": 60,
        "own2.md": 60,
    }


def test_a_broken_store_is_said_and_never_fails_a_search(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / RECALL_FILE).write_bytes(b"not a database, " * 100)
    store = RecallStore(tmp_path)
    with caplog.at_level(logging.WARNING):
        assert store.record(["a.md"], NOW) == {}
        assert store.recalls(["a.md"]) == {}
        assert store.totals() == RecallTotals()
    assert "recall counts not written" in caplog.text
    assert "recall counts not read" in caplog.text
