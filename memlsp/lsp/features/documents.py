"""Editor buffers and file events feed the vault's change queue."""

from __future__ import annotations

from lsprotocol import types

from memlsp.lsp.server import MemlspServer


def register(server: MemlspServer) -> None:
    def buffer_changed(uri: str) -> None:
        found = server.vaults.route(uri)
        document = server.document(uri)
        if found is not None and document is not None:
            vault, path = found
            vault.buffer_changed(path, document.source)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        if server.vaults.lone_notes:
            server.open_lone_note(params.text_document.uri)
        buffer_changed(params.text_document.uri)
        server.diagnostics.opened(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        buffer_changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        found = server.vaults.route(params.text_document.uri)
        if found is not None:
            vault, path = found
            vault.buffer_closed(path)
        server.diagnostics.closed(params.text_document.uri)

    def disk_changed(uris: list[str]) -> None:
        for uri in uris:
            found = server.vaults.route(uri)
            if found is not None:
                vault, path = found
                vault.disk_changed({path})

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(params: types.DidChangeWatchedFilesParams) -> None:
        disk_changed([change.uri for change in params.changes])

    @server.feature(types.WORKSPACE_DID_CREATE_FILES)
    def did_create(params: types.CreateFilesParams) -> None:
        disk_changed([file.uri for file in params.files])

    @server.feature(types.WORKSPACE_DID_DELETE_FILES)
    def did_delete(params: types.DeleteFilesParams) -> None:
        disk_changed([file.uri for file in params.files])

    @server.feature(types.WORKSPACE_DID_RENAME_FILES)
    def did_rename(params: types.RenameFilesParams) -> None:
        disk_changed([uri for file in params.files for uri in (file.old_uri, file.new_uri)])
