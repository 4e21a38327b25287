"""The diagnostics publisher in process, through its narrow port to the client: what it sends, and
the mentions it found, which the code actions on the same note then read instead of finding them
again."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest
from lsprotocol import types
from pygls.workspace import TextDocument

import memlsp.navigation.mentions
from memlsp.live.vault import LiveVault
from memlsp.lsp.client_port import ClientPort
from memlsp.lsp.diagnostics import Publisher
from memlsp.navigation.mentions import note_mentions
from tests.helpers.engine import open_indexed
from tests.helpers.vault import write

URI = "file:///vault/daily.md"
DAILY = "# Daily\n\nI read about zettelkasten today.\n"


async def test_the_mentions_a_note_is_hinted_are_the_ones_its_code_actions_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    write(vault, "Zettelkasten.md", "# Zettelkasten\n\nNotes that link.\n")
    write(vault, "daily.md", DAILY)
    engine = open_indexed(vault, tmp_path / "cache")
    snapshot = engine.read()
    live = cast(LiveVault, object())  # only compared by identity
    published: list[types.PublishDiagnosticsParams] = []

    def nothing(*_: Any) -> None:
        return None

    port = ClientPort(
        on_loop=lambda action: action(),
        notify=nothing,
        log=nothing,
        progress=lambda: None,
        publish_diagnostics=published.append,
        refresh_lenses=nothing,
        document=lambda uri: TextDocument(uri, DAILY) if uri == URI else None,
        open_uris=lambda: [URI],
        note_at=lambda uri: (live, "daily.md") if uri == URI else None,
        encoding=lambda: "utf-16",
    )
    await Publisher(port).vault_changed(live, snapshot)
    [sent] = published
    hints = [d for d in sent.diagnostics if d.severity == types.DiagnosticSeverity.Hint]
    assert [(d.range.start.line, d.range.start.character) for d in hints] == [(2, 13)]

    def cut_again(*_: Any) -> None:
        raise AssertionError("the code actions found the mentions again")

    monkeypatch.setattr(memlsp.navigation.mentions, "mentions_in_text", cut_again)
    lines = DAILY.splitlines()
    own = note_mentions(snapshot.view, "daily.md", lines, snapshot.settings.mention_min_length)
    assert [(m.text, m.targets) for m in own] == [("zettelkasten", ("Zettelkasten.md",))]
    engine.close()
