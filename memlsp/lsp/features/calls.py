"""Call hierarchy over the link graph: outlinks are outgoing calls, inlinks incoming ones."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from memlsp.engine import Engine
from memlsp.lsp import convert
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.calls import incoming, outgoing
from memlsp.navigation.definition import definition


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
    async def prepare(params: types.CallHierarchyPrepareParams) -> list[types.CallHierarchyItem]:
        found = server.engine_for(params.text_document.uri)
        if found is None:
            return []
        engine, path, root = found
        uri, position = params.text_document.uri, params.position

        def work() -> list[types.CallHierarchyItem]:
            if server.past_end(uri, engine, path, position):
                return []
            column = server.column(uri, engine, path, position)
            with engine.lock:
                # On a link: the note it goes to; elsewhere: this note.
                targets = [p.path for p in definition(engine, path, position.line, column)]
                return [_item(engine, root, target) for target in (targets[:1] or [path])]

        return await server.run(work)

    @server.feature(types.CALL_HIERARCHY_OUTGOING_CALLS)
    async def outgoing_calls(
        params: types.CallHierarchyOutgoingCallsParams,
    ) -> list[types.CallHierarchyOutgoingCall]:
        found = server.engine_for(params.item.uri)
        if found is None:
            return []
        engine, path, root = found

        def work() -> list[types.CallHierarchyOutgoingCall]:
            with engine.lock:
                return [
                    types.CallHierarchyOutgoingCall(
                        to=_item(engine, root, target),
                        from_ranges=[convert.span_range(s, server.encoding) for s in spans],
                    )
                    for target, spans in outgoing(engine, path)
                ]

        return await server.run(work)

    @server.feature(types.CALL_HIERARCHY_INCOMING_CALLS)
    async def incoming_calls(
        params: types.CallHierarchyIncomingCallsParams,
    ) -> list[types.CallHierarchyIncomingCall]:
        found = server.engine_for(params.item.uri)
        if found is None:
            return []
        engine, path, root = found

        def work() -> list[types.CallHierarchyIncomingCall]:
            with engine.lock:
                return [
                    types.CallHierarchyIncomingCall(
                        from_=_item(engine, root, source),
                        from_ranges=[convert.span_range(s, server.encoding) for s in spans],
                    )
                    for source, spans in incoming(engine, path)
                ]

        return await server.run(work)


def _item(engine: Engine, root: Path, path: str) -> types.CallHierarchyItem:
    note = engine.graph.notes.get(path)
    name = note.title if note is not None else path.rsplit("/", 1)[-1]
    return convert.call_item(root, path, name, path)
