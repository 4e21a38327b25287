"""textDocument/completion: notes, headings, blocks, labels, paths and tags as they are typed;
after `[[`, notes by meaning when a phrase is typed (navigation/meaning.py)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from memlsp.lsp import client, convert
from memlsp.lsp.context import NoteRequest
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.completion import complete
from memlsp.navigation.meaning import with_meaning

# `[` for `[[`, `#` for headings and tags, `^` for blocks, `|` for labels, `(` and `/` for paths.
TRIGGERS = ["[", "#", "^", "|", "(", "/"]


def register(server: MemlspServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=TRIGGERS)
    )
    async def on_completion(params: types.CompletionParams) -> dict[str, Any] | None:
        uri, position = params.text_document.uri, params.position

        def work(note: NoteRequest) -> dict[str, Any] | None:
            lines = note.lines()
            if position.line >= len(lines):
                return None  # past the last line (an empty last line offers nothing either)
            text = lines[position.line]
            encoding = server.workspace.position_encoding
            column = convert.column_of(text, position.character, encoding)
            found = complete(note.view, note.path, lines, position.line, column)
            about = note.snapshot.notes_about
            found = with_meaning(note.view, note.path, found, column, about)
            snippets = client.takes_snippets(server.client_capabilities)
            return convert.completion_list(found, text, position.line, server.encoding, snippets)

        return await server.in_note(uri, work, None)
