"""initialize, initialized, shutdown, exit, settings and workspace folders."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from memlsp.lsp import convert
from memlsp.lsp.server import MemlspServer
from memlsp.lsp.watchdog import watch_parent
from memlsp.vault.rules import VaultRules


def register(server: MemlspServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        # Only settings here: `initialize` must answer at once; indexing starts on `initialized`.
        server.attach(asyncio.get_running_loop())  # so a bad setting can be told to the client
        server.initial_settings(params.initialization_options)
        watch_parent(params.process_id, server.stop)

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        server.attach(asyncio.get_running_loop())
        folders = server.workspace.folders.values()
        roots = [convert.path_of(folder.uri) for folder in folders]
        if not roots and server.workspace.root_uri:
            roots = [convert.path_of(server.workspace.root_uri)]
        # A client that names no folder (a single file opened) gets the vault of each note.
        server.vaults.lone_notes = not any(roots)
        for root in roots:
            if root is not None:
                server.open_folder(root)
        await _watch_files_on_client(server)

    @server.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        server.shut_down()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        # The client's settings apply over `initializationOptions`. Null says only "something
        # changed" (a client that expects to be asked): nothing to apply.
        if params.settings is not None:
            server.changed_settings(params.settings)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(params: types.DidChangeWorkspaceFoldersParams) -> None:
        for folder in params.event.removed:
            root = convert.path_of(folder.uri)
            if root is not None:
                server.vaults.close_folder(root)
        for folder in params.event.added:
            root = convert.path_of(folder.uri)
            if root is not None:
                server.open_folder(root)


async def _watch_files_on_client(server: MemlspServer) -> None:
    """Ask the client to report Markdown file events too, when it can (our own watcher runs
    anyway; an event reported twice is applied once, as the file's stat no longer differs)."""
    workspace = server.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    if not (watched and watched.dynamic_registration):
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[
            types.FileSystemWatcher(
                glob_pattern=VaultRules.of(server.client_settings.current).watch_glob()
            )
        ]
    )
    registration = types.Registration(
        id="memlsp-watch",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=options,
    )
    try:
        await server.client_register_capability_async(
            types.RegistrationParams(registrations=[registration])
        )
    except Exception as error:
        server.tell(f"memlsp: client file watching not available ({error})")
