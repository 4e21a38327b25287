"""The command line's arguments: one parser for the terminal, and for arguments that came over a
vault's socket (where a bad one raises instead of printing and exiting)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NoReturn

from memlsp import __version__
from memlsp.commands.request_reply import Refused
from memlsp.model import (
    DIRECTIONS,
    MAX_DEPTH,
    MAX_PER_NODE,
    MEANING,
    MIN_DEPTH,
    MOST_MEANING,
    SEARCH_MODES,
)
from memlsp.settings.table import EMBEDDERS, FUSION_RULES

IDLE = 600.0  # seconds without a request before `memlsp serve` exits
# `memlsp graph --depth`: the graph view's bounds, the same on every surface.
DEPTHS = range(MIN_DEPTH, MAX_DEPTH + 1)
GRAPH_FORMATS = ("text", "json", "mermaid", "dot")


class UsageError(Exception):
    """Bad input from the command line: one clear message, exit status 2."""


class _Refusing(argparse.ArgumentParser):
    """For arguments that came over a socket: a bad one raises, where argparse would print and
    exit (the language server's stdout is its protocol). No `--help` or `--version` either."""

    def error(self, message: str) -> NoReturn:
        raise Refused(f"bad arguments: {message}")


def command_parser(*, for_socket: bool = False) -> argparse.ArgumentParser:
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
        "--fusion",
        choices=FUSION_RULES,
        help="how both sides become one list: evidence weighs their scores, rrf (reciprocal rank "
        "fusion) their ranks alone (default: the fusion setting)",
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
    search.add_argument(
        "--path",
        action="append",
        dest="paths",
        metavar="PATH",
        help="search only notes under this vault-relative folder, this note, or matching this glob "
        "(* and ? within a name, ** across folders); repeat for any of several",
    )
    search.add_argument(
        "--tag",
        action="append",
        dest="tags",
        metavar="TAG",
        help="search only notes with this tag (# optional, any case; a nested tag counts for its "
        "parent: project finds project/memlsp); repeat for any of several",
    )
    search.add_argument(
        "--explain",
        action="append",
        metavar="NOTE",
        help="say why this note (a vault-relative path or a note's name; NAME#Heading for a "
        "section) is or is not in the answer, with its evidence; repeat for several. The "
        "results stay the same",
    )
    search.add_argument(
        "--about",
        action="append",
        metavar="NOTE",
        help="favour results about this note (a path or a name): the note itself and the notes "
        "that link to it or name it rank first, each group in its order (the about_boost "
        "setting); repeat for several",
    )
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
    _filter_flags(search, "search only notes")
    search.add_argument(
        "--no-recall",
        action="store_true",
        help="do not count this search's results as recalled (for benchmarks and scripts)",
    )

    links = vault_command("links", "outlinks, inlinks, unresolved and ambiguous links of a note")
    links.add_argument("note", help="vault-relative path or note name")
    links.add_argument("--json", action="store_true")
    related = vault_command("related", "the notes closest in meaning to a note")
    related.add_argument("note", help="vault-relative path or note name")
    related.add_argument("--limit", type=int, default=10)
    related.add_argument("--json", action="store_true")
    mentions = vault_command(
        "mentions", "where other notes write a note's name as plain text (unlinked mentions)"
    )
    mentions.add_argument("note", help="vault-relative path or note name")
    mentions.add_argument("--json", action="store_true")
    graph = vault_command("graph", "the link graph around a note: its nodes and edges")
    graph.add_argument("note", help="vault-relative path or note name")
    graph.add_argument(
        "--depth",
        type=int,
        default=1,
        help=f"links from the note, {DEPTHS[0]} to {DEPTHS[-1]} (default 1)",
    )
    graph.add_argument(
        "--direction",
        choices=DIRECTIONS,
        default="both",
        help="follow outlinks, inlinks or both (default both)",
    )
    graph.add_argument(
        "--max-per-node",
        type=int,
        default=MAX_PER_NODE,
        metavar="N",
        help=f"neighbours one note brings in per direction, in path order (default {MAX_PER_NODE})",
    )
    graph.add_argument(
        "--meaning",
        type=int,
        default=MEANING,
        metavar="N",
        help=f"also the N notes closest in meaning, 0 to {MOST_MEANING} (default {MEANING}; "
        "0: links only)",
    )
    graph.add_argument(
        "--format",
        choices=GRAPH_FORMATS,
        default="text",
        help="text (one line per edge), json, mermaid (a flowchart) or dot (Graphviz)",
    )
    graph.add_argument("--json", action="store_true", help="the same as --format json")
    read = vault_command("read", "a note, one section of it or some of its lines, as it is now")
    read.add_argument("note", help="vault-relative path or note name")
    read.add_argument(
        "--heading", help="the section under this heading; A#B: heading B inside A, as in a link"
    )
    read.add_argument(
        "--start-line", type=int, help="first line, 1-based (a line of the file, also in a section)"
    )
    read.add_argument("--end-line", type=int, help="last line, inclusive")
    read.add_argument(
        "--budget-tokens", type=int, help="keep whole lines while they fit; says how to read on"
    )
    read.add_argument(
        "--json", action="store_true", help="with the frontmatter, headings and links"
    )
    recent = vault_command("recent", "the notes changed lately, newest first")
    recent.add_argument(
        "--days", type=float, default=7.0, help="how far back to look (default 7; 0.5 is 12 h)"
    )
    recent.add_argument("--limit", type=int, default=20)
    recent.add_argument("--json", action="store_true")
    _filter_flags(recent, "list only notes")
    recent.add_argument(
        "--recalled",
        action="store_true",
        help="the notes searches showed most often (recalled within --days), most first",
    )
    status = vault_command(
        "status", "the vault's state: counts, files that are not notes, problems, settings"
    )
    status.add_argument("--json", action="store_true", help="the report as JSON")
    for command in (search, links, related, mentions, graph, read, recent, status):
        command.add_argument(
            "--no-daemon",
            action="store_true",
            help="run here, not in a `memlsp serve` or language server that has the vault open",
        )

    mcp = commands.add_parser(
        "mcp",
        help="serve the vault to agents over the Model Context Protocol (stdio, or --http)",
        add_help=not for_socket,
    )
    mcp.add_argument(
        "vault",
        type=Path,
        nargs="?",
        help="the vault folder (default: the vault the current folder belongs to)",
    )
    mcp.add_argument("--cache-dir", type=Path, help="where indexes live, one folder per vault")
    mcp.add_argument("--embedder", choices=EMBEDDERS, help="semantic search model")
    mcp.add_argument("--chroma-url", help="a Chroma server instead of the embedded store")
    mcp.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="streamable HTTP instead of stdio, e.g. 127.0.0.1:8765; another address than "
        "loopback needs MEMLSP_MCP_TOKEN set (clients send it as a bearer token)",
    )
    mcp.add_argument(
        "--allow-writes",
        action="store_true",
        help="offer the write tool: agents may create notes, append to them, replace sections",
    )

    serve = vault_command("serve", "keep the vault open and answer searches on a local socket")
    serve.add_argument(
        "--idle",
        type=_seconds,
        default=IDLE,
        metavar="SECONDS",
        help=f"exit after this long without a request (default {IDLE:.0f})",
    )
    return parser


def _filter_flags(parser: argparse.ArgumentParser, which: str) -> None:
    """`--where` and `--type`, one list of property filters (search/where.py) in their order."""
    parser.add_argument(
        "--where",
        action="append",
        metavar="FILTER",
        help=f"{which} whose frontmatter holds this: KEY=VALUE, KEY!=VALUE, KEY (present), "
        "KEY<VALUE, KEY<=VALUE, KEY>VALUE, KEY>=VALUE (numbers, dates); any case; a list holds "
        "it when an element does; repeat: all must hold",
    )
    parser.add_argument(
        "--type",
        action="append",
        dest="where",
        type=lambda value: f"type={value}",
        metavar="TYPE",
        help="short for --where type=TYPE",
    )


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value
