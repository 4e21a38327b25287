"""File events reported by the client (`workspace/didChangeWatchedFiles`, `didCreateFiles`,
`didRenameFiles`, `didDeleteFiles`) with the server's own watcher turned off (`"watch": false`),
so every change seen here came through the client's message.

One server for the module (VS Code's capabilities: it is the client that sends these); each test
works in a folder of its own.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from lsprotocol import types

from tests.lsp.conftest import Session, served

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def events(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    async with served(tmp_path_factory.mktemp("events"), "vscode", {"watch": False}) as session:
        yield session


def watched(session: Session, *changes: tuple[str, types.FileChangeType]) -> None:
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=session.uri(path), type=kind) for path, kind in changes]
        )
    )


async def test_without_the_watcher_a_silent_write_is_not_seen(events: Session) -> None:
    events.write("events/silent/unseen.md", "# Unseen\n\nsilentword\n")
    events.write("events/silent/told.md", "# Told\n\ntoldword\n")
    watched(events, ("events/silent/told.md", types.FileChangeType.Created))
    await events.until(lambda: events.finds("toldword", "events/silent/told.md"))
    assert await events.search_paths("silentword") == []


async def test_watched_files_created_changed_deleted(events: Session) -> None:
    path = "events/watched/note.md"
    events.write(path, "# Watched\n\nfirstword\n")
    watched(events, (path, types.FileChangeType.Created))
    await events.until(lambda: events.finds("firstword", path))

    events.write(path, "# Watched\n\nsecondword\n")
    watched(events, (path, types.FileChangeType.Changed))
    await events.until(lambda: events.finds("secondword", path))
    assert not await events.finds("firstword", path)

    (events.vault / path).unlink()
    watched(events, (path, types.FileChangeType.Deleted))
    await events.until(lambda: events.misses("secondword", path))


async def test_did_create_and_did_delete_files(events: Session) -> None:
    path = "events/created/新建 note.md"
    events.write(path, "# 新建\n\ncreatedword\n")
    events.client.workspace_did_create_files(
        types.CreateFilesParams(files=[types.FileCreate(uri=events.uri(path))])
    )
    await events.until(lambda: events.finds("createdword", path))

    (events.vault / path).unlink()
    events.client.workspace_did_delete_files(
        types.DeleteFilesParams(files=[types.FileDelete(uri=events.uri(path))])
    )
    await events.until(lambda: events.misses("createdword", path))


async def test_did_rename_files(events: Session) -> None:
    old, new = "events/renamed/before.md", "events/renamed/after.md"
    pointer = "events/renamed/pointer.md"
    events.write(old, "# Before\n\nrenamedword\n")
    events.write(pointer, "# Pointer\n\n[[before]] and [[after]]\n")
    watched(events, (old, types.FileChangeType.Created), (pointer, types.FileChangeType.Created))
    to_before = events.find(pointer, "[[before]]", 3)
    to_after = events.find(pointer, "[[after]]", 3)
    assert await events.until(lambda: events.definition(pointer, to_before)) == [(old, 0, 0, 0, 0)]
    assert await events.definition(pointer, to_after) == []

    os.rename(events.vault / old, events.vault / new)
    events.client.workspace_did_rename_files(
        types.RenameFilesParams(
            files=[types.FileRename(old_uri=events.uri(old), new_uri=events.uri(new))]
        )
    )
    assert await events.until(lambda: events.definition(pointer, to_after)) == [(new, 0, 0, 0, 0)]
    assert await events.definition(pointer, to_before) == []
    assert await events.search_paths("renamedword") == [new]


async def test_did_rename_a_folder(events: Session) -> None:
    events.write("events/folder/box/inside.md", "# Inside\n\nfolderword\n")
    watched(events, ("events/folder/box/inside.md", types.FileChangeType.Created))
    await events.until(lambda: events.finds("folderword", "events/folder/box/inside.md"))
    os.rename(events.vault / "events/folder/box", events.vault / "events/folder/crate")
    events.client.workspace_did_rename_files(
        types.RenameFilesParams(
            files=[
                types.FileRename(
                    old_uri=events.uri("events/folder/box"),
                    new_uri=events.uri("events/folder/crate"),
                )
            ]
        )
    )
    await events.until(lambda: events.finds("folderword", "events/folder/crate/inside.md"))
    assert await events.search_paths("folderword") == ["events/folder/crate/inside.md"]


async def test_events_outside_the_vault_are_ignored(events: Session) -> None:
    outside = events.vault.parent / "outside.md"
    outside.write_text("# Outside\n\noutsideword\n", encoding="utf-8")
    mark = events.mark()
    events.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=outside.as_uri(), type=types.FileChangeType.Created),
                types.FileEvent(uri="untitled:Untitled-1", type=types.FileChangeType.Changed),
            ]
        )
    )
    events.write("events/outside/inside.md", "# Inside\n\ninsideword\n")
    watched(events, ("events/outside/inside.md", types.FileChangeType.Created))
    await events.until(lambda: events.finds("insideword", "events/outside/inside.md"))
    assert await events.search_paths("outsideword") == []
    assert events.mark() > mark
    assert [m for m in events.client.messages if m.type == types.MessageType.Error] == []


async def test_events_in_dot_folders_are_ignored(events: Session) -> None:
    """`.obsidian/`, `.trash/` and other dot-folders are never indexed, whoever reports them."""
    events.write(".trash/old note.md", "# Old\n\ntrashedword\n")
    events.write("events/dots/.hidden/note.md", "# Hidden\n\nhiddenword\n")
    events.write("events/dots/seen.md", "# Seen\n\nseenword\n")
    watched(
        events,
        (".trash/old note.md", types.FileChangeType.Created),
        ("events/dots/.hidden/note.md", types.FileChangeType.Created),
        ("events/dots/seen.md", types.FileChangeType.Created),
    )
    await events.until(lambda: events.finds("seenword", "events/dots/seen.md"))
    assert await events.search_paths("trashedword") == []
    assert await events.search_paths("hiddenword") == []
