"""How long `memlsp status VAULT --json` takes when no process has the vault open: the command
line opens the index read-only, indexes nothing and loads no model (bar: 1 s wall time).

The vault is indexed first when it has no index in the cache folder (`--embedder none` unless
`--embedder` says otherwise); then `--runs` status commands run one after the other, each a
subprocess as a user's shell runs it (it looks for a server on the vault's socket first, and finds
none). Each run's wall time and peak RSS (`ru_maxrss` from `os.wait4()` for that child) are
printed, then the median and the worst.

`python benchmarks/bench_status.py ../shared/data/vaults/knowledge-garden [--runs 5]`
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_speed import machine_lines
from common import child_env

BAR_SECONDS = 1.0


def run(args: list[str], env: dict[str, str]) -> tuple[float, int, int, str]:
    """(seconds, peak RSS in bytes, exit status, stdout) of `python -m memlsp ARGS`."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "memlsp", *args], stdout=out, stderr=subprocess.DEVNULL, env=env
        )
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode()
    return seconds, usage.ru_maxrss * 1024, process.returncode, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cache-dir", type=Path, help="default: the per-user cache")
    parser.add_argument("--embedder", default="none")
    args = parser.parse_args()
    env = child_env()
    env.pop("MEMLSP_NO_DAEMON")  # as a user runs it: it asks the vault's socket first
    flags = ["--embedder", args.embedder]
    if args.cache_dir is not None:
        flags += ["--cache-dir", str(args.cache_dir)]
    print("\n".join(machine_lines()))
    status = ["status", str(args.vault), *flags, "--json"]
    if run(status, env)[2] != 0:
        seconds, rss, code, _ = run(["index", str(args.vault), *flags], env)
        print(f"indexed first: {seconds:.1f} s, peak RSS {rss / 1e6:.0f} MB (exit {code})")
    times, peaks = [], []
    for number in range(1, args.runs + 1):
        seconds, rss, code, text = run(status, env)
        if code != 0:
            sys.exit(f"memlsp status failed (exit {code})")
        report = json.loads(text)
        times.append(seconds)
        peaks.append(rss)
        print(
            f"run {number}: {seconds:.3f} s, peak RSS {rss / 1e6:.0f} MB "
            f"({report['notes']:,} notes, answered by: {report['process']['kind']})"
        )
    median = statistics.median(times)
    verdict = "PASS" if max(times) <= BAR_SECONDS else "FAIL"
    print(
        f"memlsp status: median {median:.3f} s, worst {max(times):.3f} s "
        f"(bar ≤ {BAR_SECONDS:g} s: {verdict}); peak RSS up to {max(peaks) / 1e6:.0f} MB"
    )


if __name__ == "__main__":
    main()
