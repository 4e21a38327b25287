"""textDocument/codeAction: quick fixes for links with a problem (navigation/actions.py), links to
make where a note's name is written as plain text (navigation/mentions.py), and to the notes about
a selected phrase (navigation/meaning.py). On a note's first line, "Link all N unlinked mentions"
of that note, one edit over every note that names it (`Snapshot.mentions`, as its lens counts).

The note's own mentions are found once per revision and text (`note_mentions`), not again at
each move of the cursor."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from memlsp.lsp import client, convert
from memlsp.lsp.context import CursorRequest, NoteRequest
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.actions import Action, actions_at
from memlsp.navigation.meaning import link_about
from memlsp.navigation.mentions import link_all_action, mention_actions, note_mentions


def register(server: MemlspServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite]
        ),
    )
    async def on_code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri, where = params.text_document.uri, params.range
        if where.start.line != where.end.line:
            return None  # a fix is for one link: a selection over lines asks for none

        def work(at: CursorRequest) -> list[types.CodeAction] | None:
            lines = at.lines()
            if at.line >= len(lines):
                return None
            # The range's end is on the cursor's line: the same conversion, `at.column`'s.
            encoding = server.workspace.position_encoding
            end = convert.column_of(lines[at.line], where.end.character, encoding)
            found = _offered(at, lines, at.line, at.column, end)
            caps = server.client_capabilities
            creates, greyed = client.can_create_files(caps), client.shows_disabled_actions(caps)
            return [
                _code_action(server, at, action, params.context.diagnostics)
                for action in found
                if (creates or action.creates is None) and (greyed or not action.disabled)
            ]

        return await server.at_cursor(uri, where.start, work, None)


def _offered(note: NoteRequest, lines: list[str], line: int, start: int, end: int) -> list[Action]:
    """Every action for the columns start..end of `line`, fixes first."""
    view, path, settings = note.view, note.path, note.settings
    found = actions_at(view, path, lines, line, start, end, settings.new_note_folder)
    own = note_mentions(view, path, lines, settings.mention_min_length)
    found += mention_actions(view, own, path, line, start, end)
    if line == 0:  # the note's title line, where its lens counts the mentions
        found += filter(None, [link_all_action(view, note.snapshot.mentions(path))])
    if start < end:
        found += link_about(view, path, lines, line, start, end, note.snapshot.notes_about)
    return found


def _code_action(
    server: MemlspServer, note: NoteRequest, action: Action, diagnostics: Sequence[types.Diagnostic]
) -> types.CodeAction:
    fixed = [_echo(d) for d in diagnostics if d.code == action.fixes and d.source == "memlsp"]
    if action.disabled:
        return types.CodeAction(
            title=action.title,
            kind=types.CodeActionKind(action.kind),
            disabled=types.CodeActionDisabled(action.disabled),
        )
    return types.CodeAction(
        title=action.title,
        kind=types.CodeActionKind(action.kind),
        diagnostics=fixed or None,
        is_preferred=action.preferred or None,
        edit=convert.structured_edit(
            convert.workspace_edit(
                note.root,
                action.change,
                server.encoding,
                server.document_version,
                client.takes_document_changes(server.client_capabilities),
            )
        ),
    )


def _echo(diagnostic: types.Diagnostic) -> types.Diagnostic:
    """The client's diagnostic as this server sends one: params are read leniently
    (lsp/protocol.py), so a severity may still be a plain number there."""
    severity = diagnostic.severity
    return types.Diagnostic(
        range=diagnostic.range,
        message=diagnostic.message,
        severity=None if severity is None else types.DiagnosticSeverity(int(severity)),
        code=diagnostic.code,
        source=diagnostic.source,
        data=diagnostic.data,
    )
