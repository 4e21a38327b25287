"""memlsp/mentions: where other notes write a note's name as plain text (navigation/mentions.py)."""

from __future__ import annotations

from functools import partial
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from memlsp import wire
from memlsp.lsp import convert
from memlsp.lsp.context import NoteRequest
from memlsp.lsp.features.custom import fields
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.mentions import MentionsAnswer, mentions_of


def register(server: MemlspServer) -> None:
    @server.feature("memlsp/mentions")
    async def mentions(params: Any) -> wire.MentionsAnswerJson | None:
        uri = fields("memlsp/mentions", params).get("uri")
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams(
                "memlsp/mentions: 'uri' (the note's URI, a string) is required"
            )

        def work(note: NoteRequest) -> wire.MentionsAnswerJson:
            note_uri = partial(convert.note_uri, note.root)
            return wire.mentions_answer_json(uri, unlinked(note), note_uri, server.encoding)

        return await server.in_note(uri, work, None)


def unlinked(note: NoteRequest) -> MentionsAnswer:
    """The unlinked mentions of the note a request is about."""
    candidates = note.snapshot.candidates_for_names
    return mentions_of(note.view, note.path, candidates, note.settings.mention_min_length)
