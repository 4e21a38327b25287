"""textDocument/references: links to the same target, to a heading, or to the note."""

from __future__ import annotations

from lsprotocol import types

from memlsp.lsp import convert
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.references import references


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def find_references(params: types.ReferenceParams) -> convert.AsJson:
        found = server.engine_for(params.text_document.uri)
        if found is None:
            return convert.AsJson()
        engine, path, root = found
        uri, position = params.text_document.uri, params.position
        declaration = params.context.include_declaration

        def work() -> convert.AsJson:
            if server.past_end(uri, engine, path, position):
                return convert.AsJson()
            column = server.column(uri, engine, path, position)
            with engine.lock:
                places = references(engine, path, position.line, column, declaration)
            return convert.AsJson(
                convert.location_json(root, place, server.encoding) for place in places
            )

        return await server.run(work)
