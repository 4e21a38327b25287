"""Problems with links pushed for open notes (textDocument/publishDiagnostics), through a real client
with the recorded capabilities of VS Code and Neovim: they follow the buffer as it is typed, and a
note created by another program clears the problems of every open note that linked to it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import pytest
import pytest_asyncio
from lsprotocol import types

from tests.lsp.conftest import CLIENTS, Session, served

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=sorted(CLIENTS))
async def session(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Session]:
    async with served(tmp_path_factory.mktemp(f"problems-{request.param}"), request.param) as made:
        yield made


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


async def test_an_open_note_gets_its_problems_and_they_follow_the_buffer(session: Session) -> None:
    text = "# Plans\n\n😀 见 [[Not written yet]] and [[hybrid-search#No such heading]]\n"
    session.open("inbox/plans.md", text)
    found = await until_problems(session, "inbox/plans.md", 2)
    missing, anchor = sorted(found, key=lambda d: d.range.start.character)
    assert missing.severity == types.DiagnosticSeverity.Information
    assert missing.code == "unresolved-link" and missing.source == "memlsp"
    assert missing.message == "No note named “Not written yet” yet."
    line = text.split("\n")[2]
    start = line.index("[[Not")
    assert missing.range.start == types.Position(2, session.units(line[:start]))
    assert missing.range.end == types.Position(
        2, session.units(line[: start + len("[[Not written yet]]")])
    )
    assert anchor.severity == types.DiagnosticSeverity.Warning
    assert anchor.code == "missing-heading"
    # Fixed in the buffer: the warning goes, before anything is saved.
    session.change("inbox/plans.md", 2, (None, text.replace("No such heading", "Fusion")))
    await until_problems(session, "inbox/plans.md", 1)
    session.close("inbox/plans.md")
    await until_problems(session, "inbox/plans.md", 0)


async def test_creating_the_missing_note_clears_every_open_note_that_links_to_it(
    session: Session,
) -> None:
    session.open("inbox/a.md", "# A\n\n[[Someday]]\n")
    session.open("inbox/b.md", "# B\n\nsee [[Someday|later]]\n")
    await until_problems(session, "inbox/a.md", 1)
    await until_problems(session, "inbox/b.md", 1)
    session.write("Someday.md", "# Someday\n")  # another program
    await until_problems(session, "inbox/a.md", 0)
    await until_problems(session, "inbox/b.md", 0)
    session.close("inbox/a.md")
    session.close("inbox/b.md")


async def test_an_ambiguous_link_names_its_candidates(session: Session) -> None:
    session.open("inbox/trip.md", "# Trip\n\n[[ideas]]\n")
    [ambiguous] = await until_problems(session, "inbox/trip.md", 1)
    assert ambiguous.code == "ambiguous-link"
    assert ambiguous.severity == types.DiagnosticSeverity.Information
    assert ambiguous.data == {"candidates": ["travel/ideas.md", "cooking/ideas.md"]}
    session.close("inbox/trip.md")


async def test_a_setting_turns_a_kind_off_without_a_restart(session: Session) -> None:
    session.open("inbox/quiet.md", "# Quiet\n\n[[Never]]\n")
    await until_problems(session, "inbox/quiet.md", 1)
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"memlsp": {"unresolved_links": "off"}})
    )
    await until_problems(session, "inbox/quiet.md", 0)
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"memlsp": {"unresolved_links": "hint"}})
    )
    [hint] = await until_problems(session, "inbox/quiet.md", 1)
    assert hint.severity == types.DiagnosticSeverity.Hint
    session.close("inbox/quiet.md")
