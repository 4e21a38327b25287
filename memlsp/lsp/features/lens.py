"""textDocument/codeLens: `N inlinks · M outlinks` on a note's first line (navigation/counts.py).

Its command, `memlsp.showLinks` with the note's URI, is the client's: the VS Code extension opens
its links picker; other editors bind it themselves (the README's recipes). The `code_lens` setting
turns it off. Counts change as other notes change, so clients that can are asked to ask again.
"""

from __future__ import annotations

from lsprotocol import types

from memlsp.lsp import convert
from memlsp.lsp.context import NoteRequest
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.counts import lens_title, link_counts

SHOW_LINKS = "memlsp.showLinks"


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def on_code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri

        def work(note: NoteRequest) -> list[types.CodeLens]:
            if not note.settings.code_lens or note.path not in note.view.graph.notes:
                return []  # not indexed (yet): no count rather than a wrong one
            title = lens_title(link_counts(note.view, note.path))
            command = types.Command(title=title, command=SHOW_LINKS, arguments=[uri])
            return [types.CodeLens(range=convert.line_range(0), command=command)]

        return await server.in_note(uri, work, [])
