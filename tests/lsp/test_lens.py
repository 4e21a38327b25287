"""The code lens of links on a note's first line, through a real client with the recorded capabilities of
VS Code and Neovim: counts by note, kept current as other notes change, and a setting turns it
off."""

from __future__ import annotations

import pytest
from lsprotocol import types

from memlsp.navigation.counts import lens_title, link_counts
from memlsp.vault.view import VaultView
from tests.helpers.vault import FIXTURE_VAULT, graph_of, read_vault
from tests.lsp.conftest import Session

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]


async def link_lens(session: Session, path: str) -> list[types.CodeLens]:
    """The lens of a note's links (the lenses of its mentions and related notes aside)."""
    found = await lenses(session, path)
    return [lens for lens in found if lens.command and lens.command.command == "memlsp.showLinks"]


async def lenses(session: Session, path: str) -> list[types.CodeLens]:
    found = await session.client.text_document_code_lens_async(
        types.CodeLensParams(session.doc(path))
    )
    return list(found or [])


def fixture_title(path: str) -> str:
    notes, files = read_vault(FIXTURE_VAULT)
    view = VaultView(0, graph_of(notes, files).freeze(), lambda _: None)
    return lens_title(link_counts(view, path))


async def test_a_note_has_one_lens_on_its_first_line_that_opens_its_links(own: Session) -> None:
    [lens] = await link_lens(own, "search/bm25.md")
    assert lens.range == types.Range(types.Position(0, 0), types.Position(0, 0))
    assert lens.command is not None
    assert lens.command.title == fixture_title("search/bm25.md")
    linking = {
        note for note in own.vault.rglob("*.md") if "[[bm25" in note.read_text(encoding="utf-8")
    } - {own.vault / "search/bm25.md"}
    assert lens.command.title.startswith(f"{len(linking)} inlinks · ")
    assert lens.command.command == "memlsp.showLinks"
    assert list(lens.command.arguments or ()) == [own.uri("search/bm25.md")]


async def test_the_counts_follow_other_notes(own: Session) -> None:
    [before] = await link_lens(own, "pkm/zettelkasten.md")
    assert before.command is not None
    title = before.command.title
    own.write("inbox/new-reader.md", "# New reader\n\n[[zettelkasten]] and [[Never written]]\n")

    async def one_more() -> bool:
        [now] = await link_lens(own, "pkm/zettelkasten.md")
        return now.command is not None and now.command.title != title

    await own.until(one_more)
    [after] = await link_lens(own, "inbox/new-reader.md")
    assert after.command is not None
    assert after.command.title == "0 inlinks · 1 outlink · 1 unresolved"


async def test_the_setting_turns_the_lens_off(own: Session) -> None:
    own.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"memlsp": {"code_lens": False}})
    )

    async def gone() -> bool:
        return not await lenses(own, "search/bm25.md")

    await own.until(gone)
