"""The server finds the vault a workspace folder belongs to, or says which folder it opened.

Editors pick roots by their own rules: Emacs' project.el takes the note's own folder when the vault
has no `.git`, Neovim with `root_markers` and no match sends no root at all. Indexing such a folder
alone makes every link out of it "missing"; these tests drive a real server over stdio.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.lsp.conftest import CLIENTS, plain


def _vault(root: Path, marker: str | None = ".obsidian") -> Path:
    """`daily/today.md` links to `[[idea]]`, which lives in another folder."""
    (root / "daily").mkdir(parents=True)
    (root / "topics").mkdir()
    if marker == ".obsidian":
        (root / ".obsidian").mkdir()
    elif marker is not None:
        (root / marker).write_text("", encoding="utf-8")
    (root / "daily" / "today.md").write_text("# Today\n\nSee [[idea]].\n", encoding="utf-8")
    (root / "topics" / "idea.md").write_text("# Idea\n\nAn idea.\n", encoding="utf-8")
    return root


async def _start(client: LanguageClient, tmp_path: Path, folders: list[Path]) -> None:
    capabilities = client_capabilities(CLIENTS["neovim"])
    client.capabilities = capabilities
    await client.initialize_async(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=folders[0].as_uri() if folders else None,
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders]
            or None,
            initialization_options={"cache_dir": str(tmp_path / "cache"), "embedder": "none"},
        )
    )
    client.initialized(types.InitializedParams())


async def _eventually(check: Callable[[], Awaitable[Any]], timeout: float = 20.0) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (value := await check()):
        assert loop.time() < deadline, f"not true after {timeout} s: {value!r}"
        await asyncio.sleep(0.05)
    return value


async def _roots(client: LanguageClient) -> list[str]:
    status = plain(await client.protocol.send_request_async("memlsp/status", {}))
    return sorted(vault["root"] for vault in status["vaults"])


async def _definition(client: LanguageClient, note: Path) -> list[str]:
    async def found() -> list[str]:
        answer = await client.text_document_definition_async(
            types.DefinitionParams(
                types.TextDocumentIdentifier(uri=note.as_uri()), types.Position(2, 7)
            )
        )
        if not isinstance(answer, list):
            return []
        return [location.uri for location in answer if isinstance(location, types.Location)]

    result: list[str] = await _eventually(found)
    return result


def _open(client: LanguageClient, note: Path) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=note.as_uri(),
                language_id="markdown",
                version=1,
                text=note.read_text(encoding="utf-8"),
            )
        )
    )


async def test_a_workspace_folder_inside_a_marked_vault_opens_the_whole_vault(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    vault = _vault(tmp_path / "kg")
    await _start(raw_client, tmp_path, [vault / "daily"])  # what project.el picks without .git
    note = vault / "daily" / "today.md"
    assert await _definition(raw_client, note) == [(vault / "topics" / "idea.md").as_uri()]
    assert await _roots(raw_client) == [vault.as_uri()]
    told = [m.message for m in raw_client.log_messages]
    assert any("inside the vault" in m and str(vault) in m for m in told), told
    await raw_client.shutdown_session()


async def test_a_folder_with_no_marker_is_a_vault_by_itself(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    vault = _vault(tmp_path / "plain", marker=None)
    await _start(raw_client, tmp_path, [vault])
    note = vault / "daily" / "today.md"
    assert await _definition(raw_client, note) == [(vault / "topics" / "idea.md").as_uri()]
    assert await _roots(raw_client) == [vault.as_uri()]
    await raw_client.shutdown_session()


async def test_with_no_root_the_first_note_opens_its_vault_and_the_user_is_told(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    vault = _vault(tmp_path / "kg", marker=".memlsp.toml")
    loose = _vault(tmp_path / "loose", marker=None)
    await _start(raw_client, tmp_path, [])
    assert await _roots(raw_client) == []
    note = vault / "daily" / "today.md"
    _open(raw_client, note)
    assert await _definition(raw_client, note) == [(vault / "topics" / "idea.md").as_uri()]
    shown = [m.message for m in raw_client.messages]
    assert any(str(vault) in m and "no workspace folder" in m for m in shown), shown
    # A note with no marker above it opens its own folder.
    lone = loose / "daily" / "today.md"
    _open(raw_client, lone)
    await _eventually(lambda: _has_root(raw_client, (loose / "daily").as_uri()))
    await raw_client.shutdown_session()


async def _has_root(client: LanguageClient, root: str) -> bool:
    return root in await _roots(client)


async def test_two_folders_of_one_vault_share_it_until_both_are_gone(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    vault = _vault(tmp_path / "kg")
    await _start(raw_client, tmp_path, [vault / "daily", vault / "topics"])
    assert await _definition(raw_client, vault / "daily" / "today.md")
    assert await _roots(raw_client) == [vault.as_uri()]

    def remove(folder: Path) -> None:
        raw_client.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                types.WorkspaceFoldersChangeEvent(
                    added=[],
                    removed=[types.WorkspaceFolder(uri=folder.as_uri(), name=folder.name)],
                )
            )
        )

    remove(vault / "daily")
    assert await _roots(raw_client) == [vault.as_uri()]  # still needed by `topics`
    remove(vault / "topics")
    assert await _eventually(lambda: _no_roots(raw_client))
    await raw_client.shutdown_session()


async def _no_roots(client: LanguageClient) -> bool:
    return not await _roots(client)


async def test_an_editor_started_at_the_filesystem_root_indexes_only_the_notes_vault(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    """Helix or Neovim started in `/` or `~` on a note send that folder as the root."""
    vault = _vault(tmp_path / "kg")
    await _start(raw_client, tmp_path, [Path("/")])
    assert await _roots(raw_client) == []

    async def told() -> bool:
        return any("not indexing /" in m.message for m in raw_client.messages)

    await _eventually(told, timeout=5)
    note = vault / "daily" / "today.md"
    _open(raw_client, note)
    assert await _definition(raw_client, note) == [(vault / "topics" / "idea.md").as_uri()]
    assert await _roots(raw_client) == [vault.as_uri()]
    await raw_client.shutdown_session()
