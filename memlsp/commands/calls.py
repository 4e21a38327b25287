"""The typed arguments of the commands a vault answers (`search`, `links`, `related`, `mentions`,
`graph`, `read`, `recent`, `status`): one frozen value per command, checked once, where it is built.

They are built from the command line's flags (`call_of`), from an MCP tool's parameters (the
agent layer builds them directly), or from a socket request's JSON (`call_from_json`, the inverse
of `call_json`). `argv` gives the command line that asks the same, for a server too old to take a
typed request. A bad argument is a `UsageError` whose message names the command line's flag.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from memlsp.commands.arguments import UsageError
from memlsp.model import (
    MAX_LIMIT,
    MAX_PER_NODE,
    MEANING,
    Direction,
    SearchRequest,
    quoted,
)
from memlsp.queries.graph_view import GraphAsk, graph_ask
from memlsp.search.request import FIELDS, build_request
from memlsp.search.where import conditions_of

# `recent`: the notes changed lately, newest first, or those recalled lately, most often first.
RECENT_ORDERS = ("changed", "recalled")
# `recent --days`: beyond this the window reaches back before 1970 anyway, and a larger number
# would overflow the nanoseconds it is turned into.
MAX_DAYS = 1_000_000.0


@dataclass(frozen=True, slots=True)
class SearchCall:
    request: SearchRequest
    command: ClassVar[str] = "search"


@dataclass(frozen=True, slots=True)
class LinksCall:
    note: str
    command: ClassVar[str] = "links"


@dataclass(frozen=True, slots=True)
class RelatedCall:
    note: str
    limit: int = 10
    command: ClassVar[str] = "related"

    def __post_init__(self) -> None:
        _limit(self.limit)


@dataclass(frozen=True, slots=True)
class MentionsCall:
    note: str
    command: ClassVar[str] = "mentions"


@dataclass(frozen=True, slots=True)
class GraphCall:
    note: str
    depth: int = 1
    direction: Direction = "both"
    meaning: int = MEANING
    max_per_node: int = MAX_PER_NODE
    command: ClassVar[str] = "graph"

    def __post_init__(self) -> None:
        self.ask(self.note)  # checked by the rule every surface's graph view is checked by

    def ask(self, path: str) -> GraphAsk:
        """The graph view this call asks of the note at `path`; UsageError names the flag."""
        values = {
            "depth": self.depth,
            "direction": self.direction,
            "meaning": self.meaning,
            "max_per_node": self.max_per_node,
        }
        try:
            return graph_ask(path, values, named=flag_of)
        except ValueError as error:
            raise UsageError(str(error)) from None


@dataclass(frozen=True, slots=True)
class ReadCall:
    note: str
    heading: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    budget_tokens: int | None = None
    command: ClassVar[str] = "read"

    def __post_init__(self) -> None:
        if self.budget_tokens is not None:
            _at_least_one("--budget-tokens", self.budget_tokens)


@dataclass(frozen=True, slots=True)
class RecentCall:
    days: float = 7.0
    limit: int = 20
    where: tuple[str, ...] = ()  # property filters (search/where.py), all to hold
    by: str = "changed"  # one of RECENT_ORDERS
    command: ClassVar[str] = "recent"

    def __post_init__(self) -> None:
        if self.by not in RECENT_ORDERS:
            raise UsageError(f'\'by\' must be "changed" or "recalled", not {quoted(self.by)}')
        try:
            where = tuple(condition.text for condition in conditions_of(self.where))
        except ValueError as error:
            raise UsageError(str(error).replace("'where'", "--where")) from None
        object.__setattr__(self, "where", where)
        if isinstance(self.days, bool) or not isinstance(self.days, int | float):
            raise UsageError(f"--days must be a number of days, not {self.days!r}")
        object.__setattr__(self, "days", float(self.days))  # 7 days answer as 7.0, as `--days 7`
        if not (math.isfinite(self.days) and self.days > 0):
            raise UsageError(f"--days must be a number of days above 0, not {self.days:g}")
        if self.days > MAX_DAYS:
            raise UsageError(f"--days must be at most {MAX_DAYS:,.0f}, not {self.days:g}")
        _limit(self.limit)


@dataclass(frozen=True, slots=True)
class StatusCall:
    """The vault's status report: answered from the live vault, not from a snapshot alone."""

    command: ClassVar[str] = "status"


Call: TypeAlias = (
    SearchCall
    | LinksCall
    | RelatedCall
    | MentionsCall
    | GraphCall
    | ReadCall
    | RecentCall
    | StatusCall
)
CALLS: dict[str, type[Call]] = {
    kind.command: kind
    for kind in (
        SearchCall,
        LinksCall,
        RelatedCall,
        MentionsCall,
        GraphCall,
        ReadCall,
        RecentCall,
        StatusCall,
    )
}


def _limit(value: int) -> None:
    _whole("--limit", value)
    if not 1 <= value <= MAX_LIMIT:
        raise UsageError(f"--limit must be from 1 to {MAX_LIMIT:,}, not {value}")


def _at_least_one(flag: str, value: int) -> None:
    _whole(flag, value)
    if value < 1:
        raise UsageError(f"{flag} must be at least 1, not {value}")


def _whole(flag: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):  # True is an int to Python
        raise UsageError(f"{flag} must be a whole number, not {value!r}")


# -- from the command line ------------------------------------------------------------------------

# Fields whose flag is not their name: one --path or --tag at a time, repeated; the query is
# `memlsp search VAULT QUERY`'s argument; `record` false is `--no-recall`.
_FLAGS = {"paths": "--path", "tags": "--tag", "query": "QUERY", "record": "--no-recall"}
# Flags that make a search without a QUERY a list of the notes they match (search/listing.py).
_FILTERS = ("where", "paths", "tags", "start_date", "end_date")


def flag_of(name: str) -> str:
    """The command line's flag for an argument: 'start_date' -> --start-date."""
    return _FLAGS.get(name, "--" + name.replace("_", "-"))


def search_request(
    args: argparse.Namespace, query: str, overrides: Mapping[str, Any]
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
        "explain": args.explain,
        "about": args.about,
        "where": args.where,
        "record": not args.no_recall,
    }
    values.update((key, overrides[key]) for key in FIELDS if key in overrides and key != "query")
    return checked_request(values)


def checked_request(values: Mapping[str, Any]) -> SearchRequest:
    """`build_request`, its complaint naming the flag the user typed: 'start_date' -> --start-date."""
    try:
        return build_request(values)
    except ValueError as error:
        message = str(error)
        for key in FIELDS:
            message = message.replace(f"'{key}'", flag_of(key))
        raise UsageError(message) from error


def call_of(args: argparse.Namespace) -> Call:
    """The typed arguments of a command line (a `search` with its QUERY, not `--queries`)."""
    command = args.command
    if command == "search":
        if args.query is None and not any(getattr(args, name) for name in _FILTERS):
            raise UsageError("give a QUERY, --queries FILE.jsonl, or filters like --where")
        return SearchCall(search_request(args, args.query or "", {}))
    if command == "links":
        return LinksCall(args.note)
    if command == "related":
        return RelatedCall(args.note, args.limit)
    if command == "mentions":
        return MentionsCall(args.note)
    if command == "graph":
        return GraphCall(args.note, args.depth, args.direction, args.meaning, args.max_per_node)
    if command == "read":
        return ReadCall(args.note, args.heading, args.start_line, args.end_line, args.budget_tokens)
    if command == "recent":
        by = "recalled" if args.recalled else "changed"
        return RecentCall(args.days, args.limit, tuple(args.where or ()), by)
    if command == "status":
        return StatusCall()
    raise UsageError(f"{command!r} is not a command a vault answers")


def needs_vectors(call: Call) -> bool:
    """Whether a command reads vectors, so that what is missing is embedded first."""
    if isinstance(call, GraphCall):
        return call.meaning > 0
    if isinstance(call, SearchCall):  # a list by filters alone (no query) ranks nothing
        return call.request.mode != "keyword" and bool(call.request.query)
    return isinstance(call, RelatedCall)


# -- as JSON, over a vault's socket ---------------------------------------------------------------


def call_json(call: Call) -> dict[str, Any]:
    """`{"command": ..., "arguments": {...}}`, every value plain JSON."""
    value = call.request if isinstance(call, SearchCall) else call
    arguments = {
        field.name: list(v) if isinstance(v := getattr(value, field.name), tuple) else v
        for field in dataclasses.fields(value)
    }
    if isinstance(call, RecentCall) and call.by == "changed":
        # Left out at its default: a server from before `by` refuses an argument it does not
        # know, and answers this call as it always did.
        del arguments["by"]
    return {"command": call.command, "arguments": arguments}


# What each field of a typed call may hold in JSON (`search` is checked by `build_request`).
_KINDS: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "Direction": (str,),
    "int": (int,),
    "float": (int, float),
    "str | None": (str, type(None)),
    "int | None": (int, type(None)),
    "tuple[str, ...]": (list,),  # checked further by the call itself
}


def call_from_json(data: object) -> Call:
    """The typed call a socket request carries; `UsageError` when it is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("arguments"), dict):
        raise UsageError("a call is an object with a 'command' and its 'arguments'")
    kind = CALLS.get(str(data.get("command")))
    if kind is None:
        raise UsageError(f"{data.get('command')!r} is not a command a vault answers")
    arguments: dict[str, Any] = data["arguments"]
    if kind is SearchCall:
        return SearchCall(checked_request(arguments))
    fields = {field.name: str(field.type) for field in dataclasses.fields(kind)}
    for name, value in arguments.items():
        allowed = _KINDS.get(fields.get(name, ""), ())
        if isinstance(value, bool) or not isinstance(value, allowed):
            raise UsageError(f"{kind.command}: bad argument {name!r}: {value!r}")
    return kind(**arguments)


def argv(call: Call, vault: str) -> list[str]:
    """`COMMAND --json FLAGS -- VAULT [NOTE or QUERY]`: the same question as a command line (after
    `--`, a query or a path that starts with '-' is still a query or a path)."""
    flags: list[str] = []
    values = call_json(call)["arguments"]
    after = [values.pop("query")] if isinstance(call, SearchCall) else []
    if "note" in values:
        after = [values.pop("note")]
    defaults = {"expand": True, "sections": False, "min_score": 0.0}
    for name, value in values.items():
        flag = flag_of(name)
        if name == "expand":
            flags += [] if value else ["--no-expand"]
        elif name == "record":
            flags += [] if value else ["--no-recall"]
        elif name == "by":
            flags += ["--recalled"] if value == "recalled" else []
        elif isinstance(value, bool):
            flags += [flag] if value else []
        elif isinstance(value, list):
            for item in value:
                flags += [flag, item]
        elif value is not None and value != defaults.get(name):
            flags += [flag, str(value)]
    return [call.command, "--json", *flags, "--", vault, *after]
