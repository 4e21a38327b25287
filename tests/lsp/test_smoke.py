from __future__ import annotations

from lsprotocol import types

from tests.lsp.conftest import Session


async def test_workspace_symbol_finds_a_note(lsp: Session) -> None:
    symbols = await lsp.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="tantivy"))
    assert symbols
    print(symbols[:3])
