"""textDocument/hover: a link's target with its neighbours, or a tag's notes."""

from __future__ import annotations

from lsprotocol import types

from memlsp.lsp import convert
from memlsp.lsp.context import CursorRequest
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.hover import hover
from memlsp.navigation.places import Place


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(params: types.HoverParams) -> types.Hover | None:
        def work(at: CursorRequest) -> types.Hover | None:
            def uri_of(place: Place) -> str:
                return convert.place_uri(at.root, place)

            text = hover(at.view, at.path, at.line, at.column, uri_of)
            return convert.markdown(text) if text else None

        return await server.at_cursor(params.text_document.uri, params.position, work, None)
