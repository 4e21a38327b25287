"""A vault that stops (a setting that reopens it, its workspace folder removed) stops off the event
loop: requests are answered meanwhile, and the vault that replaces it answers with the new settings.

Stopping is made slow the way it is in use: the vault's embedding thread waits on a slow embedding
API (the test endpoint, held until the test releases it), and a vault waits for that batch before
it closes its index. While held, the stop cannot finish, so an answer that comes is one the server
gave while the vault was still stopping.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.helpers.fake_embedder import Hold, embedding_endpoint
from tests.helpers.vault import TWO_NOTES, write_notes
from tests.lsp.conftest import Session, start_session

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")

# Well below the 10 s a stop waits for its embedding thread: an answer within this while held came
# before the stop ended.
ANSWER_WITHIN = 5.0


@contextlib.contextmanager
def slow_embedder() -> Iterator[tuple[Hold, dict[str, Any]]]:
    """Initialization options for an embedding API that answers only once released."""
    hold = Hold()
    with embedding_endpoint(64, hold) as url:
        yield hold, {"embedder": "endpoint", "embedder_url": url, "embedder_model": "fake-64"}


async def embedding_waits(hold: Hold, vaults: int) -> None:
    """Until the embedding thread of each of `vaults` vaults waits on the API (its first call, the
    dimension probe, is the one held)."""
    assert await asyncio.to_thread(hold.asked, vaults, 60)


def configure(session: Session, settings: dict[str, Any]) -> None:
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"memlsp": settings})
    )


def folders(session: Session, added: list[Path], removed: list[Path]) -> None:
    def named(folder: Path) -> types.WorkspaceFolder:
        return types.WorkspaceFolder(uri=folder.as_uri(), name=folder.name)

    session.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[named(f) for f in added], removed=[named(f) for f in removed]
            )
        )
    )


async def status(session: Session) -> list[dict[str, Any]]:
    answer = await asyncio.wait_for(session.request("memlsp/status", {}), ANSWER_WITHIN)
    vaults: list[dict[str, Any]] = answer["vaults"]
    return vaults


async def hover_on_bm25(session: Session) -> str | None:
    where = session.find("index.md", "[[bm25]]", 3)
    return await asyncio.wait_for(session.hover("index.md", where), ANSWER_WITHIN)


async def cooking_found(session: Session) -> bool:
    return any("/cooking/" in s.location.uri for s in await session.symbols("tofu"))


async def test_a_vault_that_reopens_answers_while_it_stops_and_after_with_the_new_settings(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    with slow_embedder() as (hold, options):
        session = await start_session(raw_client, tmp_path, "vscode", options)
        assert await cooking_found(session)
        await embedding_waits(hold, 1)
        configure(session, {"exclude": ["cooking"]})  # reopens the vault

        # Answered while the old vault stops, from it: its index is still whole.
        [vault] = await status(session)
        assert vault["root"] == session.vault.as_uri() and vault["notes"] > 20, vault
        hover = await hover_on_bm25(session)
        assert hover is not None and "Term frequency saturates" in hover
        assert not hold.released.is_set()

        hold.release()
        assert await session.until(lambda: _not(cooking_found(session)), timeout=30)
        [vault] = await status(session)
        assert not vault["read_only"], vault  # the old vault let go of the index first
        hover = await hover_on_bm25(session)
        assert hover is not None and "Term frequency saturates" in hover
        await raw_client.shutdown_session()


async def test_two_reopens_in_a_row_leave_one_vault_with_the_last_settings(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    with slow_embedder() as (hold, options):
        session = await start_session(raw_client, tmp_path, "neovim", options)
        await embedding_waits(hold, 1)
        configure(session, {"exclude": ["cooking"]})
        configure(session, {"exclude": ["travel"]})  # while the first reopen still waits
        assert len(await status(session)) == 1
        hold.release()

        async def travel_gone_cooking_back() -> bool:
            kyoto = await session.search_paths("Kyoto")
            return await cooking_found(session) and not any(p.startswith("travel/") for p in kyoto)

        assert await session.until(travel_gone_cooking_back, timeout=30)
        [vault] = await status(session)
        assert not vault["read_only"], vault
        await raw_client.shutdown_session()


async def test_a_removed_folders_vault_stops_while_requests_are_answered(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    with slow_embedder() as (hold, options):
        session = await start_session(raw_client, tmp_path, "vscode", options)
        second = write_notes(tmp_path / "second", TWO_NOTES)
        folders(session, [second], [])
        await session.wait_until("memlsp/indexed", lambda p: p.root == second.as_uri())
        await embedding_waits(hold, 2)

        folders(session, [], [second])
        assert [v["root"] for v in await status(session)] == [session.vault.as_uri()]
        hover = await hover_on_bm25(session)
        assert hover is not None and "Term frequency saturates" in hover

        # Added back while its old vault still stops: the new one opens once the old let go.
        since = len(session.events.get("memlsp/indexed", []))
        folders(session, [second], [])
        assert not hold.released.is_set()
        hold.release()
        indexed = await session.wait_until(
            "memlsp/indexed", lambda p: p.root == second.as_uri(), since=since
        )
        assert indexed.notes == 2
        by_root = {v["root"]: v for v in await status(session)}
        assert by_root.keys() == {session.vault.as_uri(), second.as_uri()}
        assert not by_root[second.as_uri()]["read_only"], by_root
        await raw_client.shutdown_session()


async def _not(check: Any) -> bool:
    return not await check
