"""textDocument/hover: a link's target with its neighbours, or a tag's notes."""

from __future__ import annotations

from lsprotocol import types

from memlsp.lsp import convert
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.hover import hover
from memlsp.navigation.places import Place


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(params: types.HoverParams) -> types.Hover | None:
        found = server.engine_for(params.text_document.uri)
        if found is None:
            return None
        engine, path, root = found
        uri, position = params.text_document.uri, params.position

        def uri_of(place: Place) -> str:
            return convert.place_uri(root, place)

        def work() -> types.Hover | None:
            column = server.column(uri, engine, path, position)
            with engine.lock:
                text = hover(engine, path, position.line, column, uri_of)
            return convert.markdown(text) if text else None

        return await server.run(work)
