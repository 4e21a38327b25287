"""What a question costs, this checkout against another, side by side on the real vaults.

    python benchmarks/bench_query_cost.py --vs ../memlsp-before [--pairs 3] [--cache-dir DIR]

A change to ranking must not make searching slower: this measures, through the engine in one
process per checkout (a child process with that checkout first on `PYTHONPATH`), every question
of the development sets about knowledge-garden and vaultofknowledge, each asked `--rounds` times:
keyword-only search, hybrid search (the query's embedding included) and `[[` completion by
meaning (`Snapshot.notes_about`), p50 and p95 in milliseconds, also apart for the questions in the
vault's own language (Chinese in knowledge-garden, English in vaultofknowledge) and in the other,
and the child's peak RSS. The
vaults are indexed and embedded in `--cache-dir` first (kept; the first run embeds each vault,
minutes; the same folders as bench_quality.py's). The children run in turn, this checkout then the other, `--pairs` times; the table
shows the median of each figure over the pairs and the ratio new / old.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench_vaults import DEFAULT_VAULTS, SETS, read_questions
from common import BENCH_DIR, REPO_ROOT

VAULTS = ("knowledge-garden", "vaultofknowledge")


def child(vaults: Path, cache: Path, rounds: int) -> dict[str, float]:
    """Run in the measured checkout: its figures as one JSON line."""
    from memlsp.engine.backfill import Backfill
    from memlsp.engine.engine import Engine
    from memlsp.model import SearchRequest
    from memlsp.settings.table import Settings
    from memlsp.text import has_cjk

    timings: dict[str, list[float]] = {"keyword": [], "hybrid": [], "completion": []}
    for language in ("same", "other"):
        timings[f"keyword, {language} language"] = []
        timings[f"hybrid, {language} language"] = []
    for name in VAULTS:
        queries = [q.query for s in SETS if s.vault == name and s.queries.is_file()
                   for q in read_questions(s.queries)]  # fmt: skip
        engine = Engine.open(vaults / name, Settings(cache_dir=cache))
        engine.refresh()
        if engine.semantic:
            Backfill(engine, batch=256).run()
        snapshot = engine.read()
        for query in queries[:3]:  # load the models and jieba before timing
            snapshot.search(SearchRequest(query, mode="hybrid"))
        for _ in range(rounds):
            for query in queries:
                language = "same" if has_cjk(query) == (name == "knowledge-garden") else "other"
                for mode in ("keyword", "hybrid"):
                    started = time.perf_counter()
                    snapshot.search(SearchRequest(query, mode=mode, limit=10))
                    took = (time.perf_counter() - started) * 1000
                    timings[mode].append(took)
                    timings[f"{mode}, {language} language"].append(took)
                started = time.perf_counter()
                snapshot.notes_about(query, 10)
                timings["completion"].append((time.perf_counter() - started) * 1000)
        engine.close()
    figures = {}
    for kind, values in timings.items():
        ordered = sorted(values)
        figures[f"{kind} p50 ms"] = statistics.median(ordered)
        figures[f"{kind} p95 ms"] = ordered[int(0.95 * (len(ordered) - 1))]
    figures["peak RSS MiB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


def measure(checkout: Path, args: argparse.Namespace) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(checkout), MEMLSP_NO_DAEMON="1")
    command = [
        sys.executable, str(Path(__file__).resolve()), "--child", "--vaults", str(args.vaults),
        "--cache-dir", str(args.cache_dir / checkout.resolve().name / "vaults"),
        "--rounds", str(args.rounds),
    ]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{checkout}: the measuring process failed:\n{done.stderr[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vs", type=Path, help="the checkout to compare with")
    parser.add_argument("--vaults", type=Path, default=DEFAULT_VAULTS)
    parser.add_argument("--cache-dir", type=Path, default=BENCH_DIR / "build" / "quality")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        print(json.dumps(child(args.vaults, args.cache_dir, args.rounds)))
        return 0
    if args.vs is None or not (args.vs / "memlsp" / "__init__.py").is_file():
        sys.exit("--vs DIR: a memlsp checkout to compare with")
    runs: dict[str, list[dict[str, float]]] = {"new": [], "old": []}
    for pair in range(args.pairs):
        runs["new"].append(measure(REPO_ROOT, args))
        runs["old"].append(measure(args.vs, args))
        print(f"pair {pair + 1}: new {runs['new'][-1]}\n        old {runs['old'][-1]}", flush=True)
    print(f"\n| measure | {args.vs.name} | this checkout | new / old |")
    print("|---|---|---|---|")
    for key in runs["new"][0]:
        old = statistics.median(run[key] for run in runs["old"])
        new = statistics.median(run[key] for run in runs["new"])
        print(f"| {key} | {old:.1f} | {new:.1f} | {new / old:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
