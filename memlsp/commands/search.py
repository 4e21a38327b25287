"""`memlsp search`: one query's answer from a snapshot, and a `--queries` file's answers, one JSON
line per query. Each answer leaves here for its asker, so here its results are counted as recalled
(unless it asked `--no-recall`), in the process that answers: this command's own, or the one that
answered it on the vault's socket."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from memlsp import wire
from memlsp.commands.arguments import UsageError
from memlsp.commands.calls import SearchCall, search_request
from memlsp.engine.snapshot import Snapshot
from memlsp.model import SearchRequest, SearchResponse
from memlsp.search.render import response_text


def search(snapshot: Snapshot, call: SearchCall) -> SearchResponse:
    return _answered(snapshot, call.request)


def _answered(snapshot: Snapshot, request: SearchRequest) -> SearchResponse:
    return snapshot.recalled(snapshot.search(request), record=request.record)


def search_text(response: SearchResponse, _: argparse.Namespace) -> str:
    return response_text(response)


def search_lines(snapshot: Snapshot, args: argparse.Namespace, out: TextIO) -> None:
    """`--queries FILE.jsonl`: a line per query, its answer or why it has none."""
    if not args.queries.is_file():
        raise UsageError(f"queries file not found: {args.queries}")
    for number, entry in _query_lines(args.queries):
        query_id = entry.get("id", number)
        try:
            query = entry.get("query", "")  # none: a list of the notes its filters match
            if not isinstance(query, str):
                raise UsageError("'query' must be a string")
            response = _answered(snapshot, search_request(args, query, entry))
            answer: wire.QueryAnswerJson | wire.QueryErrorJson = wire.query_answer_json(
                query_id, response
            )
        except (KeyError, UsageError, ValueError, TypeError) as error:
            answer = wire.query_error_json(query_id, f"line {number}: {error}")
        print(wire.json_line(answer), file=out)


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
