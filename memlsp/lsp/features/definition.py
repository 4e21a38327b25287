"""textDocument/definition: where a link goes (every candidate of an ambiguous one)."""

from __future__ import annotations

from lsprotocol import types

from memlsp.lsp import convert
from memlsp.lsp.context import CursorRequest
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.definition import definition


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def goto_definition(params: types.DefinitionParams) -> convert.AsJson:
        def work(at: CursorRequest) -> convert.AsJson:
            places = definition(at.view, at.path, at.line, at.column)
            return convert.AsJson(
                convert.location_json(at.root, p, server.encoding) for p in places
            )

        uri = params.text_document.uri
        return await server.at_cursor(uri, params.position, work, convert.AsJson())
