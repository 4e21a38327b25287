"""memlsp/mentions: where other notes write a note's name as plain text (`Snapshot.mentions`,
queries/mentions.py)."""

from __future__ import annotations

from functools import partial
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from memlsp import wire
from memlsp.lsp import convert
from memlsp.lsp.context import NoteRequest
from memlsp.lsp.server import MemlspServer


def register(server: MemlspServer) -> None:
    @server.feature("memlsp/mentions")
    async def mentions(params: Any) -> wire.MentionsAnswerJson | None:
        uri = convert.fields("memlsp/mentions", params).get("uri")
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams(
                "memlsp/mentions: 'uri' (the note's URI, a string) is required"
            )

        def work(note: NoteRequest) -> wire.MentionsAnswerJson:
            note_uri = partial(convert.note_uri, note.root)
            answer = note.snapshot.mentions(note.path)
            return wire.mentions_answer_json(uri, answer, note_uri, server.encoding)

        return await server.in_note(uri, work, None)
