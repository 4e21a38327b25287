"""What a vault answers to `memlsp search`, `links`, `related`, `mentions`, `graph`, `read` and
`recent`, from one snapshot: each command is a function from the snapshot and its typed arguments
(commands/calls.py) to a domain value, from which its `wire` JSON and its text are made.

The command line prints them (`print_answer`), in a process of its own or, when another process
has the vault open, on the vault's socket (`answer_on_socket`), which also answers a typed call
with the answer's JSON; an agent's tools take the JSON itself (`answer_json`). `--json` is written
by `wire.json_text` alone, which escapes what would drive a terminal.
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from memlsp import wire
from memlsp.commands.arguments import UsageError, command_parser
from memlsp.commands.calls import Call, StatusCall, call_from_json, call_of, needs_vectors
from memlsp.commands.links import (
    NoNote,
    graph,
    graph_drawn,
    links,
    links_text,
    mentions,
    mentions_text,
    related,
    related_text,
)
from memlsp.commands.reading import read, read_text, recent, recent_json, recent_text
from memlsp.commands.request_reply import NotMine, Refused, Reply, Request, settings_key
from memlsp.commands.search import search, search_lines, search_text
from memlsp.commands.status import NotOpen, live_report, status_text
from memlsp.engine.engine import Engine
from memlsp.engine.snapshot import Snapshot
from memlsp.live.status import StatusReport
from memlsp.live.vault import LiveVault

# `search` embeds what is missing first only when that is quick (`memlsp index` embeds it all).
SEARCH_EMBED_LIMIT = 256
# How long a request over the socket waits for the vault: its first index, a rescan, and the
# vectors of what changed (as many as `search` in a process of its own would embed first).
READY_WAIT = 180.0
SETTLE_WAIT = 30.0
VECTORS_WAIT = 60.0


@dataclass(frozen=True, slots=True)
class Command:
    """One command: its answer from a snapshot, and that answer as JSON and as text."""

    answer: Callable[[Snapshot, Any], Any]
    json: Callable[[Any], Mapping[str, Any]]
    text: Callable[[Any, argparse.Namespace], str]


ANSWERED: dict[str, Command] = {
    "search": Command(search, wire.search_answer_json, search_text),
    "links": Command(links, wire.links_json, links_text),
    "related": Command(related, wire.related_json, related_text),
    "mentions": Command(mentions, wire.mentions_json, mentions_text),
    "graph": Command(graph, wire.graph_json, graph_drawn),
    "read": Command(read, wire.read_json, read_text),
    "recent": Command(recent, recent_json, recent_text),
}


# Answered from the live vault rather than from a snapshot alone (commands/status.py).
LIVE_ANSWERED = ("status",)


def answer_json(snapshot: Snapshot, call: Call, vault: str) -> Mapping[str, Any]:
    """The `wire` JSON of a typed call; `UsageError` naming `vault` when its note is not there."""
    return ANSWERED[call.command].json(_answer(snapshot, call, vault))


def status_json(vault: LiveVault) -> wire.StatusReportJson:
    """`memlsp status --json` of a vault this process has open, once its index is; `Refused`
    before."""
    return wire.status_report_json(_status_report(vault))


def _status_report(vault: LiveVault) -> StatusReport:
    """It does not wait for the disk: what the index has not seen yet is in the report."""
    _indexed(vault)
    try:
        return live_report(vault)
    except NotOpen as error:
        raise Refused(str(error)) from None


def print_answer(
    snapshot: Snapshot, args: argparse.Namespace, call: Call | None, out: TextIO
) -> None:
    """What `memlsp COMMAND ...` prints: JSON with `--json` (or `graph --format json`), else
    text; `call` is the command line's typed arguments, None for `search --queries`."""
    if call is None:
        search_lines(snapshot, args, out)
        return
    command = ANSWERED[call.command]
    answer = _answer(snapshot, call, args.vault)
    if args.json or getattr(args, "format", None) == "json":
        print(wire.json_text(command.json(answer)), file=out)
    else:
        print(command.text(answer, args), file=out)


def _answer(snapshot: Snapshot, call: Call, vault: object) -> Any:
    """The command's answer; its note not found is said with the vault as the asker named it."""
    try:
        return ANSWERED[call.command].answer(snapshot, call)
    except NoNote as error:
        raise UsageError(f"{error} in {vault}") from None


def command_call(args: argparse.Namespace) -> Call | None:
    """The typed arguments of a command line; None for `search --queries`, which has its own."""
    return None if args.command == "search" and args.queries is not None else call_of(args)


def reads_vectors(args: argparse.Namespace, call: Call | None) -> bool:
    """Whether the command reads vectors, so that what is missing is embedded first."""
    return needs_vectors(call) if call is not None else args.mode != "keyword"


def answer_on_socket(vault: LiveVault, request: Request) -> Reply:
    """A command of `ANSWERED` asked on the vault's socket, answered as this command line would
    answer it in a process of its own, from what is on disk now: a typed call with its JSON, a
    command line with what it prints. `Refused` when this process does not answer it."""
    cwd = Path(request.cwd)
    args = None
    if request.call is None:
        args = command_parser(for_socket=True).parse_args(request.argv)
        if args.command not in ANSWERED and args.command not in LIVE_ANSWERED:
            raise Refused(f"{args.command!r} is not answered over the socket")
        root = cwd / args.vault
    else:
        root = Path(str(request.call.get("vault", "") if isinstance(request.call, dict) else ""))
    if not root.is_absolute() or root.resolve() != vault.root:
        raise NotMine(f"this process serves {vault.root}")
    _check_settings(vault, request)
    try:
        if args is None:
            call = call_from_json(request.call)
            if isinstance(call, StatusCall):
                return Reply("", "", 0, dict(status_json(vault)))
            snapshot = ready_snapshot(vault, needs_vectors(call))
            with vault.activity.busy():
                return Reply("", "", 0, dict(answer_json(snapshot, call, str(root))))
        if args.command == "status":
            report = _status_report(vault)
            json = wire.status_report_json(report)
            return Reply((wire.json_text(json) if args.json else status_text(report)) + "\n", "", 0)
        if getattr(args, "queries", None) is not None:
            args.queries = cwd / args.queries
        command = command_call(args)
        snapshot = ready_snapshot(vault, reads_vectors(args, command))
        out = io.StringIO()
        with vault.activity.busy():
            print_answer(snapshot, args, command, out)
        return Reply(out.getvalue(), "", 0)
    except UsageError as error:
        return Reply("", f"memlsp: {error}\n", 2)


def _check_settings(vault: LiveVault, request: Request) -> None:
    """Refused until the vault is indexed; not this process's to answer with other settings."""
    engine = _indexed(vault)
    mine = tuple(sorted(settings_key(vault.settings, engine.cache_dir).items()))
    if request.settings != mine:
        theirs = dict(request.settings)
        differ = sorted(k for k, v in mine if theirs.get(k) != v)
        raise NotMine(f"opened with other settings ({', '.join(differ) or 'their names'})")


def _indexed(vault: LiveVault) -> Engine:
    """The vault's engine once its first index is open; Refused while it is not (or failed)."""
    engine = vault.engine if vault.wait_ready(READY_WAIT) else None
    if engine is None or vault.state == "failed":
        raise Refused(f"{vault.root} is not indexed: {vault.status().summary}")
    return engine


def ready_snapshot(vault: LiveVault, vectors: bool) -> Snapshot:
    """The vault's snapshot once it has caught up with the disk (and, when the answer reads
    vectors, embedded what changed, as a process of its own would first)."""
    _indexed(vault)
    if not vault.settle(SETTLE_WAIT):
        raise Refused("the index did not catch up with the disk in time")
    if vectors:
        vault.vectors_settled(SEARCH_EMBED_LIMIT, VECTORS_WAIT)  # else it says what is missing
    snapshot = vault.read()
    assert snapshot is not None  # the engine is open: it never closes again
    return snapshot
