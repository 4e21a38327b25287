"""textDocument/prepareRename, textDocument/rename and workspace/willRenameFiles
(navigation/rename.py, relink.py): the client applies the edit; the server writes nothing."""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from memlsp import wire
from memlsp.live.vault import LiveVault
from memlsp.lsp import client, convert
from memlsp.lsp.context import CursorRequest
from memlsp.lsp.server import MemlspServer
from memlsp.navigation.edits import Change, Edit
from memlsp.navigation.relink import StaleText, relink
from memlsp.navigation.rename import (
    NothingToRename,
    Refused,
    Renamable,
    Subject,
    renamable_at,
    rename,
)
from memlsp.vault.view import VaultView

# Every file, so links to attachments are kept too; folders, for a folder moved with its notes.
FILE_OPERATIONS = types.FileOperationRegistrationOptions(
    filters=[
        types.FileOperationFilter(
            pattern=types.FileOperationPattern(glob="**/*", matches=kind), scheme="file"
        )
        for kind in (types.FileOperationPatternKind.File, types.FileOperationPatternKind.Folder)
    ]
)


class RequestFailed(JsonRpcException):
    """LSP's RequestFailed: the request was valid, the server cannot do it (the message says
    why, and clients show it)."""

    CODE = types.LSPErrorCodes.RequestFailed.value


class AnsweredMoves:
    """The file moves this server's rename answers carried. The client applies such an edit,
    then announces the same move with workspace/willRenameFiles (VS Code does, as the LSP asks):
    its links are already edited, and editing them again would change them twice."""

    KEEP_SECONDS = 120.0  # how long an answered move waits for its announcement

    def __init__(self) -> None:
        self._answered: dict[tuple[Path, str, str], float] = {}  # (vault, old, new) -> when

    def remember(self, root: Path, change: Change) -> None:
        now = time.monotonic()
        self._answered.update({(root, move.old, move.new): now for move in change.moves})

    def unanswered(self, root: Path, moves: dict[str, str]) -> dict[str, str]:
        """`moves` but those a rename answer carried (each is let go once announced)."""
        now = time.monotonic()
        for key, answered in list(self._answered.items()):
            if now - answered > self.KEEP_SECONDS:
                del self._answered[key]
        return {
            old: new for old, new in moves.items() if not self._answered.pop((root, old, new), 0)
        }


def register(server: MemlspServer) -> None:
    answered = AnsweredMoves()

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def on_prepare_rename(params: types.PrepareRenameParams) -> dict[str, Any] | None:
        def work(at: CursorRequest) -> dict[str, Any] | None:
            try:
                what = _renamable(at)
            except NothingToRename:
                return None  # the client says so in its own words
            except Refused as refused:
                raise RequestFailed(str(refused)) from refused
            return {"range": wire.range_json(what.span, server.encoding), "placeholder": what.name}

        await server.caught_up([params.text_document.uri])
        return await server.at_cursor(params.text_document.uri, params.position, work, None)

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    async def on_rename(params: types.RenameParams) -> dict[str, Any] | None:
        def work(at: CursorRequest) -> dict[str, Any]:
            try:
                what = _renamable(at)
                if what.subject is Subject.NOTE and not client.can_rename_files(
                    server.client_capabilities
                ):
                    raise Refused("This editor cannot rename files from a language server")
                change = rename(at.view, what, params.new_name)
                answer = _edit(server, at.root, at.view, change)
            except StaleText as stale:
                raise RequestFailed(f"{stale} changed since it was indexed: try again") from stale
            except Refused as refused:
                raise RequestFailed(str(refused)) from refused
            answered.remember(at.root, change)
            return answer

        found = server.vaults.route(params.text_document.uri)
        await server.caught_up(server.open_documents(found[0]) if found else [])
        return await server.at_cursor(params.text_document.uri, params.position, work, None)

    @server.feature(types.WORKSPACE_WILL_RENAME_FILES, FILE_OPERATIONS)
    async def on_will_rename(params: types.RenameFilesParams) -> dict[str, Any] | None:
        edits: list[dict[str, Any]] = []
        for vault, moves in _moves_by_vault(server, params.files).items():
            moves = answered.unanswered(vault.root, moves)
            if moves:
                edits += await _relinked_edit(server, vault, moves)
        return _merged(edits) if edits else None


async def _relinked_edit(
    server: MemlspServer, vault: LiveVault, moves: dict[str, str]
) -> list[dict[str, Any]]:
    """The edit that keeps `vault`'s links leading where they led once `moves` are made."""
    await server.caught_up(server.open_documents(vault))
    snapshot = vault.read()
    if snapshot is None:
        return []
    view = snapshot.view
    try:
        found = await server.run(partial(_relinked, view, moves))
        return [_edit(server, vault.root, view, Change(tuple(found)))]
    except StaleText as stale:
        server.tell(f"memlsp: links to the moved files were not updated: {stale} changed")
        return []


def _renamable(at: CursorRequest) -> Renamable:
    return renamable_at(at.view, at.path, at.lines(), at.line, at.column)


def _edit(server: MemlspServer, root: Path, view: VaultView, change: Change) -> dict[str, Any]:
    """The change as the client's edit, each open note's at the version it was computed on."""

    def version_of(uri: str) -> int | None:
        document = server.document(uri)
        if document is None:
            return None
        path = convert.path_of(uri)
        relative = path.relative_to(root).as_posix() if path is not None else ""
        if view.read(relative) != document.source:
            raise StaleText(relative)  # typed into since the index read it: ranges are off
        return document.version

    return convert.workspace_edit(
        root,
        change,
        server.encoding,
        version_of,
        client.takes_document_changes(server.client_capabilities),
    )


def _relinked(view: VaultView, moves: dict[str, str]) -> list[Edit]:
    return relink(view, _expanded(view, moves))


def _moves_by_vault(
    server: MemlspServer, files: Sequence[types.FileRename]
) -> dict[LiveVault, dict[str, str]]:
    """Each vault's moves, as vault-relative paths; a move into or out of a vault is not one."""
    found: dict[LiveVault, dict[str, str]] = {}
    for item in files:
        old, new = server.vaults.route(item.old_uri), server.vaults.route(item.new_uri)
        if old is None or new is None or old[0] is not new[0]:
            continue
        found.setdefault(old[0], {})[old[1]] = new[1]
    return found


def _expanded(view: VaultView, moves: dict[str, str]) -> dict[str, str]:
    """A folder's move as the move of every file under it."""
    table = view.graph.table
    every: dict[str, str] = {}
    for old, new in moves.items():
        if table.exists(old):
            every[old] = new
            continue
        prefix = old.rstrip("/") + "/"
        for path in sorted(table.notes | table.files):
            if path.startswith(prefix):
                every[path] = new.rstrip("/") + "/" + path[len(prefix) :]
    return every


def _merged(edits: list[dict[str, Any]]) -> dict[str, Any]:
    """One edit of several vaults' (one vault's, nearly always)."""
    if len(edits) == 1:
        return edits[0]
    if any("documentChanges" in edit for edit in edits):
        return {"documentChanges": [c for edit in edits for c in edit.get("documentChanges", [])]}
    return {"changes": {uri: e for edit in edits for uri, e in edit.get("changes", {}).items()}}
