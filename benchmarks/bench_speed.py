"""Speed and memory of memlsp on a synthetic vault.

    python benchmarks/bench_speed.py [--notes 10000] [--keep DIR]

Generates a vault (benchmarks/synthetic_vault.py) and a cache folder in a temporary directory (or
in DIR, kept afterwards), then measures: a cold `memlsp index`, a warm `memlsp search` on the
unchanged vault, one-note re-index and keyword search latency through the engine API, and peak
memory. Prints a table with the bars from the issue; always exits 0 once the figures are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import synthetic_vault
from common import BENCH_DIR, REPO_ROOT, child_env, work_dir

if TYPE_CHECKING:
    from memlsp.engine import Engine

WARM_QUERY = "retrieval ranking"
CHINESE_QUERY_SHARE = 0.15
RSS_BAR_MIB = 300.0


@dataclass(frozen=True)
class Child:
    """A finished subprocess: wall time, peak RSS and output."""

    seconds: float
    max_rss_mib: float
    tree_pss_mib: float | None  # peak summed PSS of the child and its descendants, if sampled
    returncode: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Row:
    name: str
    value: str
    bar: str = ""
    passed: bool | None = None


def rss_mib(ru_maxrss: int) -> float:
    """ru_maxrss is KiB on Linux and bytes on macOS."""
    return ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else ru_maxrss / 1024


def _parent_pids() -> dict[int, int]:
    """pid -> parent pid of every process visible in /proc."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, parent in _parent_pids().items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def _pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


class TreeSampler:
    """Peak summed PSS of a process and its descendants (forked workers included), sampled
    from /proc every ``interval`` seconds. PSS splits shared pages between the processes that
    share them, so copy-on-write pages of forked workers are not counted twice."""

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def available() -> bool:
        return Path("/proc/self/smaps_rollup").is_file()

    def _run(self) -> None:
        while not self._stop.is_set():
            total = sum(_pss_kib(pid) for pid in _tree(self.pid))
            self.peak_kib = max(self.peak_kib, total)
            self._stop.wait(self.interval)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def run_child(args: Sequence[str]) -> Child:
    """Run one subprocess. Its peak RSS is os.wait4's ru_maxrss for that child (the largest
    single process among it and its descendants); its tree's summed PSS is sampled from /proc."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(list(args), stdout=out, stderr=err, env=child_env())
        tree_pss: float | None = None
        if TreeSampler.available():
            with TreeSampler(process.pid) as sampler:
                _, status, usage = os.wait4(process.pid, 0)
            tree_pss = sampler.peak_kib / 1024
        else:
            _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Child(
            seconds=seconds,
            max_rss_mib=rss_mib(usage.ru_maxrss),
            tree_pss_mib=tree_pss,
            returncode=process.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
        )


def checked(child: Child, what: str) -> Child:
    if child.returncode != 0:
        sys.exit(f"{what} failed (exit {child.returncode}):\n{child.stderr.strip()}")
    return child


def memlsp(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "memlsp", *map(str, args)]


# -- machine ---------------------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Hardware", "Processor")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def ram_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return None


def machine_lines() -> list[str]:
    ram = ram_gib()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return [
        f"CPU:    {cpu_model()}",
        f"cores:  {os.cpu_count()} ({usable} usable by this process)",
        f"RAM:    {f'{ram:.1f} GiB' if ram else 'unknown'}",
        f"Python: {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.system()} {platform.release()}",
    ]


# -- statistics ------------------------------------------------------------------------------------


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile (share in 0..1) of a non-empty sequence."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(share * len(ordered) + 0.5)))
    return ordered[rank - 1]


def judge(value: float, bar: float) -> bool:
    return value <= bar


def rss_row(name: str, mib: float) -> Row:
    return Row(name, f"{mib:.0f} MiB", f"≤ {RSS_BAR_MIB:.0f} MB", judge(mib, RSS_BAR_MIB))


# -- the measurements ------------------------------------------------------------------------------


def tree_rows(name: str, children: Sequence[Child]) -> list[Row]:
    sampled = [c.tree_pss_mib for c in children if c.tree_pss_mib is not None]
    return [rss_row(name, max(sampled))] if sampled else []


def cold_index(vault: Path, cache: Path) -> tuple[list[Row], str]:
    child = checked(run_child(memlsp("index", vault, "--cache-dir", cache)), "memlsp index")
    rows = [
        Row("cold index: wall time", f"{child.seconds:.2f} s", "≤ 10 s", judge(child.seconds, 10)),
        rss_row("cold index: peak RSS (largest process)", child.max_rss_mib),
        *tree_rows("cold index: peak summed PSS of its process tree", [child]),
    ]
    return rows, child.stdout.strip()


def warm_search(vault: Path, cache: Path, runs: int) -> tuple[list[Row], int]:
    children = [
        checked(
            run_child(memlsp("search", vault, WARM_QUERY, "--cache-dir", cache, "--json")),
            "memlsp search",
        )
        for _ in range(runs)
    ]
    hits = len(json.loads(children[-1].stdout).get("results", []))
    median = statistics.median(c.seconds for c in children)
    peak = max(c.max_rss_mib for c in children)
    return [
        Row(
            f"warm search until answer (median of {runs})",
            f"{median:.2f} s",
            "≤ 1 s",
            judge(median, 1.0),
        ),
        rss_row("warm search: peak RSS (max of runs)", peak),
        *tree_rows("warm search: peak summed PSS of its process tree", children),
    ], hits


def timed(action: Callable[[], object]) -> float:
    """Seconds taken by ``action()``."""
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def reindex_one_note(engine: Engine, vault: Path, edits: int, seed: int) -> tuple[list[Row], str]:
    from memlsp.model import SearchRequest

    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    chosen = random.Random(seed).sample(notes, min(edits, len(notes)))
    times: list[float] = []
    found = 0
    for number, rel in enumerate(chosen):
        marker = f"benchedit{number}x"
        with open(vault / rel, "a", encoding="utf-8") as handle:
            handle.write(f"\nOne more sentence about {marker} appended by the benchmark.\n")
        times.append(timed(partial(engine.refresh_paths, [rel])))
        response = engine.search(SearchRequest(query=marker, limit=3))
        found += any(hit.chunk.path == rel for hit in response.hits)
    ms = [t * 1000 for t in times]
    median = statistics.median(ms)
    rows = [
        Row(
            f"re-index one changed note: median ({len(ms)} notes)",
            f"{median:.1f} ms",
            "≤ 50 ms",
            judge(median, 50),
        ),
        Row("re-index one changed note: p90", f"{percentile(ms, 0.9):.1f} ms"),
    ]
    return rows, f"{found}/{len(chosen)} edited notes found by their new word right after refresh"


def make_queries(count: int, seed: int) -> list[str]:
    """1-4 vocabulary words with Zipf-like frequencies; some queries Chinese."""
    rng = random.Random(seed)
    chinese_content = [w for w in synthetic_vault.CHINESE_WORDS if len(w) > 1]
    queries = []
    for _ in range(count):
        size = rng.randint(1, 4)
        if rng.random() < CHINESE_QUERY_SHARE:
            words = rng.sample(chinese_content, min(size, 3))
            queries.append(("" if rng.random() < 0.5 else " ").join(words))
        else:
            queries.append(" ".join(synthetic_vault.CONTENT.draw(rng, size)))
    return queries


def keyword_latency(
    engine: Engine, queries: Sequence[str], expand: bool
) -> tuple[list[float], int]:
    from memlsp.model import SearchRequest

    times, empty = [], 0
    for query in queries:
        request = SearchRequest(query=query, limit=10, expand=expand)
        started = time.perf_counter()
        response = engine.search(request)
        times.append((time.perf_counter() - started) * 1000)
        empty += not response.hits
    return times, empty


def search_rows(engine: Engine, count: int, seed: int) -> tuple[list[Row], str]:
    queries = make_queries(count, seed)
    times, empty = keyword_latency(engine, queries, expand=True)
    plain, _ = keyword_latency(engine, queries, expand=False)
    p50 = percentile(times, 0.5)
    rows = [
        Row(
            f"keyword search: p50 ({count} queries, limit 10)",
            f"{p50:.2f} ms",
            "≤ 10 ms",
            judge(p50, 10),
        ),
        Row("keyword search: p95", f"{percentile(times, 0.95):.2f} ms"),
        Row(
            "keyword search without link expansion: p50 / p95",
            f"{percentile(plain, 0.5):.2f} / {percentile(plain, 0.95):.2f} ms",
        ),
    ]
    return rows, f"{empty}/{count} queries returned no results"


def first_queries(engine: Engine) -> Row:
    first, _ = keyword_latency(engine, [WARM_QUERY], expand=True)
    chinese, _ = keyword_latency(engine, ["知识管理"], expand=True)
    return Row(
        "keyword search: first query / first Chinese query", f"{first[0]:.1f} / {chinese[0]:.1f} ms"
    )


def in_process(
    vault: Path, cache: Path, edits: int, queries: int, seed: int
) -> tuple[list[Row], list[str]]:
    sys.path.insert(0, str(REPO_ROOT))
    from memlsp.config import Settings
    from memlsp.engine import Engine

    started = time.perf_counter()
    engine = Engine.open(vault, Settings(cache_dir=cache))
    opened = time.perf_counter() - started
    try:
        refresh = timed(engine.refresh)
        opening = f"{opened * 1000:.0f} ms + {refresh * 1000:.0f} ms"
        rows = [Row("in-process: open + refresh of the unchanged vault", opening)]
        rows.append(first_queries(engine))
        edit_rows, edit_note = reindex_one_note(engine, vault, edits, seed)
        query_rows, query_note = search_rows(engine, queries, seed)
    finally:
        engine.close()
    peak = rss_mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    rows += [
        *edit_rows,
        *query_rows,
        rss_row("peak RSS of this process after the in-process steps", peak),
    ]
    return rows, [edit_note, query_note]


# -- output ----------------------------------------------------------------------------------------


def table(rows: Sequence[Row]) -> str:
    name_width = max(len(r.name) for r in rows)
    value_width = max(len(r.value) for r in rows)
    lines = []
    for row in rows:
        verdict = "" if row.passed is None else ("PASS" if row.passed else "FAIL")
        line = f"{row.name:<{name_width}}  {row.value:>{value_width}}  {row.bar:<8} {verdict}"
        lines.append(line.rstrip())
    return "\n".join(lines)


def generate_vault(vault: Path, notes: int, seed: int) -> Child:
    """The synthetic vault, written by its own process (timed like the other children)."""
    generator = [sys.executable, str(BENCH_DIR / "synthetic_vault.py"), str(vault)]
    return checked(
        run_child([*generator, "--notes", str(notes), "--seed", str(seed)]), "vault generation"
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    parser.add_argument("--warm-runs", type=int, default=5)
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--queries", type=int, default=200)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with work_dir(args.keep, "memlsp-bench-") as (base, temporary):
        vault, cache = base / "vault", base / "cache"
        print("\n".join(machine_lines()))
        made = generate_vault(vault, args.notes, args.seed)
        print(
            f"vault:  {args.notes} synthetic notes (seed {args.seed}), generated in "
            f"{made.seconds:.1f} s{'' if temporary else f' into {vault}'}"
        )
        print(
            "memory: a subprocess's peak RSS is ru_maxrss from os.wait4() for that child (the\n"
            "  largest single process among it and its descendants); its tree's summed PSS\n"
            "  (forked workers included) is sampled from /proc every 0.1 s; this process's\n"
            "  peak RSS is getrusage(RUSAGE_SELF).ru_maxrss\n"
        )
        rows, summary = cold_index(vault, cache)
        warm, hits = warm_search(vault, cache, args.warm_runs)
        rows += warm
        measured, notes = in_process(vault, cache, args.edits, args.queries, args.seed)
        print(table(rows + measured))
        print(f"\nmemlsp index said: {summary}")
        print(f"warm query {WARM_QUERY!r} returned {hits} results")
        print("\n".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
