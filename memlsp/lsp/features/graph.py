"""memlsp/graph: the link graph around a note and its closest notes by meaning
(navigation/graph_meaning.py), as `memlsp graph --json` gives it, with each note's and file's
`uri`, for a client's graph view."""

from __future__ import annotations

from functools import partial
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from memlsp import wire
from memlsp.lsp import convert
from memlsp.lsp.context import NoteRequest
from memlsp.lsp.features.custom import fields
from memlsp.lsp.server import MemlspServer
from memlsp.model import DIRECTIONS, MAX_NODES, MAX_PER_NODE, MEANING, MOST_MEANING, Direction
from memlsp.navigation.graph_meaning import graph_around

METHOD = "memlsp/graph"
DEEPEST = 3  # a view of more than three links around a note is most of the vault
# Nodes in a view's answer unless it asks for more: a drawing of more is a hairball nobody reads,
# and the hub of 10,000 notes at depth 2 (1,800 nodes, 1.2 MB of JSON) took 120 ms instead of 50.
VIEW_NODES = 600


def register(server: MemlspServer) -> None:
    @server.feature(METHOD)
    async def graph(params: Any) -> wire.GraphJson | None:
        values = fields(METHOD, params)
        uri = values.get("uri")
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams(f"{METHOD}: 'uri' (the note's URI, a string) is required")
        depth = _whole(values, "depth", 1, 1, DEEPEST)
        meaning = _whole(values, "meaning", MEANING, 0, MOST_MEANING)
        per_node = _whole(values, "max_per_node", MAX_PER_NODE, 1, MAX_NODES)
        most = _whole(values, "max_nodes", VIEW_NODES, 1, MAX_NODES)
        direction = _direction(values)

        def work(note: NoteRequest) -> wire.GraphJson | None:
            snapshot = note.snapshot
            if note.path not in snapshot.graph.notes:
                return None  # a file that is not a note: no links are read from it
            answer = graph_around(
                snapshot.graph,
                note.path,
                snapshot.related,
                depth,
                direction,
                meaning,
                per_node,
                most,
            )
            return wire.graph_json(answer, partial(convert.note_uri, note.root))

        return await server.in_note(uri, work, None)


def _whole(values: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = values.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise JsonRpcInvalidParams(f"{METHOD}: '{name}' must be a whole number {low}-{high}")
    return value


def _direction(values: dict[str, Any]) -> Direction:
    value = values.get("direction", "both")
    for direction in DIRECTIONS:
        if value == direction:
            return direction
    shown = f", not {value!r}" if isinstance(value, str) and len(value) <= 40 else ""
    raise JsonRpcInvalidParams(
        f"{METHOD}: 'direction' must be one of {', '.join(DIRECTIONS)}{shown}"
    )
