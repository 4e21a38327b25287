"""Unlinked mentions through a real client with the recorded capabilities of VS Code and Neovim:
hints where another note's name is plain text, the fixes that link one or all of them, the
`memlsp/mentions` request, the `N unlinked` lens, and "Link all N unlinked mentions" from the
mentioned note as one versioned edit over every note."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types

from tests.lsp.conftest import Session
from tests.lsp.test_diagnostics import until_problems

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]

# `tantivy` and `bm25` are fixture notes; `ideas` is the name of two.
DRAFT = (
    "# Draft\n"
    "\n"
    "Tantivy ranks with BM25, like [[bm25]] says; `tantivy` in code is no mention.\n"
    "See https://example.com/tantivy and more ideas later. 用 tantivy 建索引。\n"
)


def hinted(session: Session, path: str) -> list[tuple[str, str]]:
    lines = DRAFT.split("\n")
    found = []
    for diagnostic in session.client.diagnostics.get(session.uri(path), ()):
        if diagnostic.code == "unlinked-mention":
            line = lines[diagnostic.range.start.line]
            found.append((line_slice(session, line, diagnostic.range), diagnostic.message))
    return sorted(found)


def line_slice(session: Session, line: str, where: types.Range) -> str:
    encoded = line.encode("utf-16-le" if session.encoding == "utf-16" else "utf-8")
    unit = 2 if session.encoding == "utf-16" else 1
    start, end = where.start.character * unit, where.end.character * unit
    return encoded[start:end].decode("utf-16-le" if unit == 2 else "utf-8")


async def actions_at(session: Session, path: str, where: types.Range) -> list[types.CodeAction]:
    context = types.CodeActionContext(list(session.client.diagnostics.get(session.uri(path), ())))
    found = await session.client.text_document_code_action_async(
        types.CodeActionParams(session.doc(path), where, context)
    )
    return [action for action in found or [] if isinstance(action, types.CodeAction)]


def edits_of(action: types.CodeAction) -> dict[str, list[tuple[Any, str]]]:
    """path -> (version, new text) of each edit; the version is None for a note not open."""
    assert action.edit is not None
    found: dict[str, list[tuple[Any, str]]] = {}
    for change in action.edit.document_changes or []:
        assert isinstance(change, types.TextDocumentEdit)
        for edit in change.edits:
            assert isinstance(edit, types.TextEdit)
            found.setdefault(change.text_document.uri, []).append(
                (change.text_document.version, edit.new_text)
            )
    return found


async def test_names_written_as_plain_text_are_hinted(own: Session) -> None:
    own.open("inbox/draft.md", DRAFT)
    await until_problems(own, "inbox/draft.md", 4)
    assert hinted(own, "inbox/draft.md") == [
        ("BM25", "“BM25” could link to [[bm25]]"),
        ("Tantivy", "“Tantivy” could link to [[tantivy]]"),
        ("ideas", "“ideas” could link to [[cooking/ideas]] or [[travel/ideas]]"),
        ("tantivy", "“tantivy” could link to [[tantivy]]"),
    ]
    for diagnostic in own.client.diagnostics[own.uri("inbox/draft.md")]:
        assert diagnostic.severity == types.DiagnosticSeverity.Hint


async def test_one_mention_is_linked_keeping_its_text(own: Session) -> None:
    line = DRAFT.split("\n")[2]
    at = types.Range(types.Position(2, 1), types.Position(2, 1))  # inside "Tantivy"
    actions = await actions_at(own, "inbox/draft.md", at)
    titles = [action.title for action in actions]
    assert titles == [
        "Link “Tantivy” to [[tantivy]]",
        "Link all 2 mentions of “Tantivy” in this note",
    ]
    one, every = actions
    assert one.kind == types.CodeActionKind.QuickFix and one.is_preferred
    assert one.diagnostics and one.diagnostics[0].code == "unlinked-mention"
    assert edits_of(one) == {own.uri("inbox/draft.md"): [(1, "[[tantivy|Tantivy]]")]}
    assert edits_of(every) == {
        own.uri("inbox/draft.md"): [(1, "[[tantivy|Tantivy]]"), (1, "[[tantivy]]")]
    }
    assert line.startswith("Tantivy")


async def test_a_shared_name_is_offered_per_candidate(own: Session) -> None:
    line = DRAFT.split("\n")[3]
    column = own.units(line[: line.index("ideas") + 2])
    at = types.Range(types.Position(3, column), types.Position(3, column))
    titles = [action.title for action in await actions_at(own, "inbox/draft.md", at)]
    assert titles == ["Link “ideas” to [[cooking/ideas]]", "Link “ideas” to [[travel/ideas]]"]


async def test_the_mentioned_note_lists_and_links_them_all(own: Session) -> None:
    answer = await own.request("memlsp/mentions", {"uri": own.uri("search/tantivy.md")})
    in_draft = [m for m in answer["mentions"] if m["path"] == "inbox/draft.md"]
    assert [m["text"] for m in in_draft] == ["Tantivy", "tantivy"]
    assert all(m["uri"] == own.uri("inbox/draft.md") for m in in_draft)
    assert all(m["targets"] == ["search/tantivy.md"] for m in answer["mentions"])
    count = len(answer["mentions"])
    lenses = await own.client.text_document_code_lens_async(
        types.CodeLensParams(own.doc("search/tantivy.md"))
    )
    commands = {lens.command.command: lens.command for lens in lenses or [] if lens.command}
    assert commands["memlsp.showUnlinked"].title == f"{count} unlinked"
    assert list(commands["memlsp.showUnlinked"].arguments or ()) == [own.uri("search/tantivy.md")]
    start = types.Range(types.Position(0, 0), types.Position(0, 0))
    [link_all] = [
        a for a in await actions_at(own, "search/tantivy.md", start) if "Link all" in a.title
    ]
    assert link_all.title == f"Link all {count} unlinked mentions of tantivy"
    assert link_all.kind == types.CodeActionKind.RefactorRewrite
    edits = edits_of(link_all)
    assert edits[own.uri("inbox/draft.md")] == [(1, "[[tantivy|Tantivy]]"), (1, "[[tantivy]]")]
    assert sum(len(found) for found in edits.values()) == count
    # Notes that are not open are edited at whatever version they have (None).
    assert all(
        version is None
        for uri, found in edits.items()
        if "draft" not in uri
        for version, _ in found
    )


async def test_a_setting_turns_the_hints_off(own: Session) -> None:
    own.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"memlsp": {"unlinked_mentions": "off"}})
    )
    await until_problems(own, "inbox/draft.md", 0)
    own.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"memlsp": {"unlinked_mentions": "hint"}})
    )
    await until_problems(own, "inbox/draft.md", 4)
    own.close("inbox/draft.md")
    await until_problems(own, "inbox/draft.md", 0)


async def test_a_new_note_name_is_hinted_in_open_notes(own: Session) -> None:
    own.open("inbox/later.md", "# Later\n\nThe zettel gardener waters ideas.\n")
    await until_problems(own, "inbox/later.md", 1)  # "ideas"
    own.write("notes/Zettel Gardener.md", "# Zettel Gardener\n")  # another program
    await until_problems(own, "inbox/later.md", 2)
    own.close("inbox/later.md")


async def test_links_by_meaning_say_they_need_vectors(own: Session) -> None:
    """This server has no embedder: a client that shows disabled actions (VS Code) gets the
    action greyed with the reason; one that does not (Neovim 0.11) gets none."""
    own.open("inbox/phrase.md", "# Phrase\n\ninverse rank lists\n")
    where = types.Range(types.Position(2, 0), types.Position(2, 17))
    found = [a for a in await actions_at(own, "inbox/phrase.md", where) if "about" in a.title]
    if own.name == "vscode":
        [greyed] = found
        assert greyed.title == "Link to a note about this…" and greyed.edit is None
        assert greyed.disabled is not None and "need vectors" in greyed.disabled.reason
    else:
        assert found == []
    own.close("inbox/phrase.md")


async def test_a_new_level_for_the_hints_applies_at_once(own: Session) -> None:
    own.open("inbox/level.md", "# Level\n\nTantivy indexes.\n")
    [hint] = await until_problems(own, "inbox/level.md", 1)
    assert hint.severity == types.DiagnosticSeverity.Hint
    own.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"memlsp": {"unlinked_mentions": "warning"}})
    )

    async def warned() -> bool:
        found = own.client.diagnostics.get(own.uri("inbox/level.md"), ())
        return [d.severity for d in found] == [types.DiagnosticSeverity.Warning]

    await own.until(warned)
    own.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"memlsp": {"unlinked_mentions": "hint"}})
    )
    own.close("inbox/level.md")
