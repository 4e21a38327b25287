"""A real LSP client over stdio (pytest-lsp) against `python -m memlsp --stdio` on a vault copy.

Each test gets a fresh copy of `fixtures/vault` and a fresh cache, a client with the recorded
capabilities of VS Code or Neovim, and waits for the server's `memlsp/indexed` notification
instead of sleeping.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.helpers_vault import FIXTURE_VAULT

CLIENTS = {"vscode": "visual-studio-code", "neovim": "neovim@v0.11.0"}


@dataclass
class Session:
    client: LanguageClient
    vault: Path
    events: dict[str, list[Any]] = field(default_factory=dict)

    def uri(self, path: str) -> str:
        return (self.vault / path).as_uri()

    async def wait_for(self, method: str, count: int = 1, timeout: float = 30.0) -> list[Any]:
        """Wait until `method` has been received `count` times in all; the messages so far."""

        async def arrived() -> None:
            while len(self.events.get(method, [])) < count:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(arrived(), timeout)
        return self.events[method]

    def open(self, path: str, text: str | None = None, version: int = 1) -> str:
        uri = self.uri(path)
        body = (self.vault / path).read_text(encoding="utf-8") if text is None else text
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="markdown", version=version, text=body)
            )
        )
        return uri


def _recorder(session_events: dict[str, list[Any]], method: str) -> Any:
    def record(_client: LanguageClient, params: Any) -> None:
        session_events.setdefault(method, []).append(params)

    return record


async def start_session(
    lsp_client: LanguageClient,
    tmp_path: Path,
    client_name: str,
    options: dict[str, Any] | None = None,
) -> Session:
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    session = Session(lsp_client, vault)
    for method in ("memlsp/indexed", "memlsp/changed"):  # progress and logs: the client keeps them
        lsp_client.feature(method)(_recorder(session.events, method))
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(CLIENTS[client_name]),
            root_uri=vault.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=vault.as_uri(), name="vault")],
            initialization_options={"cache_dir": str(tmp_path / "cache"), **(options or {})},
        )
    )
    await session.wait_for("memlsp/indexed")
    return session


SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "memlsp", "--stdio"])


@pytest_lsp.fixture(config=SERVER)
async def raw_client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    """The client connected to a fresh server process, not yet initialized."""
    yield


@pytest_asyncio.fixture(params=sorted(CLIENTS))
async def lsp(
    raw_client: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Session]:
    session = await start_session(raw_client, tmp_path, request.param)
    yield session
    await raw_client.shutdown_session()
