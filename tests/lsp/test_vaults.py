"""The server's open vaults (memlsp/lsp/vaults.py), without a client: what the user is told."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from memlsp.live.vault import Listener, LiveVault
from memlsp.lsp.vaults import Vaults
from memlsp.settings.table import Settings
from memlsp.sync.activity import Activity
from tests.helpers.vault import TWO_NOTES, live_threads, write_notes


def test_a_vault_opened_again_says_again_that_its_answers_may_be_incomplete(
    tmp_path: Path,
) -> None:
    warned: list[str] = []
    vaults = Vaults(
        Listener(),
        Activity(),
        tell=lambda _: None,
        warn=warned.append,
        say=lambda _: None,
        opened=lambda _: None,
        closed=lambda _: None,
    )
    opening = LiveVault(tmp_path, Settings())  # not started: still opening
    vaults.warn_if_incomplete(opening)
    vaults.warn_if_incomplete(opening)
    assert len(warned) == 1 and "answers may be incomplete" in warned[0]
    vaults.close_vault(tmp_path)
    vaults.warn_if_incomplete(LiveVault(tmp_path, Settings()))
    assert len(warned) == 2


async def test_two_reopens_in_a_row_leave_one_vault_and_no_thread_of_another(
    tmp_path: Path,
) -> None:
    """Settings that reopen a vault, twice before the first reopen ended: one vault, with the
    last settings, its threads once; and nothing left once all are closed."""
    root = write_notes(tmp_path / "twice", TWO_NOTES)
    vaults = Vaults(
        Listener(),
        Activity(),
        tell=lambda _: None,
        warn=lambda _: None,
        say=lambda _: None,
        opened=lambda _: None,
        closed=lambda _: None,
    )
    first = Settings(cache_dir=tmp_path / "cache", embedder="none")
    vaults.open_vault(root, first)
    [opened] = vaults.all()
    assert await asyncio.to_thread(opened.wait_ready, 30)
    vaults.use_settings(replace(first, exclude=("a",)))
    vaults.use_settings(replace(first, exclude=("b",)))

    async def reopened() -> LiveVault:
        while True:
            [vault] = vaults.all()  # one at every moment: the old one, then the new one
            if vault.settings.exclude == ("b",):
                return vault
            await asyncio.sleep(0.01)

    vault = await asyncio.wait_for(reopened(), 30)
    assert await asyncio.to_thread(vault.wait_ready, 30)
    assert live_threads(root) == [f"index {root.name}", f"watch {root.name}"]
    assert vault.engine is not None and not vault.engine.read_only  # the first let go of it
    assert opened.state == "stopped"
    vaults.close_all()
    assert live_threads(root) == [] and vaults.all() == []
