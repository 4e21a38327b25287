"""`memlsp mcp` as an agent's client runs it: the first answer from a cold start, and warm `search`
p50 / p95 over stdio, with and without a process that has the vault open (`memlsp serve`).

    python benchmarks/bench_mcp.py --vault ../shared/data/vaults/knowledge-garden \
        --cache-dir benchmarks/build/cache

The vault's index and vectors should be made first (`memlsp index VAULT --cache-dir CACHE`): this
measures answering, not indexing. Each query of the vault's question set is asked `--rounds`
times; the first round of a fresh server is reported apart as "first answer".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from common import BENCH_DIR, REPO_ROOT, child_env
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult

DEFAULT_VAULT = REPO_ROOT.parent / "shared" / "data" / "vaults" / "knowledge-garden"


def environment() -> dict[str, str]:
    env = child_env()
    del env["MEMLSP_NO_DAEMON"]  # asking the process that has the vault open is the point
    return env


def queries(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line)["query"] for line in handle if line.strip()]


def peak_rss_mib(command_part: str) -> float | None:
    """VmHWM of this process's child whose command line holds `command_part`."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parent = next(line for line in status.splitlines() if line.startswith("PPid:"))
        if int(parent.split()[1]) == os.getpid() and command_part in cmdline:
            peak = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
            return int(peak.split()[1]) / 1024
    return None


async def session(vault: Path, cache: Path, asked: list[str], rounds: int) -> dict[str, Any]:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memlsp", "mcp", str(vault), "--cache-dir", str(cache)],
        env=environment(),
    )
    started = time.perf_counter()
    async with Client(server, read_timeout_seconds=600) as client:
        connected = time.perf_counter() - started
        # Not counted as recalled: a benchmark must not train the ranking it measures.
        answered(await client.call_tool("search", {"query": asked[0], "record": False}))
        first_answer = time.perf_counter() - started
        times = []
        nothing = 0
        for _ in range(rounds):
            for query in asked:
                began = time.perf_counter()
                result = await client.call_tool("search", {"query": query, "record": False})
                times.append((time.perf_counter() - began) * 1000)
                nothing += not answered(result)
        rss = peak_rss_mib(" mcp ")
    times.sort()
    return {
        "connected_s": round(connected, 2),
        "first_answer_s": round(first_answer, 2),
        "searches": len(times),
        "nothing_found": nothing,
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(times[int(len(times) * 0.95) - 1], 1),
        "mcp_peak_rss_mib": None if rss is None else round(rss),
    }


def answered(result: CallToolResult) -> bool:
    """Whether a search found notes; "nothing found" is an answer too (a tool error by design),
    anything else a failure of the benchmark."""
    if not result.is_error:
        return True
    text = str(getattr(result.content[0], "text", ""))
    assert text.startswith("nothing found"), text
    return False


def serve(vault: Path, cache: Path) -> subprocess.Popen[bytes]:
    """`memlsp serve`, ready once a search it answers has come back."""
    process = subprocess.Popen(
        [sys.executable, "-m", "memlsp", "serve", str(vault), "--cache-dir", str(cache)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environment(),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "memlsp",
            "search",
            str(vault),
            "warm up",
            "--cache-dir",
            str(cache),
            "--no-recall",
        ],
        env=environment(),
        capture_output=True,
        check=True,
        timeout=600,
    )
    return process


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--cache-dir", type=Path, default=BENCH_DIR / "build" / "cache")
    parser.add_argument(
        "--queries", type=Path, default=BENCH_DIR / "data" / "knowledge_garden_queries.jsonl"
    )
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not args.vault.is_dir():
        sys.exit(f"no vault at {args.vault}")
    vault, cache = args.vault.resolve(), args.cache_dir.resolve()
    asked = queries(args.queries)
    print(f"{vault.name}: {len(asked)} queries x {args.rounds} rounds, hybrid search over stdio")
    alone = anyio.run(session, vault, cache, asked, args.rounds)
    print("memlsp mcp alone (opens the vault and loads the models itself):", json.dumps(alone))
    daemon = serve(vault, cache)
    try:
        shared = anyio.run(session, vault, cache, asked, args.rounds)
    finally:
        daemon.terminate()
        daemon.wait(timeout=60)
    print("memlsp mcp asking `memlsp serve`:", json.dumps(shared))


if __name__ == "__main__":
    main()
