"""Call hierarchy over the link graph: outlinks are outgoing calls, inlinks incoming ones."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from memlsp.lsp import convert
from memlsp.lsp.context import CursorRequest, NoteRequest
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.calls import incoming, outgoing
from memlsp.navigation.definition import definition
from memlsp.text import basename
from memlsp.vault.view import VaultView


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
    async def prepare(params: types.CallHierarchyPrepareParams) -> list[types.CallHierarchyItem]:
        def work(at: CursorRequest) -> list[types.CallHierarchyItem]:
            # On a link: the note it goes to; elsewhere: this note.
            targets = [p.path for p in definition(at.view, at.path, at.line, at.column)]
            return [_item(at.view, at.root, target) for target in (targets[:1] or [at.path])]

        return await server.at_cursor(params.text_document.uri, params.position, work, [])

    @server.feature(types.CALL_HIERARCHY_OUTGOING_CALLS)
    async def outgoing_calls(
        params: types.CallHierarchyOutgoingCallsParams,
    ) -> list[types.CallHierarchyOutgoingCall]:
        def work(note: NoteRequest) -> list[types.CallHierarchyOutgoingCall]:
            return [
                types.CallHierarchyOutgoingCall(
                    to=_item(note.view, note.root, target),
                    from_ranges=[convert.span_range(s, server.encoding) for s in spans],
                )
                for target, spans in outgoing(note.view, note.path)
            ]

        return await server.in_note(params.item.uri, work, [])

    @server.feature(types.CALL_HIERARCHY_INCOMING_CALLS)
    async def incoming_calls(
        params: types.CallHierarchyIncomingCallsParams,
    ) -> list[types.CallHierarchyIncomingCall]:
        def work(note: NoteRequest) -> list[types.CallHierarchyIncomingCall]:
            return [
                types.CallHierarchyIncomingCall(
                    from_=_item(note.view, note.root, source),
                    from_ranges=[convert.span_range(s, server.encoding) for s in spans],
                )
                for source, spans in incoming(note.view, note.path)
            ]

        return await server.in_note(params.item.uri, work, [])


def _item(view: VaultView, root: Path, path: str) -> types.CallHierarchyItem:
    note = view.graph.notes.get(path)
    name = note.title if note is not None else basename(path)
    return convert.call_item(root, path, name, path)
