"""memlsp/graph: the graph view around a note (the link graph and its closest notes by meaning,
`Snapshot.graph_view`), as `memlsp graph --json` gives it, with each note's and file's `uri`, for a
client's graph view. Its params are checked by `graph_ask`, under the bounds every surface has,
which the server announces in its `initialize` answer (`experimental.memlspGraph`)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from memlsp import wire
from memlsp.lsp import convert
from memlsp.lsp.context import NoteRequest
from memlsp.lsp.server import MemlspServer
from memlsp.queries.graph_view import graph_ask

METHOD = "memlsp/graph"
# Nodes in a view's answer unless it asks for more: a drawing of more is a hairball nobody reads,
# and the hub of 10,000 notes at depth 2 (1,800 nodes, 1.2 MB of JSON) took 120 ms instead of 50.
VIEW_NODES = 600


def register(server: MemlspServer) -> None:
    @server.feature(METHOD)
    async def graph(params: Any) -> wire.GraphJson | None:
        values = convert.fields(METHOD, params)
        uri = values.get("uri")
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams(f"{METHOD}: 'uri' (the note's URI, a string) is required")
        if values.get("max_nodes") is None:
            values = {**values, "max_nodes": VIEW_NODES}
        try:
            # Checked before the note is found (on the thread), which then takes its place.
            asked = graph_ask("", values)
        except ValueError as error:
            raise JsonRpcInvalidParams(f"{METHOD}: {error}") from error

        def work(note: NoteRequest) -> wire.GraphJson | None:
            snapshot = note.snapshot
            if note.path not in snapshot.graph.notes:
                return None  # a file that is not a note: no links are read from it
            answer = snapshot.graph_view(replace(asked, note=note.path))
            return wire.graph_json(answer, partial(convert.note_uri, note.root))

        return await server.in_note(uri, work, None)
