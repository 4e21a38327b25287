"""Settings from `initializationOptions` and `workspace/didChangeConfiguration`, through a real
client: `symbol_limit` bounds workspace/symbol; a bad value is said in `window/logMessage` and
the default kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.conftest import Session, start_session

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")

QUERY = "search"  # found in more than a dozen chunks


def logged(session: Session, since: int = 0) -> list[str]:
    return [m.message for m in session.client.log_messages[since:]]


def configure(session: Session, settings: Any) -> None:
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=settings)
    )


async def test_symbol_limit_from_initialization_options_and_configuration(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    session = await start_session(raw_client, tmp_path, "neovim", {"symbol_limit": 2})
    assert len(await session.symbols(QUERY)) == 2
    assert len(await session.symbols("")) == 2  # the most-linked notes too
    assert logged(session) == []

    # Messages are handled in order: the next request already sees the new setting.
    configure(session, {"memlsp": {"symbol_limit": 3}})
    assert len(await session.symbols(QUERY)) == 3
    configure(session, {"symbol_limit": 4})  # not nested under "memlsp" works too
    assert len(await session.symbols(QUERY)) == 4

    # A client with nothing to say (VS Code sends null; Neovim an empty table at start) keeps
    # what the editor set up at initialization.
    configure(session, {"memlsp": {"symbol_limit": 3}})
    configure(session, None)
    assert len(await session.symbols(QUERY)) == 3
    configure(session, {})
    assert len(await session.symbols(QUERY)) == 2

    since = len(session.client.log_messages)
    configure(session, {"memlsp": {"symbol_limit": "many"}})
    found = await session.symbols(QUERY)
    assert len(found) == 2  # the bad value is ignored: what initialization said holds
    [message] = logged(session, since)
    assert "symbol_limit" in message and "many" in message
    await raw_client.shutdown_session()


async def test_bad_initialization_options_are_logged_and_defaults_kept(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    options = {"symbol_limit": 0, "no_such_setting": True, "watch": "sometimes"}
    session = await start_session(raw_client, tmp_path, "vscode", options)
    said = logged(session)
    assert [m for m in said if "symbol_limit" in m] == [
        "memlsp: setting 'symbol_limit' must be at least 1, not 0; default kept"
    ]
    assert any("no_such_setting" in m for m in said)
    assert any("'watch'" in m for m in said)
    assert all(
        m.type == types.MessageType.Warning
        for m in raw_client.log_messages
        if "setting" in m.message
    )
    # The default limit (100) holds, and the default watcher is on.
    found = await session.symbols(QUERY)
    assert 4 < len(found) <= 100
    session.write("later.md", "# Later\n\nwatchedword\n")
    assert await session.until(lambda: session.search_paths("watchedword")) == ["later.md"]
    await raw_client.shutdown_session()


async def test_vault_settings_file(raw_client: LanguageClient, tmp_path: Path) -> None:
    """`.memlsp.toml` in the vault: excluded folders are not indexed; a bad value is logged."""
    files = {".memlsp.toml": 'exclude = ["travel"]\nmax_chunk_tokens = "big"\n'}
    session = await start_session(raw_client, tmp_path, "neovim", files=files)
    assert not [p for p in await session.search_paths("Kyoto") if p.startswith("travel/")]
    said = logged(session)
    assert any("max_chunk_tokens" in m and ".memlsp.toml" in m for m in said), said
    # A note opened in an excluded folder stays out too.
    session.open("travel/new trip.md", "# New trip\n\nexcludedword\n")
    session.open("pkm/new.md", "# New\n\nincludedword\n")
    assert await session.until(lambda: session.search_paths("includedword")) == ["pkm/new.md"]
    assert await session.search_paths("excludedword") == []
    await raw_client.shutdown_session()


async def test_a_setting_that_shapes_the_index_reopens_the_vault(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    session = await start_session(raw_client, tmp_path, "vscode")
    assert any(s.location.uri.endswith("mapo-tofu.md") for s in await session.symbols("tofu"))
    session.open("index.md", "# Home\n\nunsavedword in the editor\n")
    assert await session.until(lambda: _found(session, "unsavedword"))

    configure(session, {"memlsp": {"exclude": ["cooking"]}})

    async def reopened_without_cooking() -> bool:
        return not any("cooking/" in s.location.uri for s in await session.symbols("tofu"))

    # Not "the second memlsp/indexed": the watcher's first rescan may send that one.
    assert await session.until(reopened_without_cooking, timeout=30)
    assert await session.until(lambda: _found(session, "unsavedword"))  # the buffer came along
    await raw_client.shutdown_session()


async def _found(session: Session, word: str) -> bool:
    return bool(await session.symbols(word))


async def test_reindex_finds_what_an_unwatched_vault_missed(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    session = await start_session(raw_client, tmp_path, "vscode", {"watch": False})
    session.write("inbox/zeugma.md", "# Zeugma\n\nA figure of speech.\n")
    assert "inbox/zeugma.md" not in await session.search_paths("zeugma")
    answer = await session.request("memlsp/reindex", None)
    assert answer == {"vaults": [session.vault.as_uri()]}
    assert await session.until(lambda: session.finds("zeugma", "inbox/zeugma.md"), timeout=30)
    await raw_client.shutdown_session()


async def test_every_feature_reads_the_vaults_own_settings(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    """A vault's `.memlsp.toml` sets what the client left alone: workspace/symbol and
    diagnostics read the vault's settings, as search and status do, not the client's."""
    settings = 'symbol_limit = 3\nunresolved_links = "error"\n'
    session = await start_session(raw_client, tmp_path, "neovim", files={".memlsp.toml": settings})
    assert len(await session.symbols(QUERY)) == 3
    assert len(await session.symbols("")) == 3
    path = "settings/dangling.md"
    session.open(path, "# Dangling\n\nSee [[no such note anywhere]].\n")

    async def problems() -> list[types.Diagnostic]:
        return list(session.client.diagnostics.get(session.uri(path), ()))

    [problem] = await session.until(problems)
    assert problem.severity == types.DiagnosticSeverity.Error
    # The client may still choose: its choice wins over the vault's file.
    configure(session, {"memlsp": {"symbol_limit": 5}})
    assert len(await session.symbols(QUERY)) == 5
    await raw_client.shutdown_session()
