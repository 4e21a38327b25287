"""Speed and memory of `memlsp --stdio` as an editor sees it, over a real stdio session.

    python benchmarks/bench_lsp.py [--notes 10000] [--keep DIR]

Generates the synthetic vault (benchmarks/synthetic_vault.py), cold-indexes it once with
`memlsp index`, then starts `python -m memlsp --stdio` on the warm cache and measures, as a client
with UTF-16 positions: `initialize`, warm start until `workspace/symbol` answers with results,
definition / references / hover latency on random links and on the hub note (5,000 inlinks),
completion after `[[` and `#` in an unsaved note, the rename edit of the hub (and its move as a
file explorer moves it), an edit until the note's diagnostics name the link it added, an edit
(`didChange`) until `workspace/symbol` finds the new word, a plain file write until
`workspace/symbol` finds it, and the server's peak RSS. Prints the issue's bars with PASS/FAIL and
exits 0 once the figures are printed.

    python benchmarks/bench_lsp.py --keep DIR --embedded DIR/cache-embedded [--only-embedded]

adds a session on a cache where the default embedder has made every vector (`memlsp index
DIR/vault --cache-dir DIR/cache-embedded` once): related notes, the graph around the hub with its
closest notes by meaning (`memlsp/graph`), `[[` completion by meaning, unlinked mentions of the
most mentioned note, an edit until its diagnostics, peak memory.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import string
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from bench_speed import (
    Row,
    TreeSampler,
    checked,
    generate_vault,
    judge,
    machine_lines,
    make_queries,
    memlsp,
    percentile,
    run_child,
    table,
)
from common import child_env, work_dir
from synthetic_vault import HUB_TITLE

from tests.helpers.lsp_client import NoAnswer, StdioClient

WARM_QUERY = "retrieval ranking"
REQUEST_TIMEOUT = 30.0
POLL_TIMEOUT = 10.0
GRAPH_REQUESTS = 50  # the fewest `memlsp/graph` requests timed
STARTED_AFTER = 3.0  # seconds: surely past imports, for the handler-only `initialize`
LINK = re.compile(r"\[\[([^\]|#]*)[^\]]*\]\]")
CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "window": {"workDoneProgress": True},
    "workspace": {
        "workspaceFolders": True,
        "symbol": {"dynamicRegistration": False},
        "workspaceEdit": {"documentChanges": True, "resourceOperations": ["create", "rename"]},
        "fileOperations": {"willRename": True},
    },
    "textDocument": {
        "synchronization": {"dynamicRegistration": False, "didSave": True},
        "rename": {"prepareSupport": True},
        "publishDiagnostics": {},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "definition": {"linkSupport": False},
        "completion": {"completionItem": {"snippetSupport": False}},
    },
}


# -- the server and the client end of its pipes --------------------------------------------------


@contextlib.contextmanager
def running_server(
    stderr: IO[bytes], cwd: Path | None = None, timeout: float = REQUEST_TIMEOUT
) -> Iterator[StdioClient]:
    """`python -m memlsp --stdio` with the repository importable (run from `cwd`, whose memlsp
    it then is), its stderr into `stderr`; killed on the way out unless it has exited by then."""
    server = StdioClient(
        memlsp("--stdio"), cwd=cwd, stderr=stderr, env=child_env(), request_timeout=timeout
    )
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()


def vm(server: StdioClient, field_name: str) -> float:
    """A /proc/PID/status memory field (VmHWM, VmRSS) of the server, in MiB."""
    for line in Path(f"/proc/{server.pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def notification_after(
    server: StdioClient, method: str, since: float, wanted: Callable[[Any], bool], timeout: float
) -> float | None:
    """perf_counter time of the first `method` notification after `since` whose params are
    `wanted`; None if none came in `timeout` seconds."""
    try:
        return server.wait_notification(method, wanted, after=since, timeout=timeout).at
    except NoAnswer:
        return None


# -- the vault as a client sees it -----------------------------------------------------------------


@dataclass(frozen=True)
class Spot:
    """A position inside a link: vault-relative path, 0-based line, UTF-16 column."""

    path: str
    line: int
    character: int
    target: str


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def link_spots(vault: Path, rel: str) -> list[Spot]:
    lines = (vault / rel).read_text(encoding="utf-8").splitlines()
    return [
        Spot(rel, number, utf16(line[: match.start()]) + 2, match.group(1).strip())
        for number, line in enumerate(lines)
        for match in LINK.finditer(line)
    ]


def all_spots(vault: Path) -> list[Spot]:
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    return [spot for rel in notes for spot in link_spots(vault, rel)]


def blank_line(vault: Path, rel: str) -> Spot:
    """A position on an empty line of a note: not a link, not a heading, so references there
    are every inlink of the note."""
    lines = (vault / rel).read_text(encoding="utf-8").splitlines()
    return Spot(rel, lines.index("") if "" in lines else 0, 0, "")


def uri(vault: Path, rel: str) -> str:
    return (vault / rel).as_uri()


def position_params(vault: Path, spot: Spot) -> dict[str, Any]:
    return {
        "textDocument": {"uri": uri(vault, spot.path)},
        "position": {"line": spot.line, "character": spot.character},
    }


# -- measurements ----------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def bar_row(name: str, seconds: float, bar_seconds: float) -> Row:
    bar = f"≤ {bar_seconds:g} s" if bar_seconds >= 1 else f"≤ {bar_seconds * 1000:g} ms"
    return Row(name, ms(seconds), bar, judge(seconds, bar_seconds))


def initialize_params(vault: Path, cache: Path) -> dict[str, Any]:
    root = uri(vault, "").rstrip("/")
    return {
        "processId": os.getpid(),  # the server exits if this benchmark dies
        "rootUri": root,
        "workspaceFolders": [{"uri": root, "name": vault.name}],
        "capabilities": CAPABILITIES,
        # Keyword-only: these figures are the navigation and keyword bars; the vector side has its
        # own figures in bench_speed.py.
        "initializationOptions": {"cache_dir": str(cache), "embedder": "none"},
    }


def initialize_when_started(vault: Path, cache: Path) -> Row:
    """`initialize` sent to a server that has had time to import everything: the handler's own
    time, without the interpreter start an editor also waits for."""
    with tempfile.TemporaryFile() as stderr, running_server(stderr) as server:
        time.sleep(STARTED_AFTER)
        _, answered = server.timed_request("initialize", initialize_params(vault, cache))
        server.shutdown()
    return bar_row(f"initialize: answer, sent {STARTED_AFTER:g} s after start", answered, 0.2)


def start_session(server: StdioClient, vault: Path, cache: Path) -> list[Row]:
    """initialize at once, then poll workspace/symbol until it has results."""
    _, answered = server.timed_request("initialize", initialize_params(vault, cache))
    server.notify("initialized", {})
    polls = 0
    while True:
        polls += 1
        result, _ = server.timed_request("workspace/symbol", {"query": WARM_QUERY})
        if result:
            break
        if time.perf_counter() - server.started > 60:
            raise RuntimeError("workspace/symbol still empty 60 s after start")
        time.sleep(0.01)
    first = time.perf_counter() - server.started
    indexed = server.wait_notification("memlsp/indexed", timeout=120).at - server.started
    return [
        bar_row("initialize: answer, sent at process start", answered, 0.2),
        bar_row("warm start: first workspace/symbol with results", first, 1.5),
        Row("  symbol requests until then; memlsp/indexed at", f"{polls}; {ms(indexed)}"),
    ]


def latency_rows(
    name: str, timings: Sequence[float], bar: float = 0.02, detail: str = "requests"
) -> list[Row]:
    p50, p95 = percentile(timings, 0.5), percentile(timings, 0.95)
    label = f"{name}: p95 ({len(timings)} {detail})"
    return [bar_row(label, p95, bar), Row("  p50 / max", f"{ms(p50)} / {ms(max(timings))}")]


def timed_requests(
    server: StdioClient,
    method: str,
    spots: Sequence[Spot],
    params: Callable[[Spot], dict[str, Any]],
) -> tuple[list[float], list[Any]]:
    timings, results = [], []
    for spot in spots:
        result, seconds = server.timed_request(method, params(spot))
        timings.append(seconds)
        results.append(result)
    return timings, results


def navigation(server: StdioClient, vault: Path, count: int, rng: random.Random) -> list[Row]:
    spots = all_spots(vault)
    hub_links = [s for s in spots if s.target == HUB_TITLE]
    chosen = rng.sample(spots, min(count, len(spots)))
    to_hub = rng.sample(hub_links, min(count, len(hub_links)))

    def at(spot: Spot) -> dict[str, Any]:
        return position_params(vault, spot)

    def refs(spot: Spot) -> dict[str, Any]:
        return {**at(spot), "context": {"includeDeclaration": False}}

    hub_note = blank_line(vault, f"{HUB_TITLE}.md")
    rows: list[Row] = []
    for label, method, sample, params in (
        ("definition, random links", "textDocument/definition", chosen, at),
        ("references, random links", "textDocument/references", chosen, refs),
        ("hover, random links", "textDocument/hover", chosen, at),
        ("definition, links to the hub", "textDocument/definition", to_hub, at),
        ("references, links to the hub", "textDocument/references", to_hub, refs),
        ("references in Hub.md", "textDocument/references", [hub_note] * count, refs),
        ("hover, links to the hub", "textDocument/hover", to_hub, at),
    ):
        timings, results = timed_requests(server, method, sample, params)
        sizes = [len(r) for r in results if isinstance(r, list)]
        most = max(sizes, default=0)
        detail = f"requests, up to {most} locations" if most > 1 else "requests"
        rows += latency_rows(label, timings, detail=detail)
    return rows


def completion_rows(server: StdioClient, vault: Path, count: int, rng: random.Random) -> list[Row]:
    """textDocument/completion in an open note that is not saved: after `[[` and the first one to
    four letters of a random note's name, and after `#` and two letters of a word."""
    names = sorted(path.stem for path in vault.rglob("*.md"))
    wanted = [
        f"[[{name[: rng.randint(1, min(4, len(name)))]}" for name in rng.choices(names, k=count)
    ]
    wanted += [f"#{rng.choice(string.ascii_lowercase)}{rng.choice('aeiou')}" for _ in range(count)]
    scratch = uri(vault, "Scratch typing.md")
    document = {"uri": scratch, "languageId": "markdown", "version": 1, "text": "\n".join(wanted)}
    server.notify("textDocument/didOpen", {"textDocument": document})
    rows: list[Row] = []
    for label, first in (
        ("completion after [[ and 1-4 letters", 0),
        ("completion of #tags", count),
    ):
        timings, empty = [], 0
        for number in range(first, first + count):
            params = {
                "textDocument": {"uri": scratch},
                "position": {"line": number, "character": utf16(wanted[number])},
            }
            result, seconds = server.timed_request("textDocument/completion", params)
            timings.append(seconds)
            empty += not (result or {}).get("items")
        rows += latency_rows(label, timings, bar=0.03)
        rows.append(Row("  of which answered with no item", str(empty)))
    server.notify("textDocument/didClose", {"textDocument": {"uri": scratch}})
    return rows


def editing_rows(server: StdioClient, vault: Path, count: int, rng: random.Random) -> list[Row]:
    """Renaming the hub (5,000 inlinks) from a link to it, and moving it as a file explorer does:
    the time to produce the edit, which is not applied. Then diagnostics of an open note after an
    edit adds a link to a note that does not exist."""
    spot = rng.choice([s for s in all_spots(vault) if s.target == HUB_TITLE])
    at = position_params(vault, spot)
    rows: list[Row] = []
    _, seconds = server.timed_request("textDocument/prepareRename", at)
    rows.append(Row("prepareRename on a link to the hub", ms(seconds)))
    timings, documents = [], 0
    for _ in range(3):
        edit, seconds = server.timed_request(
            "textDocument/rename", {**at, "newName": "Hub renamed"}
        )
        timings.append(seconds)
        documents = len(edit["documentChanges"]) - 1  # the RenameFile
    rows.append(
        bar_row(f"rename the hub: slowest of 3 ({documents} notes edited)", max(timings), 2)
    )
    moved = {"oldUri": uri(vault, f"{HUB_TITLE}.md"), "newUri": uri(vault, f"moved/{HUB_TITLE}.md")}
    edit, seconds = server.timed_request("workspace/willRenameFiles", {"files": [moved]})
    changed = len((edit or {}).get("documentChanges") or [])
    rows.append(
        bar_row(f"willRenameFiles: the hub moved to a folder ({changed} notes)", seconds, 2)
    )
    rows += diagnostics_rows(server, vault, count, rng)
    return rows


def open_some_note(server: StdioClient, vault: Path, rng: random.Random) -> tuple[str, str, int]:
    """didOpen a random note: its path, URI and line count (the text ends with a newline, so a
    line inserted at that line goes at the end)."""
    rel = rng.choice(sorted(p.relative_to(vault).as_posix() for p in vault.glob("*/*.md")))
    text = (vault / rel).read_text(encoding="utf-8")
    note_uri = uri(vault, rel)
    item = {"uri": note_uri, "languageId": "markdown", "version": 1, "text": text}
    server.notify("textDocument/didOpen", {"textDocument": item})
    return rel, note_uri, text.count("\n")


def insert_line(server: StdioClient, note_uri: str, version: int, line: int, text: str) -> float:
    """didChange inserting `text` as line `line`; perf_counter time when it was sent."""
    where = {"line": line, "character": 0}
    change = {"range": {"start": where, "end": where}, "text": text + "\n"}
    sent = time.perf_counter()
    server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": note_uri, "version": version}, "contentChanges": [change]},
    )
    return sent


def diagnostics_rows(server: StdioClient, vault: Path, count: int, rng: random.Random) -> list[Row]:
    _, note_uri, lines = open_some_note(server, vault, rng)
    timings, missed = [], 0
    for version in range(2, count + 2):
        missing = unique_word(rng)
        sent = insert_line(server, note_uri, version, lines, f"See [[{missing}]].")
        lines += 1

        def names_it(params: Any, name: str = missing) -> bool:
            return params["uri"] == note_uri and any(
                name in d["message"] for d in params["diagnostics"]
            )

        arrived = notification_after(
            server, "textDocument/publishDiagnostics", sent, names_it, POLL_TIMEOUT
        )
        missed += arrived is None
        timings.append(POLL_TIMEOUT if arrived is None else arrived - sent)
    server.notify("textDocument/didClose", {"textDocument": {"uri": note_uri}})
    rows = latency_rows("edit to its diagnostics", timings, bar=0.1, detail="edits")
    return [*rows, *([Row("  diagnostics never sent", str(missed), "0", False)] if missed else [])]


def unique_word(rng: random.Random) -> str:
    return "zq" + "".join(rng.choices(string.ascii_lowercase, k=10))


def poll_symbol(
    server: StdioClient, vault: Path, word: str, rel: str, since: float
) -> float | None:
    """Seconds from `since` until workspace/symbol finds `word` in note `rel`; None on timeout."""
    wanted = uri(vault, rel)
    while time.perf_counter() - since < POLL_TIMEOUT:
        result, _ = server.timed_request("workspace/symbol", {"query": word})
        if any(symbol["location"]["uri"] == wanted for symbol in result or []):
            return time.perf_counter() - since
        time.sleep(0.002)
    return None


def live_edits(server: StdioClient, vault: Path, edits: int, rng: random.Random) -> list[Row]:
    """didOpen one note, then didChange adding a new word at its end, again and again."""
    rel, note_uri, lines = open_some_note(server, vault, rng)
    timings, missed = [], 0
    for version in range(2, edits + 2):
        word = unique_word(rng)
        sent = insert_line(server, note_uri, version, lines, f"Edited {word} here.")
        lines += 1
        seconds = poll_symbol(server, vault, word, rel, sent)
        missed += seconds is None
        timings.append(POLL_TIMEOUT if seconds is None else seconds)
    server.notify("textDocument/didClose", {"textDocument": {"uri": note_uri}})
    rows = latency_rows("edit visible to workspace/symbol", timings, bar=0.2, detail="edits")
    return [*rows, *([Row("  edits never found", str(missed), "0", False)] if missed else [])]


def external_writes(server: StdioClient, vault: Path, writes: int, rng: random.Random) -> list[Row]:
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    timings, missed = [], 0
    for rel in rng.sample(notes, writes):
        word = unique_word(rng)
        with open(vault / rel, "a", encoding="utf-8") as handle:
            handle.write(f"\nWritten by another program: {word}.\n")
        seconds = poll_symbol(server, vault, word, rel, time.perf_counter())
        missed += seconds is None
        timings.append(POLL_TIMEOUT if seconds is None else seconds)
        time.sleep(0.2)  # one write at a time, not a burst
    median = percentile(timings, 0.5)
    rows = [
        bar_row(f"file write visible to workspace/symbol: median ({writes} writes)", median, 1),
        bar_row("file write visible to workspace/symbol: max", max(timings), 1),
    ]
    return [*rows, *([Row("  writes never found", str(missed), "0", False)] if missed else [])]


def memory_rows(server: StdioClient, sampler: TreeSampler) -> list[Row]:
    peak = vm(server, "VmHWM")
    return [
        Row("server peak RSS (VmHWM)", f"{peak:.0f} MiB", "≤ 400 MB", judge(peak, 400)),
        Row("  RSS at the end / peak summed PSS of its process tree",
            f"{vm(server, 'VmRSS'):.0f} / {sampler.peak_kib / 1024:.0f} MiB"),
    ]  # fmt: skip


def session(vault: Path, cache: Path, args: argparse.Namespace, log: Path | None) -> list[Row]:
    """The whole stdio session; the server's stderr goes to `log` (kept) or a temporary file."""
    rng = random.Random(args.seed)
    handler_only = initialize_when_started(vault, cache)
    log_file = open(log, "w+b") if log else tempfile.TemporaryFile()  # noqa: SIM115
    with log_file as stderr, running_server(stderr) as server:
        try:
            with TreeSampler(server.pid) as sampler:
                first, *rest = start_session(server, vault, cache)
                rows = [first, handler_only, *rest]
                rows += navigation(server, vault, args.requests, rng)
                rows += symbol_rows(server, "workspace/symbol", args.requests, rng)
                rows += completion_rows(server, vault, args.requests, rng)
                rows += editing_rows(server, vault, args.requests, rng)
                rows += live_edits(server, vault, args.edits, rng)
                rows += external_writes(server, vault, args.writes, rng)
                rows += memory_rows(server, sampler)
            rows.append(Row("shutdown + exit until the process ended", ms(server.shutdown())))
        except RuntimeError as error:
            server.process.kill()
            server.process.wait()
            stderr.seek(0)
            tail = stderr.read().decode("utf-8", "replace")[-3000:]
            sys.exit(f"the session failed: {error}\nserver stderr (end):\n{tail}")
    return rows


# -- with the default embedder: while the server's own backfill runs, and after ---------------


def symbol_rows(server: StdioClient, label: str, count: int, rng: random.Random) -> list[Row]:
    """workspace/symbol latency on the synthetic vault's own words (hybrid when semantic)."""
    queries = make_queries(count, rng.randrange(1 << 30))
    timings = [server.timed_request("workspace/symbol", {"query": q})[1] for q in queries]
    return latency_rows(label, timings, bar=0.2, detail="queries")


def vector_status(server: StdioClient) -> dict[str, Any]:
    status, _ = server.timed_request("memlsp/status", {})
    vectors: dict[str, Any] = status["vaults"][0]["vectors"] or {}
    return vectors


def wait_vectors(
    server: StdioClient, done: Callable[[dict[str, Any]], bool], timeout: float
) -> bool:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if done(vector_status(server)):
            return True
        time.sleep(0.5)
    return False


def semantic_session(vault: Path, cache: Path, args: argparse.Namespace) -> list[Row]:
    """The server with the default embedder on the keyword-indexed vault, no vector yet: the
    first open of a vault. Requests and edits while its backfill runs, the rate of that
    backfill, memory, and the same requests once it is done (or after --embed-timeout)."""
    rng = random.Random(args.seed + 1)
    params = initialize_params(vault, cache)
    params["initializationOptions"] = {"cache_dir": str(cache)}  # the default embedder
    with tempfile.TemporaryFile() as stderr, running_server(stderr) as server:
        with TreeSampler(server.pid) as sampler:
            server.timed_request("initialize", params)
            server.notify("initialized", {})
            if not wait_vectors(server, lambda v: v.get("pending", 0) > 0, 300):
                return [Row("semantic session", "the backfill never started")]
            first = vector_status(server)
            begun = time.perf_counter()
            rows = symbol_rows(server, "while embedding: workspace/symbol", 100, rng)
            rows += [
                replace(row, name="while embedding: " + row.name.strip())
                for row in live_edits(server, vault, args.edits, rng)
            ]
            now = vector_status(server)
            rate = (now["embedded"] - first["embedded"]) / (time.perf_counter() - begun)
            rows.append(Row("while embedding: chunks embedded per second", f"{rate:.1f}"))
            rows.append(Row("while embedding: server peak RSS so far",
                            f"{vm(server, 'VmHWM'):.0f} MiB", "≤ 600 MB",
                            judge(vm(server, "VmHWM"), 600)))  # fmt: skip
            started, embedded = time.perf_counter(), now["embedded"]
            done = wait_vectors(server, lambda v: v.get("pending", 1) == 0, args.embed_timeout)
            final = vector_status(server)
            seconds = time.perf_counter() - started
            rows.append(Row(
                "backfill after the requests: chunks per second",
                f"{(final['embedded'] - embedded) / seconds:.1f} ({final['embedded']} of "
                f"{final['embedded'] + final['pending']} in all)",
            ))  # fmt: skip
            if done:
                time.sleep(2.0)  # the last notifications and the cache pruning settle
                rows += symbol_rows(server, "embedded: workspace/symbol", 100, rng)
                rows += [
                    replace(row, name="embedded: " + row.name.strip())
                    for row in live_edits(server, vault, args.edits, rng)
                ]
                rss = vm(server, "VmRSS")
                rows.append(Row("embedded: server RSS", f"{rss:.0f} MiB", "≤ 450 MB",
                                judge(rss, 450)))  # fmt: skip
            else:
                rows.append(Row("embedded", f"not within {args.embed_timeout:.0f} s"))
            rows.append(Row("server peak RSS (VmHWM), whole session",
                            f"{vm(server, 'VmHWM'):.0f} MiB", "≤ 600 MB",
                            judge(vm(server, "VmHWM"), 600)))  # fmt: skip
            rows.append(Row("  peak summed PSS of its process tree",
                            f"{sampler.peak_kib / 1024:.0f} MiB"))  # fmt: skip
        server.shutdown()
    return rows


# -- meaning in the editor, on a vault whose vectors are all made ------------------------------


def mention_count(answer: Any) -> int:
    return len((answer or {}).get("mentions", [])) + int((answer or {}).get("left_out", 0))


def meaning_session(vault: Path, cache: Path, args: argparse.Namespace) -> list[Row]:
    """The server with the default embedder on a cache where every chunk has its vector (made
    once, e.g. by `memlsp index VAULT --cache-dir DIR`): related notes, the graph around the hub,
    `[[` completion by meaning and by name, unlinked mentions of the most-mentioned note, an edit until its
    diagnostics, and the server's peak memory."""
    rng = random.Random(args.seed + 2)
    params = initialize_params(vault, cache)
    params["initializationOptions"] = {"cache_dir": str(cache)}  # the default embedder
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    with tempfile.TemporaryFile() as stderr, running_server(stderr) as server:
        server.timed_request("initialize", params)
        server.notify("initialized", {})
        if not wait_vectors(server, lambda v: v.get("state") == "ready", 300):
            return [Row("meaning session", "the vectors never became ready")]
        if not wait_vectors(server, lambda v: v.get("pending", 1) == 0, 60):
            return [Row("meaning session", "the cache given is not fully embedded")]
        server.timed_request("workspace/symbol", {"query": WARM_QUERY})  # models loaded
        idle = wait_idle(server, 120)
        rows: list[Row] = [Row("server idle (CPU) before the requests after", f"{idle:.1f} s")]
        related = [
            server.timed_request("memlsp/related", {"uri": uri(vault, rel), "limit": 10})
            for rel in rng.sample(notes, args.requests)
        ]
        rows += latency_rows("memlsp/related", [s for _, s in related], bar=0.05)
        empty = sum(not (answer or {}).get("results") for answer, _ in related)
        rows.append(Row("  of which answered with no note", str(empty)))
        rows += graph_rows(server, vault, max(GRAPH_REQUESTS, args.requests // 2))
        rows += meaning_completion_rows(server, vault, args.requests, rng)
        rows += completion_rows(server, vault, args.requests, rng)
        rows += mention_rows(server, vault, notes)
        rows += diagnostics_rows(server, vault, args.edits, rng)
        peak = vm(server, "VmHWM")
        rows.append(Row("server peak RSS (VmHWM), this session", f"{peak:.0f} MiB"))
        server.shutdown()
    return rows


def graph_rows(server: StdioClient, vault: Path, count: int) -> list[Row]:
    """`memlsp/graph` at depth 2 with the 5 closest notes by meaning, around the vault's most
    linked note (the hub: 5,000 inlinks, so the caps bite), `count` times."""
    params = {"uri": uri(vault, f"{HUB_TITLE}.md"), "depth": 2, "meaning": 5}
    answer, _ = server.timed_request("memlsp/graph", params)  # the first: nothing loaded is timed
    timings = [server.timed_request("memlsp/graph", params)[1] for _ in range(count)]
    rows = latency_rows("memlsp/graph of the hub, depth 2, 5 by meaning", timings, bar=0.1)
    answer = answer or {}
    nodes, edges = answer.get("nodes", []), answer.get("edges", [])
    meaning = sum(edge["kind"] == "meaning" for edge in edges)
    size = len(json.dumps(answer)) / 1024
    hub = f"{nodes[0]['inlinks']:,} inlinks" if nodes else "no answer"
    rows.append(
        Row(
            "  the answer",
            f"{len(nodes):,} nodes, {len(edges):,} edges ({meaning} by meaning), {size:.0f} KiB; "
            f"the hub has {hub}",
        )
    )
    if answer.get("warning"):
        rows.append(Row("  warning", answer["warning"]))
    return rows


def mention_rows(server: StdioClient, vault: Path, notes: Sequence[str]) -> list[Row]:
    """`memlsp/mentions` of every note once, then of the most mentioned one again and again, each
    time in a new revision of the vault (an edit of an open scratch note in between), so that no
    answer is one the server kept."""
    counted = []
    for rel in notes:
        answer, _ = server.timed_request("memlsp/mentions", {"uri": uri(vault, rel)})
        counted.append((mention_count(answer), rel))
    most, named = max(counted)
    scratch = uri(vault, "Scratch revisions.md")
    item = {"uri": scratch, "languageId": "markdown", "version": 1, "text": "# Scratch\n"}
    server.notify("textDocument/didOpen", {"textDocument": item})
    timings = []
    for version in range(2, 32):
        sent = insert_line(server, scratch, version, 1, f"revision {version}")
        notification_after(server, "memlsp/changed", sent, lambda _: True, POLL_TIMEOUT)
        timings.append(server.timed_request("memlsp/mentions", {"uri": uri(vault, named)})[1])
    server.notify("textDocument/didClose", {"textDocument": {"uri": scratch}})
    rows = latency_rows("memlsp/mentions of the most mentioned note", timings, bar=0.2)
    rows.append(Row("  that note, its unlinked mentions", f"{named}: {most}"))
    return rows


def cpu_seconds(server: StdioClient) -> float:
    """User and system CPU time the server has used so far."""
    fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_idle(server: StdioClient, timeout: float) -> float:
    """Wait until the server uses under 5% of a core over half a second (the work that follows
    its catching up, such as pruning the vector cache, is done); seconds waited."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        before = cpu_seconds(server)
        time.sleep(0.5)
        if cpu_seconds(server) - before < 0.025:
            break
    return time.perf_counter() - started


def meaning_completion_rows(
    server: StdioClient, vault: Path, count: int, rng: random.Random
) -> list[Row]:
    """`[[` followed by two words of the vault's vocabulary that no name holds together: the
    names first, then the notes about the phrase."""
    words = sorted({w.lower() for p in vault.glob("*.md") for w in p.stem.split()})
    wanted = [f"[[{' '.join(rng.sample(words, 2))}" for _ in range(count)]
    scratch = uri(vault, "Scratch meaning.md")
    document = {"uri": scratch, "languageId": "markdown", "version": 1, "text": "\n".join(wanted)}
    server.notify("textDocument/didOpen", {"textDocument": document})
    timings, offered = [], 0
    for number, text in enumerate(wanted):
        params = {
            "textDocument": {"uri": scratch},
            "position": {"line": number, "character": utf16(text)},
        }
        result, seconds = server.timed_request("textDocument/completion", params)
        timings.append(seconds)
        items = (result or {}).get("items", [])
        offered += any(item.get("detail", "").startswith("by meaning") for item in items)
    server.notify("textDocument/didClose", {"textDocument": {"uri": scratch}})
    rows = latency_rows("completion after [[ and a two-word phrase", timings, bar=0.06)
    rows.append(Row("  of which offered notes by meaning", f"{offered} of {count}"))
    return rows


# -- main ------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    parser.add_argument("--requests", type=int, default=200, help="per navigation measurement")
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--writes", type=int, default=10)
    parser.add_argument(
        "--semantic", action="store_true", help="then a session with the default embedder"
    )
    parser.add_argument(
        "--embed-timeout", type=float, default=3600.0, help="the longest wait for the backfill"
    )
    parser.add_argument(
        "--embedded",
        type=Path,
        metavar="CACHE",
        help="then a session on this cache of the same vault, every chunk already embedded by "
        "the default embedder: related notes, completion by meaning, unlinked mentions",
    )
    parser.add_argument("--only-embedded", action="store_true", help="only the --embedded session")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with work_dir(args.keep, "memlsp-bench-lsp-") as (base, temporary):
        vault, cache = base / "vault", base / "cache"
        print("\n".join(machine_lines()))
        made = generate_vault(vault, args.notes, args.seed)
        print(
            f"vault:  {args.notes} synthetic notes (seed {args.seed}), generated in "
            f"{made.seconds:.1f} s{'' if temporary else f' into {base}'}"
        )
        print(
            "client: own JSON-RPC over the pipes of `python -m memlsp --stdio`, UTF-16 positions;\n"
            "  a request's time runs from writing it to having read the whole answer\n"
        )
        if not args.only_embedded:
            cold = checked(
                run_child(memlsp("index", vault, "--embedder", "none", "--cache-dir", cache)),
                "memlsp index",
            )
            print(f"cold-indexed (keyword only) in {cold.seconds:.1f} s\n")
            print(table(session(vault, cache, args, None if temporary else base / "server.log")))
        if args.semantic and not args.only_embedded:
            print("\nwith the default embedder, on the same keyword index and no vector yet:\n")
            print(table(semantic_session(vault, cache, args)))
        if args.embedded:
            print(f"\nwith the default embedder, every chunk embedded ({args.embedded}):\n")
            print(table(meaning_session(vault, args.embedded, args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
