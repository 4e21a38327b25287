"""Meaning in the editor, through a real client with the real default embedder: `memlsp/related`,
the `N related` lens, `[[` completion by meaning and "Link to a note about this"."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types

from memlsp.vault.linktext import wikilink_target
from tests.helpers.vault import FIXTURE_VAULT, graph_of, read_vault
from tests.lsp.conftest import Session, served

pytestmark = pytest.mark.asyncio(loop_scope="module")

# Shares no word with travel/kyoto-2023.md (tests/lsp/test_semantic.py checks it).
MEANING_ONLY = "visiting shrines of former imperial capitals"
TARGET = "travel/kyoto-2023.md"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def semantic(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    folder = tmp_path_factory.mktemp("meaning")
    async with served(folder, "vscode", {"embedder": "bilingual"}) as session:
        [vectors] = await session.wait_for("memlsp/vectors", timeout=120)
        assert vectors.vectors.state == "ready", vectors
        yield session


def linked_to(path: str) -> set[str]:
    notes, files = read_vault(FIXTURE_VAULT)
    graph = graph_of(notes, files)
    targets = {t for item in graph.outlinks(path) for t in item.resolution.targets}
    return (targets | set(graph.inlink_sources(path))) - {path}


async def test_related_notes_of_a_note(semantic: Session) -> None:
    answer = await semantic.request("memlsp/related", {"uri": semantic.uri("search/bm25.md")})
    assert answer["note"] == semantic.uri("search/bm25.md") and answer["path"] == "search/bm25.md"
    results = answer["results"]
    paths = [result["path"] for result in results]
    assert "search/bm25.md" not in paths and len(paths) == len(set(paths)) > 0
    # The notes about search are nearest (a Chinese one among them), whether linked or not.
    assert all(path.startswith("search/") for path in paths[:3]), paths
    notes, files = read_vault(FIXTURE_VAULT)
    table = graph_of(notes, files).table
    linked = linked_to("search/bm25.md")
    for result in results:
        assert result["uri"] == semantic.uri(result["path"])
        assert result["linked"] == (result["path"] in linked)
        assert result["link"] == wikilink_target(table, "search/bm25.md", result["path"])
        assert 0 <= result["score"] <= 1 and result["reason"]
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)


async def test_related_notes_asked_wrongly(semantic: Session) -> None:
    with pytest.raises(Exception, match="limit"):
        await semantic.request("memlsp/related", {"uri": semantic.uri("index.md"), "limit": 0})
    with pytest.raises(Exception, match="uri"):
        await semantic.request("memlsp/related", {})
    outside = (semantic.vault.parent / "elsewhere.md").as_uri()
    assert await semantic.request("memlsp/related", {"uri": outside}) is None


async def test_the_lens_counts_the_related_notes(semantic: Session) -> None:
    found = await semantic.client.text_document_code_lens_async(
        types.CodeLensParams(semantic.doc("search/bm25.md"))
    )
    commands = {lens.command.command: lens.command for lens in found or [] if lens.command}
    related = commands["memlsp.showRelated"]
    assert related.title.endswith(" related") and int(related.title.split()[0]) > 0
    assert list(related.arguments or ()) == [semantic.uri("search/bm25.md")]


async def completion_items(session: Session, path: str, line: str) -> list[types.CompletionItem]:
    session.open(path, f"# Draft\n\n{line}\n")
    found = await session.client.text_document_completion_async(
        types.CompletionParams(session.doc(path), types.Position(2, session.units(line)))
    )
    assert isinstance(found, types.CompletionList)
    return list(found.items)


async def test_completion_after_a_phrase_offers_the_note_about_it(
    semantic: Session, tmp_path: Path
) -> None:
    items = await completion_items(semantic, "inbox/draft.md", "[[" + MEANING_ONLY)
    by_meaning = [item for item in items if (item.detail or "").startswith("by meaning")]
    assert by_meaning and by_meaning[0].detail == f"by meaning · {TARGET}"
    edit = by_meaning[0].text_edit
    assert isinstance(edit, types.TextEdit)
    assert edit.new_text == f"kyoto-2023|{MEANING_ONLY}]]"
    assert edit.range.start == types.Position(2, 2)
    assert by_meaning[0].filter_text == MEANING_ONLY
    semantic.close("inbox/draft.md")


async def test_a_selected_phrase_can_be_linked_to_the_note_about_it(semantic: Session) -> None:
    line = f"We spent a week {MEANING_ONLY} last spring."
    semantic.open("inbox/trip.md", f"# Trip\n\n{line}\n")
    start = line.index(MEANING_ONLY)
    where = types.Range(
        types.Position(2, semantic.units(line[:start])),
        types.Position(2, semantic.units(line[: start + len(MEANING_ONLY)])),
    )
    actions = await semantic.client.text_document_code_action_async(
        types.CodeActionParams(semantic.doc("inbox/trip.md"), where, types.CodeActionContext([]))
    )
    found = [a for a in actions or [] if isinstance(a, types.CodeAction)]
    titles = [action.title for action in found]
    assert titles[0] == "Link to a note about this: [[kyoto-2023]]", titles
    first = found[0]
    assert first.kind == types.CodeActionKind.RefactorRewrite and first.edit is not None
    [change] = first.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == 1
    [text_edit] = change.edits
    assert isinstance(text_edit, types.TextEdit)
    assert text_edit.new_text == f"[[kyoto-2023|{MEANING_ONLY}]]" and text_edit.range == where
    semantic.close("inbox/trip.md")
