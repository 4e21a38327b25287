"""textDocument/completion: notes, headings, blocks, labels, paths and tags as they are typed;
after `[[`, notes by meaning when a phrase is typed (navigation/meaning.py)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from memlsp.lsp import client, convert
from memlsp.lsp.context import CursorRequest
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
        def work(at: CursorRequest) -> dict[str, Any] | None:
            lines = at.lines()
            if at.line >= len(lines):
                return None  # past the last line (an empty last line offers nothing either)
            found = complete(at.view, at.path, lines, at.line, at.column)
            found = with_meaning(at.view, at.path, found, at.column, at.snapshot.notes_about)
            snippets = client.takes_snippets(server.client_capabilities)
            text = lines[at.line]
            return convert.completion_list(found, text, at.line, server.encoding, snippets)

        return await server.at_cursor(params.text_document.uri, params.position, work, None)
