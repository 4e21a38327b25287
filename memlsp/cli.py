"""The command line: `memlsp index | search | links`, each a thin adapter over the engine."""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from memlsp import __version__, daemon
from memlsp.config import (
    EMBEDDERS,
    Settings,
    cache_dir_for,
    load_vault_settings,
    settings_from,
    user_settings,
)
from memlsp.heap import limit_arenas
from memlsp.model import (
    SEARCH_MODES,
    UNPRINTABLE,
    IndexSummary,
    ResolvedLink,
    SearchRequest,
    printable,
)

# The index, the models and what renders answers are imported where they are used: a command
# that a running server answers must not pay for them (see `_ask_server`).
if TYPE_CHECKING:
    from memlsp.engine import Engine
    from memlsp.index.semantic import VectorStatus
    from memlsp.live import LiveVault

log = logging.getLogger(__name__)


class UsageError(Exception):
    """Bad input from the command line: one clear message, exit status 2."""


class _Refusing(argparse.ArgumentParser):
    """For arguments that came over a socket: a bad one raises, where argparse would print and
    exit (the language server's stdout is its protocol). No `--help` or `--version` either."""

    def error(self, message: str) -> NoReturn:
        raise daemon.Refused(f"bad arguments: {message}")


def _parser(*, for_socket: bool = False) -> argparse.ArgumentParser:
    parser = (_Refusing if for_socket else argparse.ArgumentParser)(
        prog="memlsp",
        description="Search and navigate a Markdown vault (Obsidian-style notes).",
        epilog="As a language server for an editor: memlsp --stdio (or --tcp HOST:PORT).",
        add_help=not for_socket,
    )
    if not for_socket:
        parser.add_argument("--version", action="version", version=f"memlsp {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    # Handled before parsing (see `main`); listed here so that --help shows every mode.
    parser.add_argument(
        "--stdio", action="store_true", help="run the language server over stdin/stdout"
    )
    parser.add_argument(
        "--tcp", metavar="HOST:PORT", help="run the language server on a TCP port (debugging)"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def vault_command(name: str, help_text: str) -> argparse.ArgumentParser:
        command = commands.add_parser(name, help=help_text, add_help=not for_socket)
        command.add_argument("vault", type=Path, help="the vault folder")
        command.add_argument(
            "--cache-dir",
            type=Path,
            help="where indexes live, one folder per vault (default: the per-user cache)",
        )
        command.add_argument(
            "--embedder", choices=EMBEDDERS, help="semantic search model (default: bilingual)"
        )
        command.add_argument("--chroma-url", help="a Chroma server instead of the embedded store")
        return command

    index = vault_command("index", "bring the index up to date and print a summary")
    index.add_argument("--json", action="store_true", help="print the summary as JSON")

    search = vault_command("search", "search the vault (the index is refreshed first)")
    search.add_argument("query", nargs="?", help="what to look for")
    search.add_argument(
        "--queries", type=Path, help='JSONL file of {"id": ..., "query": ...} lines'
    )
    search.add_argument("--limit", type=int, default=10)
    search.add_argument(
        "--mode", choices=SEARCH_MODES, default="hybrid", help="both sides fused, or one alone"
    )
    search.add_argument(
        "--min-score",
        type=float,
        default=0.0,
        help="0-1: leave out results scoring less (a score is the same measure for every query)",
    )
    search.add_argument(
        "--min-strength",
        type=float,
        help="0-1: answer nothing when the query's best evidence is weaker (default: the setting)",
    )
    search.add_argument("--start-date", help="YYYY-MM-DD, inclusive")
    search.add_argument("--end-date", help="YYYY-MM-DD, inclusive")
    search.add_argument("--no-expand", action="store_true", help="leave out linked notes")
    search.add_argument("--budget-tokens", type=int, help="keep results while they fit this budget")
    search.add_argument(
        "--sections",
        action="store_true",
        help="list each matching section (by default a note once, at its best section)",
    )
    search.add_argument(
        "--json", action="store_true", help="JSON with the evidence for each result"
    )

    links = vault_command("links", "outlinks, inlinks, unresolved and ambiguous links of a note")
    links.add_argument("note", help="vault-relative path or note name")
    links.add_argument("--json", action="store_true")
    for command in (search, links):
        command.add_argument(
            "--no-daemon",
            action="store_true",
            help="run here, not in a `memlsp serve` or language server that has the vault open",
        )

    serve = vault_command("serve", "keep the vault open and answer searches on a local socket")
    serve.add_argument(
        "--idle",
        type=_seconds,
        default=daemon.IDLE,
        metavar="SECONDS",
        help=f"exit after this long without a request (default {daemon.IDLE:.0f})",
    )
    return parser


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    limit_arenas()  # before any thread starts (memlsp/heap.py)
    arguments = list(sys.argv[1:] if argv is None else argv)
    if "--stdio" in arguments or "--tcp" in arguments:
        return _serve(arguments)
    args = _parser().parse_args(arguments)
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


def _run(args: argparse.Namespace, arguments: list[str]) -> int:
    started = time.perf_counter()
    vault: Path = args.vault
    if not vault.is_dir():
        raise UsageError(f"vault folder not found: {vault}")
    settings = _settings(args)
    if args.command == "serve":
        return _serve_vault(args, settings)
    if args.command in ("search", "links"):
        reply = _ask_server(args, arguments, settings)
        if reply is not None:
            sys.stdout.write(reply.stdout)
            sys.stderr.write(reply.stderr)
            return reply.code
    from memlsp.engine import Engine

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
                summary, vault, engine.vector_status(), embedded, wall, as_json=args.json
            )
        elif args.command == "search":
            if args.mode != "keyword":
                _embed(engine, limit=SEARCH_EMBED_LIMIT)
            _search(engine, args, sys.stdout)
        else:
            _links(engine, args, sys.stdout)
    finally:
        engine.close()
    return 0


# `search` embeds what is missing only when that is quick; `index` embeds everything.
# Chunks per step in a command, where no request waits: each step is one write per vector
# collection, ~17 ms whatever its size, so big steps save a fifth of knowledge-garden's time.
INDEX_BATCH = 256
SEARCH_EMBED_LIMIT = 256


def _settings(args: argparse.Namespace) -> Settings:
    """Defaults, the user config file, what the vault's `.memlsp.toml` may set, then the command
    line's flags (which the vault's file cannot override)."""
    cache_dir = None if args.cache_dir is None else str(args.cache_dir)
    flags = {"cache_dir": cache_dir, "embedder": args.embedder, "chroma_url": args.chroma_url}
    given = {k: v for k, v in flags.items() if v is not None}
    chosen, problems = settings_from(given)
    settings, more = user_settings(chosen, keys=given)
    settings, most = load_vault_settings(args.vault, settings)
    for problem in more + problems + most:
        print(f"memlsp: {problem}", file=sys.stderr)
    return settings


# -- a process that has the vault open answers (memlsp/daemon.py) -------------------------------


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
    return daemon.serve(args.vault.resolve(), settings, args.idle, answer)


# How long a request over the socket waits for the vault: its first index, a rescan, and the
# vectors of what changed (as many as `search` in a process of its own would embed first).
READY_WAIT = 180.0
SETTLE_WAIT = 30.0
VECTORS_WAIT = 60.0


def answer(vault: LiveVault, request: daemon.Request) -> daemon.Reply:
    """A `search` or `links` asked on the vault's socket, answered as this command line would
    answer it in a process of its own, from what is on disk now; `daemon.Refused` when not."""
    args = _parser(for_socket=True).parse_args(request.argv)
    if args.command not in ("search", "links"):
        raise daemon.Refused(f"{args.command!r} is not answered over the socket")
    cwd = Path(request.cwd)
    if (cwd / args.vault).resolve() != vault.root:
        raise daemon.NotMine(f"this process serves {vault.root}")
    if not vault.wait_ready(READY_WAIT) or vault.engine is None or vault.state == "failed":
        raise daemon.Refused(f"{vault.root} is not indexed: {vault.status().summary}")
    engine = vault.engine
    mine = tuple(sorted(daemon.settings_key(vault.settings, engine.cache_dir).items()))
    if request.settings != mine:
        theirs = dict(request.settings)
        differ = sorted(k for k, v in mine if theirs.get(k) != v)
        raise daemon.NotMine(f"opened with other settings ({', '.join(differ) or 'their names'})")
    if getattr(args, "queries", None) is not None:
        args.queries = cwd / args.queries
    if not vault.settle(SETTLE_WAIT):
        raise daemon.Refused("the index did not catch up with the disk in time")
    if args.command == "search" and args.mode != "keyword":
        vault.vectors_settled(SEARCH_EMBED_LIMIT, VECTORS_WAIT)  # else it says what is missing
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with vault.activity.busy():
        try:
            (_search if args.command == "search" else _links)(engine, args, out)
        except UsageError as error:
            print(f"memlsp: {error}", file=err)
            code = 2
    return daemon.Reply(out.getvalue(), err.getvalue(), code)


@dataclass(frozen=True, slots=True)
class Embedded:
    """What one command embedded, and how long that took (loading the models included)."""

    chunks: int = 0
    seconds: float = 0.0


def _embed(engine: Engine, limit: int | None) -> Embedded:
    """Give chunks their vectors: all of them, or none when more than `limit` are missing."""
    from memlsp.backfill import Backfill

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
        stream.write("\r" + progress_line(label, done, total, time.monotonic() - started))
        if done == total:
            stream.write("\n")
        stream.flush()

    return show


def progress_line(label: str, done: int, total: int, elapsed: float) -> str:
    """`label [####......] 120/300, 24/s, 8 s left`: the rate and what is left, once known."""
    width = 30
    filled = width * done // max(total, 1)
    line = f"{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
    if done and elapsed > 0:
        rate = done / elapsed
        line += f", {rate:,.0f}/s"
        if done < total:
            line += f", {_duration((total - done) / rate)} left"
    return line + " " * 8  # wipes the end of a longer line before it


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
        print(_json_text(data))
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


def _json_text(data: object) -> str:
    """JSON keeping names as they are, with what `printable` escapes escaped the JSON way: json
    escapes C0 controls itself but leaves DEL, C1, bidi controls and lone surrogates (a name that
    is not UTF-8) raw, and a lone surrogate cannot be written as UTF-8 at all. Outside strings
    the only such character is the newline of the indentation."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    return UNPRINTABLE.sub(lambda m: m[0] if m[0] == "\n" else f"\\u{ord(m[0]):04x}", text)


def _request(args: argparse.Namespace, query: str, overrides: dict[str, Any]) -> SearchRequest:
    """The request for one query: the command line's flags, then a JSONL line's own fields."""
    values: dict[str, Any] = {
        "query": query,
        "limit": args.limit,
        "min_score": args.min_score,
        "min_strength": args.min_strength,
        "start_date": args.start_date,
        "end_date": args.end_date,
        "expand": not args.no_expand,
        "budget_tokens": args.budget_tokens,
        "mode": args.mode,
        "sections": args.sections,
    }
    from memlsp.search.request import FIELDS, build_request

    values.update((key, overrides[key]) for key in FIELDS if key in overrides and key != "query")
    try:
        return build_request(values)
    except ValueError as error:
        message = str(error)
        for key in FIELDS:  # name the flag the user typed: 'start_date' -> --start-date
            message = message.replace(f"'{key}'", "--" + key.replace("_", "-"))
        raise UsageError(message) from error


def _search(engine: Engine, args: argparse.Namespace, out: TextIO) -> None:
    from memlsp import wire
    from memlsp.search.render import response_text

    if args.queries is None:
        if not args.query:
            raise UsageError("give a QUERY or --queries FILE.jsonl")
        response = engine.search(_request(args, args.query, {}))
        if args.json:
            data = wire.search_answer_json(response)
            print(json.dumps(data, ensure_ascii=False, indent=2), file=out)
        else:
            print(response_text(response), file=out)
        return
    if not args.queries.is_file():
        raise UsageError(f"queries file not found: {args.queries}")
    for number, entry in _query_lines(args.queries):
        query_id = entry.get("id", number)
        try:
            query = entry["query"]
            if not isinstance(query, str):
                raise UsageError("'query' must be a string")
            response = engine.search(_request(args, query, entry))
            answer: wire.QueryAnswerJson | wire.QueryErrorJson = wire.query_answer_json(
                query_id, response
            )
        except (KeyError, UsageError, ValueError, TypeError) as error:
            answer = wire.query_error_json(query_id, f"line {number}: {error}")
        print(json.dumps(answer, ensure_ascii=False), file=out)


def _query_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as error:
                entry = {"error": str(error)}
            yield number, entry if isinstance(entry, dict) else {"error": "not a JSON object"}


def _links(engine: Engine, args: argparse.Namespace, out: TextIO) -> None:
    from memlsp import wire

    path = engine.find_note(args.note)
    if path is None:
        raise UsageError(f"no note {args.note!r} in {args.vault}")
    links = engine.links(path)
    groups = {
        "outlinks": links.outlinks,
        "inlinks": links.inlinks,
        "unresolved": links.unresolved,
        "ambiguous": links.ambiguous,
    }
    if args.json:
        print(json.dumps(wire.links_json(links), ensure_ascii=False, indent=2), file=out)
        return
    print(printable(path), file=out)
    for label, items in groups.items():
        print(f"{label} ({len(items)}):", file=out)
        for item in items:
            print("  " + printable(_link_text(item, inbound=label == "inlinks")), file=out)


def _link_text(item: ResolvedLink, *, inbound: bool) -> str:
    link = item.link
    anchor = f"#{link.anchor}" if link.anchor else ""
    where = f"{item.source}:{link.span.line + 1}"
    if inbound:
        return f"{where} -> {link.target or '(this note)'}{anchor}"
    status = item.resolution.status.value
    targets = ", ".join(item.resolution.targets) or "-"
    text = (
        f"line {link.span.line + 1}: {link.target or '(this note)'}{anchor} -> {targets} [{status}]"
    )
    if item.resolution.candidates:
        text += " candidates: " + ", ".join(item.resolution.candidates)
    return text
