"""textDocument/codeLens on a note's first line: `N inlinks · M outlinks` (navigation/counts.py),
`N related` (the related notes with a score above 0, search/related.py) when the vault has
vectors, and `N unlinked` (`Snapshot.mentions`, queries/mentions.py) when other notes name it.

Their commands, `memlsp.showLinks`, `memlsp.showRelated` and `memlsp.showUnlinked` with the note's
URI, are the client's: the VS Code extension opens a picker; other editors bind them themselves
(the README's recipes). The `code_lens` setting turns them off. Counts change as other notes
change, so clients that can are asked to ask again.
"""

from __future__ import annotations

from lsprotocol import types

from memlsp.lsp import convert
from memlsp.lsp.context import NoteRequest
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.counts import lens_title, link_counts

SHOW_LINKS = "memlsp.showLinks"
SHOW_RELATED = "memlsp.showRelated"
SHOW_UNLINKED = "memlsp.showUnlinked"


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def on_code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri

        def work(note: NoteRequest) -> list[types.CodeLens]:
            if not note.settings.code_lens or note.path not in note.view.graph.notes:
                return []  # not indexed (yet): no count rather than a wrong one
            lenses = [(lens_title(link_counts(note.view, note.path)), SHOW_LINKS)]
            related = note.snapshot.related(note.path)
            close = sum(result.score > 0 for result in related.results)
            if close:
                lenses.append((f"{close} related", SHOW_RELATED))
            mentioned = note.snapshot.mentions(note.path)
            count = len(mentioned.mentions) + mentioned.left_out
            if count:
                more = "+" if mentioned.unread else ""
                lenses.append((f"{count}{more} unlinked", SHOW_UNLINKED))
            return [
                types.CodeLens(
                    range=convert.line_range(0),
                    command=types.Command(title=title, command=command, arguments=[uri]),
                )
                for title, command in lenses
            ]

        return await server.in_note(uri, work, [])
