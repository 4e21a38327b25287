"""The command line: `memlsp index | search | links | related | mentions | graph | read | recent |
status`, each a thin adapter over the engine; `serve` and `mcp` keep a vault open."""

from __future__ import annotations

import argparse
import io
import logging
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from memlsp import daemon
from memlsp.commands.arguments import UsageError, command_parser
from memlsp.heap import limit_arenas
from memlsp.model import IndexSummary, printable
from memlsp.settings.files import cache_dir_for, load_vault_settings, user_settings
from memlsp.settings.table import Settings, settings_from

# The index, the models and what renders answers are imported where they are used: a command
# that a running server answers must not pay for them (see `_ask_server`).
if TYPE_CHECKING:
    from memlsp.engine.engine import Engine
    from memlsp.index.semantic import VectorStatus

log = logging.getLogger(__name__)


def main(argv: Sequence[str] | None = None) -> int:
    limit_arenas()  # before any thread starts (memlsp/heap.py)
    arguments = list(sys.argv[1:] if argv is None else argv)
    if "--stdio" in arguments or "--tcp" in arguments:
        return _serve(arguments)
    args = command_parser().parse_args(arguments)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="memlsp: %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        return _run(args, arguments)
    except UsageError as error:
        print(f"memlsp: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `memlsp search ... | head`: the reader has gone, stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _serve(arguments: list[str]) -> int:
    """The language server; imported here so the CLI does not pay for pygls."""
    parser = argparse.ArgumentParser(prog="memlsp", description="memlsp language server")
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP port (for debugging)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    args = parser.parse_args(arguments)
    from memlsp.lsp.main import serve

    return serve(tcp=args.tcp, verbose=args.verbose)


# The commands a process that has the vault open answers on its socket (commands/answers.py).
ASKED = ("search", "links", "related", "mentions", "graph", "read", "recent", "status")


def _run(args: argparse.Namespace, arguments: list[str]) -> int:
    started = time.perf_counter()
    if args.command == "mcp" and args.vault is None:
        args.vault = _vault_here()
    vault: Path = args.vault
    if not vault.is_dir():
        raise UsageError(f"vault folder not found: {vault}")
    settings = _settings(args)
    if args.command == "serve":
        return _serve_vault(args, settings)
    if args.command == "mcp":
        return _serve_agents(args, settings)
    if args.command in ASKED:
        reply = _ask_server(args, arguments, settings)
        if reply is not None:
            sys.stdout.write(reply.stdout)
            sys.stderr.write(reply.stderr)
            return reply.code
    if args.command == "status":
        return _status(args, settings)
    from memlsp.commands import answers
    from memlsp.engine.engine import Engine

    call = None if args.command == "index" else answers.command_call(args)  # checked first
    if args.command != "index" and _answered_unchanged(args, call, settings):
        return 0
    try:
        engine = Engine.open(vault, settings)
    except OSError as error:  # no cache folder can be made (a read-only disk, a vault at `/`)
        raise UsageError(f"cannot open the index of {printable(str(vault))}: {error}") from error
    try:
        summary = engine.refresh(progress=_progress_bar(sys.stderr, "indexing"))
        if args.command == "index":
            embedded = _embed(engine, limit=None)
            wall = time.perf_counter() - started
            _print_summary(
                summary, vault, engine.read().vectors.status, embedded, wall, as_json=args.json
            )
        else:
            if answers.reads_vectors(args, call):
                _embed(engine, limit=answers.SEARCH_EMBED_LIMIT)
            answers.print_answer(engine.read(), args, call, sys.stdout)
    finally:
        engine.close()
    return 0


def _answered_unchanged(args: argparse.Namespace, call: Any, settings: Settings) -> bool:
    """Answered from the index as saved, read row by row, when the vault has not changed since
    and nothing is to be embedded first (engine/lean.py); False to open the whole index."""
    from memlsp.commands import answers
    from memlsp.engine.lean import Unreadable, open_unchanged

    if settings.embedder != "none" and answers.reads_vectors(args, call):
        return False
    lean = open_unchanged(args.vault, settings)
    if lean is None:
        return False
    out = io.StringIO()
    try:
        answers.print_answer(lean.snapshot, args, call, out)
    except Unreadable as error:
        log.info("%s; opening the whole index", error)
        return False
    finally:
        lean.close()
    sys.stdout.write(out.getvalue())
    return True


def _status(args: argparse.Namespace, settings: Settings) -> int:
    """`memlsp status` when no process has the vault open: its index as it is, opened read-only;
    nothing indexed, no model loaded, no server started."""
    from memlsp import wire
    from memlsp.commands.status import NotOpen, read_only_report, status_text

    try:
        report = read_only_report(args.vault.resolve(), settings)
    except NotOpen as error:
        print(f"memlsp: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        raise UsageError(
            f"cannot read the index of {printable(str(args.vault))}: {error}"
        ) from error
    if args.json:
        print(wire.json_text(wire.status_report_json(report)))
    else:
        print(status_text(report))
    return 0


# Chunks per step in a command, where no request waits: each step is one write per vector
# collection, ~17 ms whatever its size, so big steps save a fifth of knowledge-garden's time.
INDEX_BATCH = 256


def _settings(args: argparse.Namespace) -> Settings:
    """Defaults, the user config file, what the vault's `.memlsp.toml` may set, then the command
    line's flags (which the vault's file cannot override)."""
    cache_dir = None if args.cache_dir is None else str(args.cache_dir)
    flags = {"cache_dir": cache_dir, "embedder": args.embedder, "chroma_url": args.chroma_url}
    given = {k: v for k, v in flags.items() if v is not None}
    chosen, problems = settings_from(given, source="flag")
    settings, more = user_settings(chosen, keys=given)
    settings, most = load_vault_settings(args.vault, settings)
    for problem in more + problems + most:
        print(f"memlsp: {problem}", file=sys.stderr)
    return settings


# -- a process that has the vault open answers (memlsp/daemon/) ----------------------------------


def _ask_server(
    args: argparse.Namespace, arguments: list[str], settings: Settings
) -> daemon.Reply | None:
    """The answer of the process serving the vault's socket, started first (as `memlsp serve`)
    when none does and the search needs the models; None to run the command here."""
    if args.no_daemon or os.environ.get("MEMLSP_NO_DAEMON") == "1" or not daemon.supported():
        return None
    if args.command == "search" and args.queries is not None and not args.queries.is_file():
        return None  # the same message either way; here it names the file as it was typed
    try:
        cache = cache_dir_for(args.vault, settings, tell=lambda _: None)  # told when opened
        path = daemon.socket_path(cache)
        cwd = os.getcwd()
    except OSError as error:
        log.info("no memlsp server asked (%s); answering here", error)
        return None
    if path is None:
        return None
    request = daemon.Request(
        tuple(arguments), cwd, tuple(sorted(daemon.settings_key(settings, cache).items()))
    )
    try:
        try:
            return daemon.ask(path, request)
        except daemon.NoServer:
            models = args.command == "search" and args.mode != "keyword"
            if not models or settings.embedder == "none":
                raise  # a process of its own answers about as fast: no model to load
            started = daemon.start(args.vault.resolve(), _serve_flags(args))
            return daemon.ask_started(path, request, started)
    except (daemon.Unanswered, OSError) as why:
        log.info("%s; answering here", why)
        return None


def _serve_flags(args: argparse.Namespace) -> list[str]:
    """The flags a command was given that choose the settings, for the server it starts."""
    flags = []
    if args.cache_dir is not None:
        flags += ["--cache-dir", os.path.abspath(args.cache_dir)]
    if args.embedder is not None:
        flags += ["--embedder", args.embedder]
    if args.chroma_url is not None:
        flags += ["--chroma-url", args.chroma_url]
    return flags


def _serve_vault(args: argparse.Namespace, settings: Settings) -> int:
    if not daemon.supported():
        raise UsageError("memlsp serve needs Unix domain sockets, which this system lacks")
    from memlsp.daemon.serve import serve

    return serve(args.vault.resolve(), settings, args.idle)


def _vault_here() -> Path:
    from memlsp.agent.main import CannotServe, vault_here

    try:
        return vault_here(Path.cwd())
    except CannotServe as error:
        raise UsageError(str(error)) from error


def _serve_agents(args: argparse.Namespace, settings: Settings) -> int:
    from memlsp.agent.main import CannotServe, serve

    try:
        return serve(args.vault.resolve(), settings, http=args.http, allow_writes=args.allow_writes)
    except CannotServe as error:
        raise UsageError(str(error)) from error


@dataclass(frozen=True, slots=True)
class Embedded:
    """What one command embedded, and how long that took (loading the models included)."""

    chunks: int = 0
    seconds: float = 0.0


def _embed(engine: Engine, limit: int | None) -> Embedded:
    """Give chunks their vectors: all of them, or none when more than `limit` are missing."""
    from memlsp.engine.backfill import Backfill

    started = time.perf_counter()
    backfill = Backfill(engine, batch=INDEX_BATCH)
    planned = backfill.plan()
    total = planned.pending
    if planned.state != "ready" or not total or (limit is not None and total > limit):
        return Embedded()
    show = _progress_bar(sys.stderr, "embedding")
    progress = None if show is None else lambda _: show(min(backfill.embedded, total), total)
    backfill.run(progress=progress)
    return Embedded(backfill.embedded, time.perf_counter() - started)


def _progress_bar(stream: TextIO, label: str) -> Any:
    if not stream.isatty():
        return None
    started = time.monotonic()

    def show(done: int, total: int) -> None:
        line = progress_line(label, done, total, time.monotonic() - started, _columns(stream))
        stream.write("\r" + line)
        if done == total:
            stream.write("\n")
        stream.flush()

    return show


def _columns(stream: TextIO) -> int:
    """The terminal's width now (it may be resized while a bar runs); 80 when it cannot say."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError):
        return 80


def progress_line(label: str, done: int, total: int, elapsed: float, columns: int = 80) -> str:
    """`label [####......] 120/300, 24/s, 8 s left`: the rate and what is left, once known. It
    fills all but the last column of a terminal `columns` wide, so that a `\\r` rewrites it in
    place (a line as wide as the terminal wraps, and each update stacks a new one); the bar
    gives up width first, then the line is cut."""
    counts = f" {done}/{total}"
    if done and elapsed > 0:
        rate = done / elapsed
        counts += f", {rate:,.0f}/s"
        if done < total:
            counts += f", {_duration((total - done) / rate)} left"
    room = max(columns - 1, 1)
    width = max(0, min(30, room - len(label) - len(counts) - 3))
    filled = width * done // max(total, 1)
    line = f"{label} [{'#' * filled}{'.' * (width - filled)}]{counts}"
    return line[:room].ljust(room)  # the padding wipes the end of a longer line before it


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return (
        f"{minutes} min {rest:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"
    )


def _vectors_line(status: VectorStatus, *, read_only: bool = False) -> str:
    if status.state == "off":
        return "vectors: off (embedder = none)"
    if status.state != "ready":
        why = status.problem or status.state
        return f"vectors: unavailable ({why}); keyword search only"
    if read_only:  # it never plans: what is pending is the writing process's to know and do
        return f"vectors: {status.stored} chunks by {status.embedder}; the writing process embeds"
    return f"vectors: {status.stored} chunks by {status.embedder}, {status.pending} pending"


def _print_summary(
    summary: IndexSummary,
    vault: Path,
    vectors: VectorStatus,
    embedded: Embedded,
    wall: float,
    *,
    as_json: bool,
) -> None:
    """`seconds` is the whole command's wall time; indexing and embedding have their own."""
    from memlsp import wire

    if as_json:
        data = wire.index_summary_json(
            summary,
            vectors,
            embedded_chunks=embedded.chunks,
            embedding_seconds=embedded.seconds,
            seconds=wall,
        )
        print(wire.json_text(data))
        return
    print(
        f"{printable(str(vault))}: {summary.notes} notes, {summary.chunks} chunks, "
        f"{summary.links} links "
        f"({summary.unresolved} unresolved, {summary.ambiguous} ambiguous); "
        f"{summary.added} added, {summary.modified} modified, {summary.deleted} deleted "
        f"in {wall:.2f} s"
    )
    if embedded.chunks:
        rate = embedded.chunks / max(embedded.seconds, 1e-9)
        print(
            f"embedding: {embedded.chunks} chunks in {embedded.seconds:.2f} s "
            f"({rate:,.1f} chunks/s, models loaded included)"
        )
    if summary.read_only:
        print(
            "read-only: another memlsp process (an editor's language server, or `memlsp serve`) "
            "writes this vault's index and embeds its notes; this is the index as it left it"
        )
    print(printable(_vectors_line(vectors, read_only=summary.read_only)))
    for label, items in (("skipped", summary.skipped), ("problems", summary.problems)):
        if items:
            print(f"{label} ({len(items)}):")
            for item in items:
                print(f"  {printable(item.path)}: {printable(item.reason)}")
