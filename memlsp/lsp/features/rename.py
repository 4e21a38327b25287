"""textDocument/prepareRename, textDocument/rename and workspace/willRenameFiles
(navigation/rename.py, relink.py): the client applies the edit; the server writes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from memlsp.live import LiveVault
from memlsp.lsp import client, convert
from memlsp.lsp.server import Cursor, MemlspServer
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


def register(server: MemlspServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def on_prepare_rename(params: types.PrepareRenameParams) -> dict[str, Any] | None:
        def work(at: Cursor) -> dict[str, Any] | None:
            try:
                what = _renamable(at)
            except NothingToRename:
                return None  # the client says so in its own words
            except Refused as refused:
                raise RequestFailed(str(refused)) from refused
            return {"range": _range(what, server.encoding), "placeholder": what.name}

        return await server.at_cursor(params.text_document.uri, params.position, work, None)

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    async def on_rename(params: types.RenameParams) -> dict[str, Any] | None:
        def work(at: Cursor) -> dict[str, Any]:
            try:
                what = _renamable(at)
                if what.subject is Subject.NOTE and not client.can_rename_files(
                    server.client_capabilities
                ):
                    raise Refused("This editor cannot rename files from a language server")
                change = rename(at.view, what, params.new_name)
            except Refused as refused:
                raise RequestFailed(str(refused)) from refused
            return _edit(server, at.root, change)

        return await server.at_cursor(params.text_document.uri, params.position, work, None)

    @server.feature(types.WORKSPACE_WILL_RENAME_FILES, FILE_OPERATIONS)
    async def on_will_rename(params: types.RenameFilesParams) -> dict[str, Any] | None:
        edits: list[dict[str, Any]] = []
        for vault, moves in _moves_by_vault(server, params.files).items():
            engine = vault.engine
            if engine is None:
                continue
            view = engine.view()
            try:
                found = await server.run(partial(_relinked, view, moves))
            except StaleText as stale:
                server.tell(f"memlsp: links to the moved files were not updated: {stale} changed")
                continue
            edits.append(_edit(server, vault.root, Change(tuple(found))))
        return _merged(edits) if edits else None


def _renamable(at: Cursor) -> Renamable:
    return renamable_at(at.view, at.path, at.lines(), at.line, at.column)


def _range(what: Renamable, encoding: str) -> dict[str, Any]:
    start, end = what.span.columns(encoding)
    line = what.span.line
    return {
        "start": {"line": line, "character": start},
        "end": {"line": line, "character": end},
    }


def _edit(server: MemlspServer, root: Path, change: Change) -> dict[str, Any]:
    return convert.workspace_edit(
        root,
        change,
        server.encoding,
        server.document_version,
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
        old, new = server.vault_for(item.old_uri), server.vault_for(item.new_uri)
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
