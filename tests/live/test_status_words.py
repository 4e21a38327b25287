"""What a person reads about a vault (`VaultStatus.summary`, `busy`): plain words, one count."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memlsp.index.semantic import VectorStatus
from memlsp.live.status import EmbeddingPace, VaultStatus

BASE = VaultStatus("/notes/kg", "ready", 3177, 7181, 14, 3177, 3177, 0)


def vectors(state: str, stored: int = 0, pending: int = 0, problem: str = "") -> VectorStatus:
    return VectorStatus(state, "bilingual", stored, pending, problem)


@pytest.mark.parametrize(
    ("status", "summary", "busy"),
    [
        (replace(BASE, state="opening", files_done=0, files_total=0), "Opening", True),
        (
            replace(BASE, state="opening", message="waiting for another memlsp process"),
            "Waiting for another memlsp process",
            True,
        ),
        (
            replace(BASE, state="indexing", files_done=0, files_total=0),
            "Looking for changed notes",
            True,
        ),
        (
            replace(BASE, state="indexing", files_done=2000, files_total=3177),
            "Indexing 2,000 of 3,177 notes",
            True,
        ),
        (BASE, "Ready: 3,177 notes", False),
        (replace(BASE, vectors=vectors("off")), "Ready: 3,177 notes", False),
        (
            replace(BASE, vectors=vectors("connecting")),
            "Ready: 3,177 notes; starting semantic search",
            True,
        ),
        (
            replace(BASE, vectors=vectors("ready", 4912, 2269)),
            "Finding meaning: 4,912 of 7,181 sections",
            True,
        ),
        (replace(BASE, vectors=vectors("ready", 7181, 0)), "Ready: 3,177 notes", False),
        (
            replace(BASE, vectors=vectors("unavailable", 0, 7181, "no model")),
            "Ready, keyword search only: no model",
            False,
        ),
        (
            replace(BASE, read_only=True, vectors=vectors("ready", 10, 7171)),
            "Ready: 3,177 notes, read-only (another memlsp process keeps this vault's index)",
            False,
        ),
        (replace(BASE, state="failed", message="disk full"), "Not indexed: disk full", False),
    ],
)
def test_summary_and_busy(status: VaultStatus, summary: str, busy: bool) -> None:
    assert (status.summary, status.busy) == (summary, busy)
    assert status.name == "kg"
    for jargon in ("revision", "pending", "chunks", "0/0"):
        assert jargon not in status.summary


def test_the_embedding_pace_is_timed_from_its_first_step_to_its_last() -> None:
    pace = EmbeddingPace().after(16, False, 100.0)
    assert (pace.running, pace.rate) == (True, None)  # one step tells no rate
    pace = pace.after(16, False, 101.0).after(0, False, 101.5).after(16, False, 102.0)
    assert pace.rate == 16.0
    assert pace.after(0, True, 103.0) == EmbeddingPace()  # caught up: nothing running
