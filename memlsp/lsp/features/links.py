"""textDocument/documentLink: every link of a note, clickable to where it goes."""

from __future__ import annotations

from lsprotocol import types

from memlsp.lsp import convert
from memlsp.lsp.context import NoteRequest
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.outline import document_links


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
    async def on_document_link(params: types.DocumentLinkParams) -> list[types.DocumentLink]:
        # A tooltip only for clients that show one (the LSP forbids it otherwise).
        document = server.client_capabilities.text_document
        tooltips = bool(
            document and document.document_link and document.document_link.tooltip_support
        )

        def work(note: NoteRequest) -> list[types.DocumentLink]:
            return [
                types.DocumentLink(
                    range=convert.span_range(link.span, server.encoding),
                    target=convert.place_uri(note.root, place) if place is not None else None,
                    tooltip=(place.path if place is not None else f"{link.target}: not found")
                    if tooltips
                    else None,
                )
                for link, place in document_links(note.view, note.path)
            ]

        return await server.in_note(params.text_document.uri, work, [])
