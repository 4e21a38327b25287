"""The printed answers to `memlsp search`, `links`, `related`, `mentions`, `graph`, `read` and
`recent` (those two in commands/reading.py), from one snapshot of the vault: the same text whether the
command runs in a process of its own or a process that has the vault open answers it on the
vault's socket (`answer_on_socket`)."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from memlsp import wire
from memlsp.commands.arguments import DEPTHS, UsageError, command_parser
from memlsp.commands.graph_text import graph_dot, graph_mermaid, graph_text
from memlsp.commands.reading import read, recent
from memlsp.commands.request_reply import NotMine, Refused, Reply, Request, settings_key
from memlsp.engine.snapshot import Snapshot
from memlsp.live.vault import LiveVault
from memlsp.model import MOST_MEANING, ResolvedLink, SearchRequest, printable
from memlsp.navigation.graph_meaning import graph_around
from memlsp.navigation.mentions import mentions_of
from memlsp.search.render import response_text
from memlsp.search.request import FIELDS, build_request

# `search` embeds what is missing first only when that is quick (`memlsp index` embeds it all).
SEARCH_EMBED_LIMIT = 256
# How long a request over the socket waits for the vault: its first index, a rescan, and the
# vectors of what changed (as many as `search` in a process of its own would embed first).
READY_WAIT = 180.0
SETTLE_WAIT = 30.0
VECTORS_WAIT = 60.0


def answer_on_socket(vault: LiveVault, request: Request) -> Reply:
    """A command of `ANSWERED` asked on the vault's socket, answered as this command line would
    answer it in a process of its own, from what is on disk now; `Refused` when not."""
    args = command_parser(for_socket=True).parse_args(request.argv)
    if args.command not in ANSWERED:
        raise Refused(f"{args.command!r} is not answered over the socket")
    cwd = Path(request.cwd)
    if (cwd / args.vault).resolve() != vault.root:
        raise NotMine(f"this process serves {vault.root}")
    engine = vault.engine if vault.wait_ready(READY_WAIT) else None
    if engine is None or vault.state == "failed":
        raise Refused(f"{vault.root} is not indexed: {vault.status().summary}")
    mine = tuple(sorted(settings_key(vault.settings, engine.cache_dir).items()))
    if request.settings != mine:
        theirs = dict(request.settings)
        differ = sorted(k for k, v in mine if theirs.get(k) != v)
        raise NotMine(f"opened with other settings ({', '.join(differ) or 'their names'})")
    if getattr(args, "queries", None) is not None:
        args.queries = cwd / args.queries
    if not vault.settle(SETTLE_WAIT):
        raise Refused("the index did not catch up with the disk in time")
    if needs_vectors(args):
        vault.vectors_settled(SEARCH_EMBED_LIMIT, VECTORS_WAIT)  # else it says what is missing
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with vault.activity.busy():
        try:
            snapshot = vault.read()
            assert snapshot is not None  # the engine is open: it never closes again
            ANSWERED[args.command](snapshot, args, out)
        except UsageError as error:
            print(f"memlsp: {error}", file=err)
            code = 2
    return Reply(out.getvalue(), err.getvalue(), code)


def needs_vectors(args: argparse.Namespace) -> bool:
    """Whether a command reads vectors, so that what is missing is embedded first."""
    if args.command == "graph":
        return bool(args.meaning > 0)
    return args.command == "related" or (args.command == "search" and bool(args.mode != "keyword"))


# Fields whose flag is not their name: one --path or --tag at a time, repeated.
_FLAGS = {"paths": "--path", "tags": "--tag"}


def _search_request(
    args: argparse.Namespace, query: str, overrides: dict[str, Any]
) -> SearchRequest:
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
        "fusion": args.fusion,
        "paths": args.paths,
        "tags": args.tags,
    }

    values.update((key, overrides[key]) for key in FIELDS if key in overrides and key != "query")
    try:
        return build_request(values)
    except ValueError as error:
        message = str(error)
        for key in FIELDS:  # name the flag the user typed: 'start_date' -> --start-date
            message = message.replace(f"'{key}'", _FLAGS.get(key, "--" + key.replace("_", "-")))
        raise UsageError(message) from error


def search(snapshot: Snapshot, args: argparse.Namespace, out: TextIO) -> None:

    if args.queries is None:
        if not args.query:
            raise UsageError("give a QUERY or --queries FILE.jsonl")
        response = snapshot.search(_search_request(args, args.query, {}))
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
            response = snapshot.search(_search_request(args, query, entry))
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


def links(snapshot: Snapshot, args: argparse.Namespace, out: TextIO) -> None:

    path = snapshot.find_note(args.note)
    if path is None:
        raise UsageError(f"no note {args.note!r} in {args.vault}")
    links = snapshot.links(path)
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


def related(snapshot: Snapshot, args: argparse.Namespace, out: TextIO) -> None:
    """One line per related note: `0.82  path  [linked]  reason`."""
    if args.limit < 1:
        raise UsageError(f"--limit must be at least 1, not {args.limit}")
    path = snapshot.find_note(args.note)
    if path is None:
        raise UsageError(f"no note {args.note!r} in {args.vault}")
    answer = snapshot.related(path, args.limit)
    if args.json:
        print(json.dumps(wire.related_json(answer), ensure_ascii=False, indent=2), file=out)
        return
    lines = [f"note: {answer.warning}"] if answer.warning else []
    for note in answer.results:
        linked = "  [linked]" if note.linked else ""
        lines.append(f"{note.score:.2f}  {note.path}{linked}  {note.reason}")
    if not answer.results and not answer.warning:
        lines.append(f"no notes related to {path}")
    for line in lines:
        print(printable(line), file=out)


def mentions(snapshot: Snapshot, args: argparse.Namespace, out: TextIO) -> None:
    """One line per unlinked mention: `path:line:column  text  -> target(s)`."""
    path = snapshot.find_note(args.note)
    if path is None:
        raise UsageError(f"no note {args.note!r} in {args.vault}")
    answer = mentions_of(
        snapshot.view, path, snapshot.candidates_for_names, snapshot.settings.mention_min_length
    )
    if args.json:
        print(json.dumps(wire.mentions_json(answer), ensure_ascii=False, indent=2), file=out)
        return
    print(printable(path), file=out)
    if answer.warning:
        print(f"({printable(answer.warning)})", file=out)
    for mention in answer.mentions:
        where = f"{mention.path}:{mention.span.line + 1}:{mention.span.start + 1}"
        targets = ", ".join(mention.targets)
        print(printable(f"{where}  {mention.text}  -> {targets}"), file=out)
    count = len(answer.mentions)
    total = f"{count} unlinked mention{'' if count == 1 else 's'}"
    if answer.left_out:
        total += f", {answer.left_out} more not listed"
    print(total, file=out)


def graph(snapshot: Snapshot, args: argparse.Namespace, out: TextIO) -> None:
    """The link graph around a note and its closest notes by meaning, as text (one line per
    edge, then a summary), JSON, Mermaid or DOT."""
    if args.depth not in DEPTHS:
        raise UsageError(f"--depth must be from {DEPTHS[0]} to {DEPTHS[-1]}, not {args.depth}")
    if args.max_per_node < 1:
        raise UsageError(f"--max-per-node must be at least 1, not {args.max_per_node}")
    if not 0 <= args.meaning <= MOST_MEANING:
        raise UsageError(f"--meaning must be from 0 to {MOST_MEANING}, not {args.meaning}")
    path = snapshot.find_note(args.note)
    if path is None:
        raise UsageError(f"no note {args.note!r} in {args.vault}")
    answer = graph_around(
        snapshot.graph,
        path,
        snapshot.related,
        args.depth,
        args.direction,
        args.meaning,
        args.max_per_node,
    )
    chosen = "json" if args.json else args.format
    if chosen == "json":
        print(json.dumps(wire.graph_json(answer), ensure_ascii=False, indent=2), file=out)
    elif chosen == "mermaid":
        print(graph_mermaid(answer), file=out)
    elif chosen == "dot":
        print(graph_dot(answer), file=out)
    else:
        print(graph_text(answer), file=out)


ANSWERED: dict[str, Callable[[Snapshot, argparse.Namespace, TextIO], None]] = {
    "search": search,
    "links": links,
    "related": related,
    "mentions": mentions,
    "graph": graph,
    "read": read,
    "recent": recent,
}


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
