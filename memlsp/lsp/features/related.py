"""memlsp/related: the notes closest in meaning to a note (search/related.py), each with the link
that would lead there from it, for a client's "Insert link"."""

from __future__ import annotations

from functools import partial
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from memlsp import wire
from memlsp.lsp import convert
from memlsp.lsp.context import NoteRequest
from memlsp.lsp.convert import fields
from memlsp.lsp.server import MemlspServer
from memlsp.vault.linktext import wikilink_target

DEFAULT_LIMIT = 10
MOST = 100


def register(server: MemlspServer) -> None:
    @server.feature("memlsp/related")
    async def related(params: Any) -> wire.RelatedAnswerJson | None:
        values = fields("memlsp/related", params)
        uri, limit = values.get("uri"), values.get("limit", DEFAULT_LIMIT)
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams(
                "memlsp/related: 'uri' (the note's URI, a string) is required"
            )
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MOST:
            raise JsonRpcInvalidParams(f"memlsp/related: 'limit' must be a whole number 1-{MOST}")

        def work(note: NoteRequest) -> wire.RelatedAnswerJson:
            answer = note.snapshot.related(note.path, limit)
            table = note.view.graph.table
            return wire.related_answer_json(
                uri,
                answer,
                partial(convert.note_uri, note.root),
                partial(wikilink_target, table, note.path),
            )

        return await server.in_note(uri, work, None)
