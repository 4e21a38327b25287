"""The server's open vaults (memlsp/lsp/vaults.py), without a client: what the user is told."""

from __future__ import annotations

from pathlib import Path

from memlsp.live.vault import Listener, LiveVault
from memlsp.lsp.vaults import Vaults
from memlsp.settings.table import Settings
from memlsp.sync.activity import Activity


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
