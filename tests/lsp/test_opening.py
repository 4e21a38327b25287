"""Answers given while a vault is still opening say so, instead of looking like the truth.

The vault is held closed deterministically: this test process holds the index's writer lock
before any index exists, so the server waits for "another process" to build it.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from memlsp.index.writer_lock import WriterLock
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings
from tests.helpers.vault import TWO_NOTES, write_notes
from tests.lsp.conftest import CLIENTS, plain


async def test_requests_while_the_vault_opens_are_marked_incomplete(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    vault = write_notes(tmp_path / "vault", TWO_NOTES)
    cache = tmp_path / "cache"
    folder = cache_dir_for(vault, Settings(cache_dir=cache))
    folder.mkdir(parents=True)
    lock = WriterLock(folder / "writer.lock")
    assert lock.acquire()

    capabilities = client_capabilities(CLIENTS["neovim"])
    raw_client.capabilities = capabilities
    await raw_client.initialize_async(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=vault.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=vault.as_uri(), name="vault")],
            initialization_options={"cache_dir": str(cache), "embedder": "none"},
        )
    )
    raw_client.initialized(types.InitializedParams())

    answer = plain(await raw_client.protocol.send_request_async("memlsp/search", {"query": "beta"}))
    assert answer["results"] == []
    assert answer["warnings"] == [
        "vault is still opening; answers may be incomplete until it is ready"
    ]
    [status] = plain(await raw_client.protocol.send_request_async("memlsp/status", {}))["vaults"]
    assert status["busy"] is True
    assert status["summary"] == "Waiting for another memlsp process to build this vault's index"

    document = types.TextDocumentIdentifier(uri=(vault / "alpha.md").as_uri())
    for _ in range(2):  # told once, not on every request
        assert not await raw_client.text_document_definition_async(
            types.DefinitionParams(document, types.Position(2, 12))
        )
    # The outline comes from the buffer itself: a note opened now has it at once.
    raw_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=document.uri, language_id="markdown", version=1, text="# Alpha\n\n## Two\n"
            )
        )
    )
    symbols = await raw_client.text_document_document_symbol_async(
        types.DocumentSymbolParams(document)
    )
    outline = [
        (s.name, [c.name for c in s.children or []])
        for s in symbols or []
        if isinstance(s, types.DocumentSymbol)
    ]
    assert outline == [("Alpha", ["Two"])]
    told = [m.message for m in raw_client.log_messages if "answers may be incomplete" in m.message]
    assert told == ["memlsp: vault is still opening; answers may be incomplete until it is ready"]

    indexed = raw_client.protocol.wait_for_notification_async("memlsp/indexed")
    lock.release()
    await indexed
    answer = plain(await raw_client.protocol.send_request_async("memlsp/search", {"query": "beta"}))
    assert answer["warnings"] == [] and answer["results"]
    await raw_client.shutdown_session()
