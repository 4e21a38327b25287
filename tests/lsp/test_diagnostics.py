"""Problems with links pushed for open notes (textDocument/publishDiagnostics), through a real client
with the recorded capabilities of VS Code and Neovim: they follow the buffer as it is typed, and a
note created by another program clears the problems of every open note that linked to it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from lsprotocol import types

from tests.lsp.conftest import Session

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]


def problems_of(session: Session, path: str) -> Sequence[types.Diagnostic]:
    return session.client.diagnostics.get(session.uri(path), ())


async def until_problems(
    session: Session, path: str, count: int, timeout: float = 10.0
) -> Sequence[types.Diagnostic]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while len(problems_of(session, path)) != count:
        if loop.time() > deadline:
            raise AssertionError(f"{path}: {problems_of(session, path)} after {timeout} s")
        await asyncio.sleep(0.02)
    return problems_of(session, path)


async def test_an_open_note_gets_its_problems_and_they_follow_the_buffer(own: Session) -> None:
    text = "# Plans\n\n😀 见 [[Not written yet]] and [[hybrid-search#No such heading]]\n"
    own.open("inbox/plans.md", text)
    found = await until_problems(own, "inbox/plans.md", 2)
    missing, anchor = sorted(found, key=lambda d: d.range.start.character)
    assert missing.severity == types.DiagnosticSeverity.Information
    assert missing.code == "unresolved-link" and missing.source == "memlsp"
    assert missing.message == "No note named “Not written yet” yet."
    line = text.split("\n")[2]
    start = line.index("[[Not")
    assert missing.range.start == types.Position(2, own.units(line[:start]))
    assert missing.range.end == types.Position(
        2, own.units(line[: start + len("[[Not written yet]]")])
    )
    assert anchor.severity == types.DiagnosticSeverity.Warning
    assert anchor.code == "missing-heading"
    # Fixed in the buffer: the warning goes, before anything is saved.
    own.change("inbox/plans.md", 2, (None, text.replace("No such heading", "Fusion")))
    await until_problems(own, "inbox/plans.md", 1)
    own.close("inbox/plans.md")
    await until_problems(own, "inbox/plans.md", 0)


async def test_creating_the_missing_note_clears_every_open_note_that_links_to_it(
    own: Session,
) -> None:
    own.open("inbox/a.md", "# A\n\n[[Someday]]\n")
    own.open("inbox/b.md", "# B\n\nsee [[Someday|later]]\n")
    await until_problems(own, "inbox/a.md", 1)
    await until_problems(own, "inbox/b.md", 1)
    own.write("Someday.md", "# Someday\n")  # another program
    await until_problems(own, "inbox/a.md", 0)
    await until_problems(own, "inbox/b.md", 0)
    own.close("inbox/a.md")
    own.close("inbox/b.md")


async def test_an_ambiguous_link_names_its_candidates(own: Session) -> None:
    own.open("inbox/trip.md", "# Trip\n\n[[ideas]]\n")
    [ambiguous] = await until_problems(own, "inbox/trip.md", 1)
    assert ambiguous.code == "ambiguous-link"
    assert ambiguous.severity == types.DiagnosticSeverity.Information
    assert ambiguous.data == {"candidates": ["travel/ideas.md", "cooking/ideas.md"]}
    own.close("inbox/trip.md")


async def test_a_setting_turns_a_kind_off_without_a_restart(own: Session) -> None:
    own.open("inbox/quiet.md", "# Quiet\n\n[[Never]]\n")
    await until_problems(own, "inbox/quiet.md", 1)
    own.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"memlsp": {"unresolved_links": "off"}})
    )
    await until_problems(own, "inbox/quiet.md", 0)
    own.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"memlsp": {"unresolved_links": "hint"}})
    )
    [hint] = await until_problems(own, "inbox/quiet.md", 1)
    assert hint.severity == types.DiagnosticSeverity.Hint
    own.close("inbox/quiet.md")


# -- quick fixes (textDocument/codeAction) ---------------------------------------------------------


async def fixes(session: Session, path: str, line: int, text: str, needle: str) -> list[Any]:
    at = types.Position(line, session.units(text[: text.index(needle) + 2]))
    found = await session.client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(session.uri(path)),
            types.Range(at, at),
            types.CodeActionContext(diagnostics=list(problems_of(session, path))),
        )
    )
    return [action for action in found or [] if isinstance(action, types.CodeAction)]


async def test_create_note_makes_the_file_and_the_problem_goes(own: Session) -> None:
    text = "# Draft\n\n🚀 [[Someday soon]]\n"
    own.open("inbox/draft2.md", text)
    [problem] = await until_problems(own, "inbox/draft2.md", 1)
    [create] = await fixes(own, "inbox/draft2.md", 2, text.split("\n")[2], "[[Someday")
    assert create.title == "Create note Someday soon.md"
    assert create.kind == types.CodeActionKind.QuickFix
    assert list(create.diagnostics or ()) == [problem]
    assert create.edit is not None and create.edit.document_changes is not None
    made, filled = create.edit.document_changes
    assert isinstance(made, types.CreateFile) and made.uri == own.uri("Someday soon.md")
    assert isinstance(filled, types.TextDocumentEdit)
    assert [getattr(edit, "new_text", None) for edit in filled.edits] == ["# Someday soon\n"]
    assert not (own.vault / "Someday soon.md").exists()  # the server never writes the vault
    own.write("Someday soon.md", "# Someday soon\n")  # as the client applies it
    await until_problems(own, "inbox/draft2.md", 0)
    own.close("inbox/draft2.md")


async def test_link_to_one_candidate_of_an_ambiguous_name(own: Session) -> None:
    text = "# Pick\n\n[[ideas|what to cook]]\n"
    own.open("inbox/pick.md", text)
    await until_problems(own, "inbox/pick.md", 1)
    actions = await fixes(own, "inbox/pick.md", 2, text.split("\n")[2], "[[ideas")
    titles = [action.title for action in actions]
    assert titles == ["Link to travel/ideas.md (the note it opens now)", "Link to cooking/ideas.md"]
    edit = actions[1].edit
    assert edit is not None and edit.document_changes is not None
    [change] = edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == 1  # the open buffer's
    [replace] = change.edits
    assert isinstance(replace, types.TextEdit)
    line = text.split("\n")[2]
    new_line = (
        line[: replace.range.start.character]
        + replace.new_text
        + line[replace.range.end.character :]
    )
    assert new_line == "[[cooking/ideas|what to cook]]"
    own.change("inbox/pick.md", 2, (None, f"# Pick\n\n{new_line}\n"))
    await until_problems(own, "inbox/pick.md", 0)
    own.close("inbox/pick.md")
