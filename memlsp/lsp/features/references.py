"""textDocument/references: links to the same target, to a heading, or to the note."""

from __future__ import annotations

from lsprotocol import types

from memlsp.lsp import convert
from memlsp.lsp.context import CursorRequest
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.references import references


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def find_references(params: types.ReferenceParams) -> convert.AsJson:
        declaration = params.context.include_declaration

        def work(at: CursorRequest) -> convert.AsJson:
            places = references(at.view, at.path, at.line, at.column, declaration)
            return convert.AsJson(
                convert.location_json(at.root, p, server.encoding) for p in places
            )

        uri = params.text_document.uri
        return await server.at_cursor(uri, params.position, work, convert.AsJson())
