"""The development question sets: graded judgements read as written, every judged note exists, and
the hard Chinese set shares no word with its notes' names, as `word_overlap.py` checks it (the
last two need the real vaults in ../shared/data, and skip without them)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.paths import REPO

BENCHMARKS = REPO / "benchmarks"
VAULTS = REPO.parent / "shared" / "data" / "vaults"
needs_vaults = pytest.mark.skipif(
    not (VAULTS / "knowledge-garden").is_dir() or not (VAULTS / "vaultofknowledge").is_dir(),
    reason="the real vaults are not in ../shared/data/vaults",
)


def run_script(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *map(str, args)], cwd=REPO, capture_output=True, text=True, check=False
    )


def read_questions(path: Path) -> list[Any]:
    """`bench_vaults.read_questions`, the benchmarks' folder on the path as when run."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    bench_vaults = importlib.import_module("bench_vaults")
    return list(bench_vaults.read_questions(path))


def test_grades_are_read_and_missing_ones_are_one(tmp_path: Path) -> None:
    lines = [
        {"id": "a", "query": "q", "relevant": ["x.md", "y.md"], "grades": {"x.md": 2, "y.md": 1}},
        {"id": "b", "query": "q", "relevant": ["z.md"], "kind": "title"},
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    a, b = read_questions(path)
    assert (a.kind, a.judgements()) == ("?", {"x.md": 2, "y.md": 1})
    assert (b.kind, b.judgements()) == ("title", {"z.md": 1})


def test_grades_naming_other_notes_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    line = {"id": "a", "query": "q", "relevant": ["x.md"], "grades": {"y.md": 2}}
    path.write_text(json.dumps(line), encoding="utf-8")
    with pytest.raises(SystemExit, match="grades and relevant name different notes"):
        read_questions(path)


@needs_vaults
@pytest.mark.e2e
def test_every_judged_note_exists() -> None:
    done = run_script(BENCHMARKS / "bench_vaults.py", "--check", "--vaults", VAULTS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("every judged note exists") == 6


@needs_vaults
@pytest.mark.e2e
def test_the_hard_chinese_set_shares_no_word_with_its_notes_names() -> None:
    done = run_script(
        BENCHMARKS / "word_overlap.py",
        BENCHMARKS / "data" / "knowledge_garden_hard.jsonl",
        "--vault", VAULTS / "knowledge-garden",
        "--against", "names", "--kinds", "no-shared-name", "--strict",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    assert done.stdout.rstrip().endswith(
        "45 of 45 questions share no distinctive word with their notes"
    )
