"""What the benchmark scripts share: where the repo is, how to run memlsp, where to work."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
# Run as scripts, the benchmarks see only their own folder: the repository comes last on the path
# for what they share with the tests (tests.helpers), after any memlsp already installed.
if str(REPO_ROOT) not in sys.path:
    sys.path.append(str(REPO_ROOT))


# The checkout whose memlsp the benchmarks run: this one, unless a comparison of two checkouts
# (bench_quality.py) points it at the other for a while.
code_root = REPO_ROOT


def child_env() -> dict[str, str]:
    """The environment for `python -m memlsp`, with the repo importable even if not installed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code_root), env.get("PYTHONPATH")]))
    # Each measurement is of the process it starts: no `memlsp serve` answering for it, nor one
    # left running after it (the daemon's own figures are in docs/cli.md).
    env["MEMLSP_NO_DAEMON"] = "1"
    return env


@contextmanager
def work_dir(keep: Path | None, prefix: str) -> Iterator[tuple[Path, bool]]:
    """A work folder (with `vault/` and `cache/` inside) and whether it is temporary; a temporary
    one is deleted afterwards, a `--keep` one is kept, and used again by the next run given it
    (its index and vectors are then reused: only what changed is indexed)."""
    if keep is None:
        base = Path(tempfile.mkdtemp(prefix=prefix))
        try:
            yield base, True
        finally:
            shutil.rmtree(base, ignore_errors=True)
        return
    marker = keep / ".memlsp-benchmark"
    for sub in ("vault", "cache"):
        if not marker.exists() and (keep / sub).exists() and any((keep / sub).iterdir()):
            sys.exit(f"{keep / sub} is not empty; give --keep an empty or new folder")
    keep.mkdir(parents=True, exist_ok=True)
    marker.touch()
    yield keep, False


def memlsp(*args: str | Path) -> tuple[float, str]:
    """Run `python -m memlsp ARGS`; (seconds, stdout). Exits with its stderr if it fails."""
    command = [sys.executable, "-m", "memlsp", *map(str, args)]
    started = time.perf_counter()
    # From the checkout's own folder: `python -m` reads the current folder first, before the path.
    done = subprocess.run(
        command, capture_output=True, text=True, env=child_env(), cwd=code_root, check=False
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"`memlsp {args[0]}` failed (exit {done.returncode}):\n{done.stderr.strip()}")
    return seconds, done.stdout


def batch_search(
    vault: Path, cache: Path, queries: Path, mode: str, embedder: str, limit: int
) -> tuple[float, dict[str, list[str]], list[str]]:
    """One `memlsp search --queries` run: (seconds, {query id: [paths, best first]}, errors)."""
    seconds, results, errors = batch_results(vault, cache, queries, mode, limit, embedder)
    run = {qid: [str(r.get("path", "")) for r in found] for qid, found in results.items()}
    return seconds, run, errors


# The evidence a dump keeps of each result: enough to replay a fusion from the two sides' ranks
# and scores without running the search again.
DUMP_FIELDS = (
    "path", "start_line", "score", "keyword_score", "keyword_rank", "vector_score", "vector_rank",
)  # fmt: skip


def batch_answers(
    vault: Path,
    cache: Path,
    queries: Path,
    mode: str,
    limit: int,
    embedder: str | None = None,
    *flags: str,
) -> tuple[float, dict[str, dict[str, Any]], list[str]]:
    """One `memlsp search --queries` run: (seconds, {query id: its whole JSON answer}, errors and
    warnings). With no embedder the CLI's default is used, as a user runs it; `flags` are more
    of the command's own. The mode "rrf" is the hybrid with reciprocal rank fusion. Searches are
    `--no-recall`: a benchmark must not train the ranking it measures (`recall_weight`)."""
    chosen = ("--embedder", embedder) if embedder else ()
    if mode == "rrf":
        mode, flags = "hybrid", (*flags, "--fusion", "rrf")
    seconds, output = memlsp(
        "search", vault, "--queries", queries, "--json", "--limit", str(limit), "--no-expand",
        "--mode", mode, *chosen, *flags, "--cache-dir", cache, "--no-recall",
    )  # fmt: skip
    answers: dict[str, dict[str, Any]] = {}
    errors: list[str] = []
    for line in output.splitlines():
        if not line.strip():
            continue
        answer = json.loads(line)
        qid = str(answer.get("id"))
        if "error" in answer:
            errors.append(f"{qid}: {answer['error']}")
            continue
        answers[qid] = answer
        errors.extend(f"{qid}: {w}" for w in answer.get("warnings", []))
    return seconds, answers, errors


def batch_results(
    vault: Path,
    cache: Path,
    queries: Path,
    mode: str,
    limit: int,
    embedder: str | None = None,
) -> tuple[float, dict[str, list[dict[str, object]]], list[str]]:
    """As `batch_answers`, each answer cut to its results (best first)."""
    seconds, answers, errors = batch_answers(vault, cache, queries, mode, limit, embedder)
    return seconds, {qid: list(a.get("results", [])) for qid, a in answers.items()}, errors


def result_paths(run: dict[str, list[dict[str, object]]]) -> dict[str, list[str]]:
    """{query id: [result paths, best first]}, chunks of one note repeated as they come."""
    return {qid: [str(r.get("path", "")) for r in results] for qid, results in run.items()}


def dump_results(results: list[dict[str, object]]) -> list[dict[str, object]]:
    """The results in order, each cut to the fields of `DUMP_FIELDS`."""
    return [{name: result.get(name) for name in DUMP_FIELDS} for result in results]


def write_dump(path: Path, records: list[dict[str, object]]) -> None:
    """A JSON array with one query's record per line, so it reads as JSON and greps as lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = (json.dumps(record, ensure_ascii=False) for record in records)
    path.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    print(f"dump: {len(records)} queries written to {path}")
