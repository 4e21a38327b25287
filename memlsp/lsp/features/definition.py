"""textDocument/definition: where a link goes (every candidate of an ambiguous one)."""

from __future__ import annotations

from lsprotocol import types

from memlsp.lsp import convert
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.definition import definition


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def goto_definition(params: types.DefinitionParams) -> convert.AsJson:
        found = server.engine_for(params.text_document.uri)
        if found is None:
            return convert.AsJson()
        engine, path, root = found
        uri, position = params.text_document.uri, params.position

        def work() -> convert.AsJson:
            column = server.column(uri, engine, path, position)
            with engine.lock:
                places = definition(engine, path, position.line, column)
            return convert.AsJson(
                convert.location_json(root, place, server.encoding) for place in places
            )

        return await server.run(work)
