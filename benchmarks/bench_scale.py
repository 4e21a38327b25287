"""How memlsp's costs grow with the vault: the same measurements on 1k, 10k and 50k notes.

    python benchmarks/bench_scale.py [--sizes 1000,10000,50000] [--vs CHECKOUT] [--work DIR]

Generates the synthetic vaults (benchmarks/synthetic_vault.py; `--work` keeps them for the next
run), then, keyword only (`--embedder none`) and for each checkout (this one, and the one given
by `--vs`, each running its own memlsp from its own folder, on a cache of its own):

- `memlsp index`: a cold index, its time and peak RSS;
- `memlsp search`, `links`, `read` and `recent` in a process of their own: time and peak RSS;
- `memlsp search` answered by a running `memlsp serve`, and that server's resident memory;
- the language server over stdio, indexing the vault itself: `workspace/symbol` latency, a `didChange` until
  `workspace/symbol` finds the new word, a file written by another program until it does, the
  process tree's memory once indexed and at its peak, and renaming the hub note: the edit, and
  once written to disk as an editor saves it, until `textDocument/references` finds every link.

Prints one table per vault size, the checkouts side by side. The vault is written by the external
writes and the hub's rename, and put back as it was afterwards.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import bench_speed
import common
from bench_lsp import (
    all_spots,
    initialize_params,
    insert_line,
    open_some_note,
    poll_symbol,
    position_params,
    running_server,
    unique_word,
    uri,
)
from bench_speed import machine_lines, make_queries, percentile, rss_mib
from synthetic_vault import HUB_TITLE

from tests.helpers.lsp_client import StdioClient

QUERY = "memory retrieval"
SOCKET_RUNS = 7
ALONE_RUNS = 3
SYMBOL_REQUESTS = 100
EDITS = 20
WRITES = 15
RENAMED = "Hub renamed"
ANSWERS_RIGHT_TIMEOUT = 120.0


@dataclass
class Figures:
    """One checkout's figures on one vault, by row name; a value is text as printed."""

    values: dict[str, str] = field(default_factory=dict)


# -- running memlsp from a checkout ---------------------------------------------------------------


def command(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "memlsp", *map(str, args)]


def env(daemon: bool = False) -> dict[str, str]:
    environment = common.child_env()
    if daemon:
        environment.pop("MEMLSP_NO_DAEMON", None)
    return environment


@dataclass(frozen=True)
class Run:
    seconds: float
    max_rss_mib: float
    stdout: str


def run(args: Sequence[str | Path], daemon: bool = False) -> Run:
    """`python -m memlsp ARGS` from the checkout's folder: wall time and its peak RSS."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(
            command(*args), stdout=out, stderr=err, env=env(daemon), cwd=common.code_root
        )
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"memlsp {args[0]} failed:\n{err.read().decode(errors='replace')[-2000:]}")
        return Run(seconds, rss_mib(usage.ru_maxrss), out.read().decode(errors="replace"))


def tree_mib(pid: int) -> float:
    """The summed PSS of a process and its descendants now, in MiB."""
    return sum(bench_speed._pss_kib(p) for p in bench_speed._tree(pid)) / 1024


def seconds_text(values: Sequence[float]) -> str:
    return f"{percentile(values, 0.5):.2f} s"


def ms_pair(values: Sequence[float]) -> str:
    return f"{percentile(values, 0.5) * 1000:.1f} / {percentile(values, 0.95) * 1000:.1f} ms"


# -- the command line ----------------------------------------------------------------------------


def command_line(vault: Path, cache: Path, note: str, figures: Figures) -> None:
    keyword = ("--embedder", "none", "--cache-dir", cache)
    index = run(["index", vault, *keyword])
    figures.values["memlsp index: time / peak RSS"] = (
        f"{index.seconds:.1f} s / {index.max_rss_mib:.0f} MiB"
    )
    asks: dict[str, list[str | Path]] = {
        "search": ["search", vault, QUERY, *keyword],
        "links": ["links", vault, note, *keyword],
        "read": ["read", vault, note, *keyword],
        "recent": ["recent", vault, *keyword],
    }
    for name, args in asks.items():
        runs = [run(args) for _ in range(ALONE_RUNS)]
        figures.values[f"`{name}`, no server: time / peak RSS"] = (
            f"{seconds_text([r.seconds for r in runs])} / "
            f"{max(r.max_rss_mib for r in runs):.0f} MiB"
        )
    with serving(vault, cache) as server:
        runs = [run(asks["search"], daemon=True) for _ in range(SOCKET_RUNS)]
        figures.values["`search` answered by `memlsp serve`"] = seconds_text(
            [r.seconds for r in runs[1:]]
        )
        figures.values["`memlsp serve` tree memory (PSS)"] = f"{tree_mib(server.pid):.0f} MiB"


@contextmanager
def serving(vault: Path, cache: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`memlsp serve` on the vault, once it answers on its socket."""
    server = subprocess.Popen(
        command("serve", vault, "--embedder", "none", "--cache-dir", cache),
        env=env(daemon=True),
        cwd=common.code_root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            answer = subprocess.run(
                command("status", vault, "--embedder", "none", "--cache-dir", cache, "--json"),
                env=env(daemon=True),
                cwd=common.code_root,
                capture_output=True,
                text=True,
                check=False,
            )
            if '"process"' in answer.stdout and str(server.pid) in answer.stdout:
                break
            time.sleep(0.5)
        yield server
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()


# -- the language server -------------------------------------------------------------------------


@contextmanager
def language_server() -> Iterator[StdioClient]:
    """The checkout's language server (it indexes the vault `initialize` names)."""
    with (
        tempfile.TemporaryFile() as stderr,
        running_server(stderr, common.code_root, 120) as server,
    ):
        yield server


def editor_session(vault: Path, cache: Path, figures: Figures, rng: random.Random) -> None:
    with language_server() as server, bench_speed.TreeSampler(server.pid) as peak:
        server.request("initialize", initialize_params(vault, cache))
        server.notify("initialized", {})
        indexed = server.wait_notification("memlsp/indexed", timeout=1800).at - server.started
        time.sleep(2.0)  # what the first index leaves behind (jieba's warm-up) has settled
        after = tree_mib(server.pid)
        queries = make_queries(SYMBOL_REQUESTS, rng.randrange(1 << 30))
        symbol = [server.timed_request("workspace/symbol", {"query": q})[1] for q in queries]
        figures.values["LSP first index (`memlsp/indexed`)"] = f"{indexed:.1f} s"
        figures.values["LSP `workspace/symbol` p50 / p95"] = ms_pair(symbol)
        figures.values["LSP `didChange` → searchable p50 / p95"] = ms_pair(
            edits(server, vault, rng)
        )
        with vault_put_back(vault):
            figures.values["LSP file written by another program → searchable p50 / p95"] = ms_pair(
                writes(server, vault, rng)
            )
            figures.values["LSP rename the hub: the edit / every link found"] = hub_rename(
                server, vault
            )
        figures.values["LSP process tree (PSS) once indexed / peak"] = (
            f"{after:.0f} / {peak.peak_kib / 1024:.0f} MiB"
        )
        server.shutdown()


def edits(server: StdioClient, vault: Path, rng: random.Random) -> list[float]:
    rel, note_uri, lines = open_some_note(server, vault, rng)
    timings = []
    for version in range(2, EDITS + 2):
        word = unique_word(rng)
        sent = insert_line(server, note_uri, version, lines, f"Edited {word} here.")
        lines += 1
        timings.append(poll_symbol(server, vault, word, rel, sent) or float("inf"))
    server.notify("textDocument/didClose", {"textDocument": {"uri": note_uri}})
    return timings


def writes(server: StdioClient, vault: Path, rng: random.Random) -> list[float]:
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    timings = []
    for rel in rng.sample(notes, WRITES):
        word = unique_word(rng)
        with open(vault / rel, "a", encoding="utf-8") as handle:
            handle.write(f"\nWritten by another program: {word}.\n")
        timings.append(poll_symbol(server, vault, word, rel, time.perf_counter()) or float("inf"))
        time.sleep(0.2)  # one write at a time, not a burst
    return timings


def hub_rename(server: StdioClient, vault: Path) -> str:
    """Rename the hub from its own file: the edit, then written as an editor saves it (every
    edited note, then the file moved, then `workspace/didRenameFiles`) until the references of
    the renamed note are every note that links to it."""
    old, new = vault / f"{HUB_TITLE}.md", vault / f"{RENAMED}.md"
    at = position_params(vault, next(s for s in all_spots(vault) if s.target == HUB_TITLE))
    edit, seconds = server.timed_request("textDocument/rename", {**at, "newName": RENAMED})
    edited = [c for c in edit["documentChanges"] if "edits" in c]
    for change in edited:
        path = Path(unquote(urlparse(change["textDocument"]["uri"]).path))
        path.write_text(applied(path.read_text(encoding="utf-8"), change["edits"]), "utf-8")
    old.rename(new)
    server.notify("workspace/didRenameFiles", {"files": [{"oldUri": uri(vault, old.name),
                                                         "newUri": uri(vault, new.name)}]})  # fmt: skip
    written = time.perf_counter()
    wanted = len(edited) - (
        1 if any(c["textDocument"]["uri"].endswith(old.name) for c in edited) else 0
    )
    params = {"textDocument": {"uri": uri(vault, new.name)}, "position": {"line": 0, "character": 0},
              "context": {"includeDeclaration": False}}  # fmt: skip
    found = 0
    while time.perf_counter() - written < ANSWERS_RIGHT_TIMEOUT:
        found = len({r["uri"] for r in server.request("textDocument/references", params) or []})
        if found >= wanted:
            break
        time.sleep(0.01)
    right = time.perf_counter() - written
    return f"{seconds * 1000:.0f} ms / {right:.2f} s ({found} of {wanted} notes)"


def applied(text: str, edits: list[dict[str, Any]]) -> str:
    """`text` with LSP text edits applied (UTF-16 positions; the synthetic vault's notes are BMP)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: dict[str, int]) -> int:
        return starts[min(position["line"], len(lines))] + position["character"]

    for change in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        start, end = offset(change["range"]["start"]), offset(change["range"]["end"])
        text = text[:start] + change["newText"] + text[end:]
    return text


@contextmanager
def vault_put_back(vault: Path) -> Iterator[None]:
    """Every note's text is put back afterwards, and the hub's name."""
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    try:
        yield
    finally:
        renamed = vault / f"{RENAMED}.md"
        if renamed.exists():
            renamed.rename(vault / f"{HUB_TITLE}.md")
        for path, data in before.items():
            if not path.exists() or path.read_bytes() != data:
                path.write_bytes(data)


# -- the table -----------------------------------------------------------------------------------


def measure(checkout: Path, vault: Path, cache: Path, seed: int, lsp: bool) -> Figures:
    common.code_root = checkout.resolve()
    shutil.rmtree(cache, ignore_errors=True)
    figures = Figures()
    note = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))[7]
    command_line(vault, cache, note, figures)
    if lsp:
        shutil.rmtree(cache, ignore_errors=True)  # the language server indexes the vault itself
        editor_session(vault, cache, figures, random.Random(seed))
    shutil.rmtree(cache, ignore_errors=True)
    return figures


def vault_of(work: Path, notes: int, seed: int) -> Path:
    vault = work / f"vault-{notes}"
    done = vault / ".memlsp-generated"
    if not done.exists():
        shutil.rmtree(vault, ignore_errors=True)
        bench_speed.generate_vault(vault, notes, seed)
        done.mkdir()  # a dot-folder: never indexed
    return vault


def side_by_side(labels: Sequence[str], columns: Sequence[Figures]) -> str:
    names = list(dict.fromkeys(n for figures in columns for n in figures.values))
    width = max(map(len, names))
    widths = [
        max(len(label), *(len(f.values.get(n, "")) for n in names))
        for label, f in zip(labels, columns, strict=True)
    ]
    head = "  ".join(
        [" " * width, *(label.rjust(w) for label, w in zip(labels, widths, strict=True))]
    )
    lines = [head]
    for name in names:
        cells = (f.values.get(name, "—").rjust(w) for f, w in zip(columns, widths, strict=True))
        lines.append("  ".join([name.ljust(width), *cells]))
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,50000", help="notes per vault, e.g. 100000")
    parser.add_argument("--vs", type=Path, help="a checkout to measure beside this one")
    parser.add_argument("--work", type=Path, help="keep the vaults here for the next run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-lsp", action="store_true", help="the command line only")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    checkouts = [common.REPO_ROOT, *([args.vs] if args.vs else [])]
    labels = ["this checkout", *([f"--vs {args.vs.name}"] if args.vs else [])]
    print("\n".join(machine_lines()))
    with common.work_dir(args.work, "memlsp-bench-scale-") as (work, _):
        for notes in (int(size) for size in args.sizes.split(",")):
            vault = vault_of(work, notes, args.seed)
            columns = [
                measure(checkout, vault, work / f"cache-{i}", args.seed, not args.no_lsp)
                for i, checkout in enumerate(checkouts)
            ]
            print(f"\n{notes:,} notes, keyword only\n")
            print(side_by_side(labels, columns), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
