"""Speed and memory of memlsp on a synthetic vault.

    python benchmarks/bench_speed.py [--notes 10000] [--keep DIR] [--skip-vectors]

Generates a vault (benchmarks/synthetic_vault.py) and a cache folder in a temporary directory (or
in DIR, kept afterwards), then measures, keyword-only (`--embedder none`, so the figures compare
with those from before semantic search): a cold `memlsp index`, a warm `memlsp search` on the
unchanged vault, one-note re-index and keyword search latency through the engine API, and peak
memory.

Then, with the default embedder (bilingual, offline models from wheels), unless --skip-vectors:
embedding the whole vault (`memlsp index` into a second cache folder: wall time, the time spent
embedding, chunks embedded, chunks/s, peak memory); hybrid search latency through the engine API,
query embedding included, after one warm-up query, and the query embedding alone; and keyword
search latency while a backfill (`memlsp.engine.backfill.Backfill` on another thread) fills the
keyword-only cache with vectors, against the idle keyword figure.

Prints a table with the bars from the issue; always exits 0 once the figures are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from argparse import Namespace
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import synthetic_vault
from common import BENCH_DIR, REPO_ROOT, child_env, work_dir

if TYPE_CHECKING:
    from memlsp.engine.engine import Engine
    from memlsp.model import SearchResponse

WARM_QUERY = "retrieval ranking"
CHINESE_QUERY_SHARE = 0.15
RSS_BAR_MIB = 300.0
VECTOR_RSS_BAR_MIB = 600.0  # with the default embedder's models loaded
KEYWORD_ONLY = ("--embedder", "none")  # the keyword-only runs, comparable with the old figures
# Keyword search is "unchanged" by a running backfill when its p50 stays within this factor of
# the idle p50 (the keyword figure measured without vectors); p95 is shown, not judged.
BACKFILL_SLOWDOWN = 1.5
BACKFILL_START_TIMEOUT = 300.0  # seconds to wait for the backfill's first vectors (model loading)


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


def rss_row(name: str, mib: float, bar: float = RSS_BAR_MIB) -> Row:
    return Row(name, f"{mib:.0f} MiB", f"≤ {bar:.0f} MB", judge(mib, bar))


@dataclass(frozen=True)
class Spread:
    """Median and 95th percentile of some latencies, in ms."""

    p50: float
    p95: float

    @classmethod
    def of(cls, ms: Sequence[float]) -> Spread:
        return cls(percentile(ms, 0.5), percentile(ms, 0.95))


# -- the measurements ------------------------------------------------------------------------------


def tree_rows(name: str, children: Sequence[Child], bar: float = RSS_BAR_MIB) -> list[Row]:
    sampled = [c.tree_pss_mib for c in children if c.tree_pss_mib is not None]
    return [rss_row(name, max(sampled), bar)] if sampled else []


def cold_index(vault: Path, cache: Path) -> tuple[list[Row], Child]:
    child = checked(
        run_child(memlsp("index", vault, "--cache-dir", cache, *KEYWORD_ONLY)), "memlsp index"
    )
    rows = [
        Row("cold index: wall time", f"{child.seconds:.2f} s", "≤ 10 s", judge(child.seconds, 10)),
        rss_row("cold index: peak RSS (largest process)", child.max_rss_mib),
        *tree_rows("cold index: peak summed PSS of its process tree", [child]),
    ]
    return rows, child


def warm_search(vault: Path, cache: Path, runs: int) -> tuple[list[Row], int]:
    children = [
        checked(
            run_child(
                memlsp(
                    "search",
                    vault,
                    WARM_QUERY,
                    "--cache-dir",
                    cache,
                    "--json",
                    "--no-recall",
                    *KEYWORD_ONLY,
                )
            ),
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
        response = engine.read().search(SearchRequest(query=marker, limit=3))
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


def search_latency(
    engine: Engine, queries: Sequence[str], expand: bool = True, mode: str = "keyword"
) -> tuple[list[float], list[SearchResponse]]:
    """Milliseconds per `engine.search` (limit 10), and the responses."""
    from memlsp.model import SearchRequest

    times, responses = [], []
    for query in queries:
        request = SearchRequest(query=query, limit=10, expand=expand, mode=mode)
        started = time.perf_counter()
        responses.append(engine.read().search(request))
        times.append((time.perf_counter() - started) * 1000)
    return times, responses


def keyword_latency(
    engine: Engine, queries: Sequence[str], expand: bool
) -> tuple[list[float], int]:
    times, responses = search_latency(engine, queries, expand)
    return times, sum(not response.hits for response in responses)


def search_rows(engine: Engine, count: int, seed: int) -> tuple[list[Row], str, Spread]:
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
    return rows, f"{empty}/{count} queries returned no results", Spread.of(times)


def first_queries(engine: Engine) -> Row:
    first, _ = keyword_latency(engine, [WARM_QUERY], expand=True)
    chinese, _ = keyword_latency(engine, ["知识管理"], expand=True)
    return Row(
        "keyword search: first query / first Chinese query", f"{first[0]:.1f} / {chinese[0]:.1f} ms"
    )


def use_repo() -> None:
    """Make this checkout's memlsp importable in this process."""
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))


def in_process(
    vault: Path, cache: Path, edits: int, queries: int, seed: int
) -> tuple[list[Row], list[str], Spread]:
    """Keyword-only steps; also returns the keyword latency (with link expansion) they measured."""
    use_repo()
    from memlsp.engine.engine import Engine
    from memlsp.settings.table import Settings

    started = time.perf_counter()
    engine = Engine.open(vault, Settings(cache_dir=cache, embedder="none"))
    opened = time.perf_counter() - started
    try:
        refresh = timed(engine.refresh)
        opening = f"{opened * 1000:.0f} ms + {refresh * 1000:.0f} ms"
        rows = [Row("in-process: open + refresh of the unchanged vault", opening)]
        rows.append(first_queries(engine))
        edit_rows, edit_note = reindex_one_note(engine, vault, edits, seed)
        query_rows, query_note, idle = search_rows(engine, queries, seed)
    finally:
        engine.close()
    peak = rss_mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    rows += [
        *edit_rows,
        *query_rows,
        rss_row("peak RSS of this process after the in-process steps", peak),
    ]
    return rows, [edit_note, query_note], idle


# -- with the default embedder ---------------------------------------------------------------------

VECTORS_LINE = re.compile(r"^vectors: (\d+) chunks by (\S+), (\d+) pending$", re.MULTILINE)
# memlsp index's own account of its embedding (models loaded included), e.g.
# "embedding: 30057 chunks in 836.93 s (35.9 chunks/s, models loaded included)".
EMBEDDING_LINE = re.compile(r"^embedding: (\d+) chunks in ([\d.]+) s", re.M)


def embed_vault(vault: Path, cache: Path) -> tuple[list[Row], str, bool]:
    """`memlsp index` with the default embedder into an empty cache folder: it indexes the vault
    again, then embeds every chunk through memlsp's own backfill. The embedding time is what
    `memlsp index` reports for it (loading the models included). Returns the rows, what memlsp
    said, and whether the vectors are ready."""
    child = checked(
        run_child(memlsp("index", vault, "--cache-dir", cache)), "memlsp index (default embedder)"
    )
    said = child.stdout.strip()
    rows = [Row("embed the vault: `memlsp index` wall time", f"{child.seconds:.2f} s")]
    vectors = VECTORS_LINE.search(child.stdout)
    if vectors is not None:
        stored, pending = int(vectors.group(1)), int(vectors.group(3))
        reported = EMBEDDING_LINE.search(child.stdout)
        embedding = float(reported.group(2)) if reported else 0.0
        rows += [
            Row("embed the vault: time spent embedding", f"{embedding:.2f} s"),
            Row(
                "embed the vault: chunks embedded / throughput",
                f"{stored} ({pending} pending), {stored / max(embedding, 1e-9):.0f} chunks/s",
            ),
        ]
    rows += [
        rss_row(
            "embed the vault: peak RSS (largest process)", child.max_rss_mib, VECTOR_RSS_BAR_MIB
        ),
        *tree_rows("embed the vault: peak summed PSS of its tree", [child], VECTOR_RSS_BAR_MIB),
    ]
    return rows, said, vectors is not None and int(vectors.group(1)) > 0


def hybrid_rows(vault: Path, cache: Path, queries: Sequence[str]) -> tuple[list[Row], list[str]]:
    """Hybrid search end to end (query embedding, Chroma, fusion, expansion) on the embedded
    cache, after one warm-up query that loads the models; then the query embedding alone."""
    from memlsp.engine.backfill import Backfill
    from memlsp.engine.engine import Engine
    from memlsp.parse.tokens import has_cjk
    from memlsp.settings.table import Settings

    engine = Engine.open(vault, Settings(cache_dir=cache))  # the default embedder
    try:
        engine.refresh()
        first, _ = search_latency(engine, [WARM_QUERY], mode="hybrid")
        status = Backfill(engine).plan()  # compares the store with the index: all embedded?
        embedder = engine.vector_side.embedder
        if status.state != "ready" or embedder is None:
            problem = status.problem or status.state
            return [Row("hybrid search", f"vectors unavailable: {problem}")], []
        times, responses = search_latency(engine, queries, mode="hybrid")
        embedding = [timed(partial(embedder.embed_query, query)) * 1000 for query in queries]
    finally:
        engine.close()
    whole, alone = Spread.of(times), Spread.of(embedding)
    chinese = [ms for ms, query in zip(times, queries, strict=True) if has_cjk(query)]
    rows = [
        Row("hybrid search: first query (loads the models)", f"{first[0]:.0f} ms"),
        Row(
            f"hybrid search incl. query embedding: p50 ({len(queries)} queries)",
            f"{whole.p50:.2f} ms",
            "≤ 30 ms",
            judge(whole.p50, 30),
        ),
        Row("hybrid search: p95", f"{whole.p95:.2f} ms", "≤ 80 ms", judge(whole.p95, 80)),
    ]
    if chinese:
        share = Spread.of(chinese)
        rows.append(
            Row(
                f"hybrid search, the {len(chinese)} Chinese queries: p50 / p95",
                f"{share.p50:.2f} / {share.p95:.2f} ms",
            )
        )
    rows += [
        Row("query embedding alone: p50", f"{alone.p50:.2f} ms", "≤ 10 ms", judge(alone.p50, 10)),
        Row("query embedding alone: p95", f"{alone.p95:.2f} ms", "≤ 10 ms", judge(alone.p95, 10)),
    ]
    keyword_only = sum(not response.counts.hybrid for response in responses)
    warnings = sorted({w for response in responses for w in response.warnings})
    notes = [
        f"hybrid: {sum(not r.hits for r in responses)}/{len(queries)} queries returned no "
        f"results, {keyword_only} were answered without the vector side",
        *(f"hybrid warning: {warning}" for warning in warnings),
    ]
    return rows, notes


class BackgroundBackfill:
    """memlsp's own backfill (`memlsp.engine.backfill.Backfill`, as the language server runs it) on a
    thread of its own, until stopped or until nothing is left to embed."""

    def __init__(self, engine: Engine) -> None:
        from memlsp.engine.backfill import Backfill

        self.backfill = Backfill(engine)
        self.running = threading.Event()  # the first vectors are stored: the models are loaded
        self.done = threading.Event()  # the loop has ended
        self.failure: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="backfill", daemon=True)

    @property
    def embedded(self) -> int:
        return self.backfill.embedded

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                last = self.backfill.run(self._stop, progress=lambda _: self.running.set())
                if last.done:
                    return
                self._stop.wait(0.05)  # still connecting, or unavailable until its retry
        except BaseException as error:  # reported by the caller; never left unseen
            self.failure = error
        finally:
            self.done.set()

    def start(self) -> bool:
        """Start, and wait until the backfill really embeds; False if it never does."""
        self._thread.start()
        deadline = time.monotonic() + BACKFILL_START_TIMEOUT
        while not self.running.wait(0.1):
            if self.done.is_set() or time.monotonic() > deadline:
                return False
        return True

    def stop(self) -> None:
        """Ask the loop to end and wait for the batch in hand (at most one step)."""
        self._stop.set()
        if self._thread.ident is not None:  # it was started
            self._thread.join()


def backfill_rows(
    vault: Path, cache: Path, queries: Sequence[str], idle: Spread
) -> tuple[list[Row], list[str]]:
    """Keyword-mode search while a backfill embeds the keyword-only cache `cache` (a fresh engine
    with the default embedder on it finds every chunk pending), against the idle figure; the same
    queries on this engine just before the backfill starts are shown too, as a same-moment check
    of how busy the machine is."""
    from memlsp.engine.engine import Engine
    from memlsp.settings.table import Settings

    engine = Engine.open(vault, Settings(cache_dir=cache))  # the default embedder
    backfill = BackgroundBackfill(engine)
    try:
        engine.refresh()
        search_latency(engine, [WARM_QUERY])  # warm-up, as the idle figure had before it
        quiet = Spread.of(search_latency(engine, queries)[0])
        if not backfill.start():
            status = engine.read().vectors.status
            problem = backfill.failure or status.problem or f"{status.state}, nothing pending"
            return [Row("keyword search during a backfill", f"no backfill ran: {problem}")], []
        before = backfill.embedded
        started = time.perf_counter()
        times, _ = search_latency(engine, queries)
        seconds = time.perf_counter() - started
        during = backfill.embedded - before
        finished = backfill.done.is_set()
    finally:
        backfill.stop()
        engine.close()
    busy = Spread.of(times)
    ratio = busy.p50 / idle.p50 if idle.p50 else float("inf")
    rows = [
        Row(
            f"keyword search during a backfill: p50 ({len(queries)} queries)",
            f"{busy.p50:.2f} ms = {ratio:.2f}x idle",
            f"≤ {BACKFILL_SLOWDOWN}x idle p50",
            judge(ratio, BACKFILL_SLOWDOWN),
        ),
        Row(
            "keyword search during a backfill: p95 (idle p95)",
            f"{busy.p95:.2f} ms ({idle.p95:.2f} ms)",
        ),
        Row(
            "keyword search on that engine just before the backfill: p50 / p95",
            f"{quiet.p50:.2f} / {quiet.p95:.2f} ms",
        ),
    ]
    state = "had finished by then" if finished else "was still embedding at the end"
    notes = [
        f"backfill: {during} chunks stored (in batches of up to 16) during the {seconds:.2f} s "
        f"of keyword queries; it {state}; {backfill.embedded} stored before it was stopped",
    ]
    if backfill.failure is not None:
        notes.append(f"backfill failed: {backfill.failure!r}")
    return rows, notes


def with_vectors(
    vault: Path, cache: Path, keyword_cache: Path, idle: Spread, args: Namespace
) -> tuple[list[Row], list[str]]:
    """Every figure with the default embedder; `keyword_cache` gets vectors by the backfill."""
    use_repo()
    rows, said, ready = embed_vault(vault, cache)
    notes = [f"memlsp index with the default embedder said: {said}"]
    if not ready:
        return rows, [*notes, "no vectors: hybrid and backfill figures skipped"]
    queries = make_queries(args.queries, args.seed)
    hybrid, hybrid_notes = hybrid_rows(vault, cache, queries)
    during, backfill_notes = backfill_rows(vault, keyword_cache, queries, idle)
    peak = rss_mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    rows += [
        *hybrid,
        *during,
        rss_row("peak RSS of this process after the vector steps", peak, VECTOR_RSS_BAR_MIB),
    ]
    return rows, [*notes, *hybrid_notes, *backfill_notes]


# -- output ----------------------------------------------------------------------------------------


def table(rows: Sequence[Row]) -> str:
    name_width = max(len(r.name) for r in rows)
    value_width = max(len(r.value) for r in rows)
    bar_width = max(8, *(len(r.bar) for r in rows))
    lines = []
    for row in rows:
        verdict = "" if row.passed is None else ("PASS" if row.passed else "FAIL")
        line = (
            f"{row.name:<{name_width}}  {row.value:>{value_width}}  "
            f"{row.bar:<{bar_width}} {verdict}"
        )
        lines.append(line.rstrip())
    return "\n".join(lines)


def generate_vault(vault: Path, notes: int, seed: int) -> Child:
    """The synthetic vault, written by its own process (timed like the other children)."""
    generator = [sys.executable, str(BENCH_DIR / "synthetic_vault.py"), str(vault)]
    return checked(
        run_child([*generator, "--notes", str(notes), "--seed", str(seed)]), "vault generation"
    )


def parse_args(argv: Sequence[str] | None) -> Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    parser.add_argument("--warm-runs", type=int, default=5)
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--skip-vectors",
        action="store_true",
        help="only the keyword-only figures: no embedding, hybrid or backfill measurements",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with work_dir(args.keep, "memlsp-bench-") as (base, temporary):
        vault, cache = base / "vault", base / "cache"
        embedded = (
            base / "cache-embedded"
        )  # the default embedder's own, so `cache` stays keyword-only
        if not args.skip_vectors and embedded.exists() and any(embedded.iterdir()):
            sys.exit(f"{embedded} is not empty; give --keep an empty or new folder")
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
        rows, keyword_index = cold_index(vault, cache)
        warm, hits = warm_search(vault, cache, args.warm_runs)
        rows += warm
        measured, notes, idle = in_process(vault, cache, args.edits, args.queries, args.seed)
        rows += measured
        if not args.skip_vectors:
            # Last: it loads the models into this process, and the backfill fills `cache`.
            vector_rows, vector_notes = with_vectors(vault, embedded, cache, idle, args)
            rows += vector_rows
            notes += vector_notes
        print(table(rows))
        print(f"\nmemlsp index said: {keyword_index.stdout.strip()}")
        print(f"warm query {WARM_QUERY!r} returned {hits} results")
        print("\n".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
