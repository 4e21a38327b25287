"""The server's lifecycle as an editor drives it: requests before `initialize` and before
`initialized`, `shutdown` and `exit`, a client that dies, a vault folder that disappears; stdout
carries only the protocol."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcServerNotInitialized
from pytest_lsp import LanguageClient, client_capabilities

from tests.helpers.lsp_client import StdioClient, initialize_params
from tests.helpers.vault import TWO_NOTES, write_notes
from tests.lsp.conftest import CLIENTS, start_session

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[StdioClient]:
    started = StdioClient(cwd=tmp_path)
    yield started
    started.kill()


def test_shutdown_and_exit_end_the_process_promptly(client: StdioClient, tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", TWO_NOTES)
    answer = client.initialize(initialize_params(vault, cache_dir=str(tmp_path / "cache")))
    assert answer["result"]["serverInfo"]["name"] == "memlsp"
    found = client.request("workspace/symbol", {"query": "second"})
    assert [s["containerName"] for s in found] == ["beta.md"]
    assert client.request("shutdown") is None
    started = time.monotonic()
    client.notify("exit")
    assert client.exited(timeout=5) == 0
    assert time.monotonic() - started < 2
    # Everything on stdout was a protocol frame; logs went to stderr.
    assert client.bad_output == []


def test_exit_without_shutdown_ends_the_process_with_an_error_code(
    client: StdioClient, tmp_path: Path
) -> None:
    client.initialize(
        initialize_params(
            write_notes(tmp_path / "vault", TWO_NOTES), cache_dir=str(tmp_path / "cache")
        )
    )
    client.notify("exit")
    assert client.exited(timeout=5) == 1


def test_the_server_exits_when_its_input_closes(client: StdioClient, tmp_path: Path) -> None:
    client.initialize(
        initialize_params(
            write_notes(tmp_path / "vault", TWO_NOTES), cache_dir=str(tmp_path / "cache")
        )
    )
    client.close_input()
    assert client.exited(timeout=5) is not None


def test_the_server_exits_when_the_client_process_dies(client: StdioClient, tmp_path: Path) -> None:
    editor = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        vault = write_notes(tmp_path / "vault", TWO_NOTES)
        client.initialize(
            initialize_params(vault, process_id=editor.pid, cache_dir=str(tmp_path / "cache"))
        )
        assert client.request("memlsp/status")["vaults"][0]["notes"] == 2
        assert client.exited(timeout=0.1) is None  # alive while the editor is
    finally:
        editor.kill()
        editor.wait()  # reaped: its process id is gone
    # The stdin pipe stays open: only the editor's death tells the server to go.
    assert client.exited(timeout=6) is not None


async def test_requests_before_initialized(raw_client: LanguageClient, tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", TWO_NOTES)
    uri = (vault / "alpha.md").as_uri()
    position = types.Position(2, 12)
    document = types.TextDocumentIdentifier(uri=uri)

    capabilities = client_capabilities(CLIENTS["neovim"])
    raw_client.capabilities = capabilities  # pytest-lsp's own checks want them

    # Before `initialize`: every request is refused (ServerNotInitialized), and the server lives on.
    for refused in (
        raw_client.workspace_symbol_async(types.WorkspaceSymbolParams(query="alpha")),
        raw_client.text_document_definition_async(types.DefinitionParams(document, position)),
        raw_client.protocol.send_request_async("memlsp/search", {"query": "alpha"}),
    ):
        with pytest.raises(JsonRpcException) as error:
            await refused
        assert error.value.code == JsonRpcServerNotInitialized.CODE

    await raw_client.initialize_async(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=vault.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=vault.as_uri(), name="vault")],
            initialization_options={"cache_dir": str(tmp_path / "cache"), "embedder": "none"},
        )
    )
    # Between `initialize` and `initialized`: nothing is indexed yet, so empty answers.
    assert not await raw_client.workspace_symbol_async(types.WorkspaceSymbolParams(query="alpha"))
    assert not await raw_client.text_document_definition_async(
        types.DefinitionParams(document, position)
    )
    assert await raw_client.text_document_hover_async(types.HoverParams(document, position)) is None
    status = await raw_client.protocol.send_request_async("memlsp/status", {})
    assert list(status.vaults) == []

    indexed = raw_client.protocol.wait_for_notification_async("memlsp/indexed")
    raw_client.initialized(types.InitializedParams())
    await indexed
    found = await raw_client.text_document_definition_async(
        types.DefinitionParams(document, position)
    )
    assert isinstance(found, list)
    uris = [location.uri for location in found if isinstance(location, types.Location)]
    assert uris == [(vault / "beta.md").as_uri()]
    await raw_client.shutdown_session()


async def test_a_vault_folder_deleted_while_the_server_runs(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    session = await start_session(raw_client, tmp_path, "neovim")
    position = session.find("index.md", "[[bm25]]", 3)
    assert await session.definition("index.md", position)
    shutil.rmtree(session.vault)

    # The watcher may report the deletions in more than one batch: wait for the last.
    async def emptied() -> bool:
        return not await session.symbols("")

    await session.until(emptied)
    assert await session.symbols("bm25") == []
    assert await session.definition("index.md", position) == []
    assert await session.hover("index.md", position) is None
    assert await session.references("index.md", position, True) == []
    status = await session.request("memlsp/status", {})
    assert status["vaults"][0]["notes"] == 0
    assert [m for m in raw_client.messages if m.type == types.MessageType.Error] == []
    await raw_client.shutdown_session()


async def test_workspace_symbols_of_two_vaults_are_merged_by_score(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    """A second vault's best hit is not cut off by the first vault's weaker ones: symbols are
    merged by score across vaults, as `memlsp/search` merges its results."""
    prose = "A long note about many things, which names the zyzzyva only once in passing. "
    prose += "Other words follow. " * 40
    weak = {"weak.md": f"# Weak\n\n{prose}\n", "weaker.md": f"# Weaker\n\n{prose * 3}\n"}
    session = await start_session(raw_client, tmp_path, "vscode", {"symbol_limit": 2}, weak)
    others = {f"other{n}.md": f"# Other {n}\n\nNothing of the kind here.\n" for n in range(20)}
    strong = {"zyzzyva.md": "# Zyzzyva\n\nZyzzyva, zyzzyva.\n", **others}
    second = write_notes(tmp_path / "second", strong)
    folder = types.WorkspaceFolder(uri=second.as_uri(), name="second")
    raw_client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[folder], removed=[])
        )
    )
    await session.wait_until("memlsp/indexed", lambda p: p.root == second.as_uri())
    searched = await session.request("memlsp/search", {"query": "zyzzyva", "limit": 2})
    best = [result["uri"] for result in searched["results"]]
    assert len(best) == 2 and best[1] == (second / "zyzzyva.md").as_uri()  # one of each vault
    found = await session.symbols("zyzzyva")
    assert [symbol.location.uri for symbol in found] == best
    await raw_client.shutdown_session()


async def test_workspace_folders_added_and_removed(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    """Each workspace folder is a vault of its own; results from every vault are merged."""
    session = await start_session(raw_client, tmp_path, "vscode")
    second = write_notes(tmp_path / "second", TWO_NOTES)
    (second / "gamma.md").write_text("# Gamma\n\nA tantivy note elsewhere.\n", encoding="utf-8")
    folder = types.WorkspaceFolder(uri=second.as_uri(), name="second")
    raw_client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[folder], removed=[])
        )
    )
    # The first vault may be indexed again meanwhile (the watcher's rescan once its watch is up).
    indexed = await session.wait_until("memlsp/indexed", lambda p: p.root == second.as_uri())
    assert indexed.notes == 3
    found = await session.symbols("tantivy")
    assert {s.location.uri for s in found} >= {
        session.uri("search/tantivy.md"),
        (second / "gamma.md").as_uri(),
    }
    searched = await session.request("memlsp/search", {"query": "tantivy", "limit": 50})
    roots = {result["root"] for result in searched["results"]}
    assert roots == {session.vault.as_uri(), second.as_uri()}
    beta = await session.client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier((second / "alpha.md").as_uri()), types.Position(2, 12)
        )
    )
    assert isinstance(beta, list)
    uris = [location.uri for location in beta if isinstance(location, types.Location)]
    assert uris == [(second / "beta.md").as_uri()]
    status = await session.request("memlsp/status", {})
    assert sorted(v["root"] for v in status["vaults"]) == sorted(
        [session.vault.as_uri(), second.as_uri()]
    )

    raw_client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[], removed=[folder])
        )
    )
    found = await session.symbols("tantivy")
    assert found and all(s.location.uri.startswith(session.vault.as_uri()) for s in found)
    assert [v["root"] for v in (await session.request("memlsp/status", {}))["vaults"]] == [
        session.vault.as_uri()
    ]
    await raw_client.shutdown_session()
