"""textDocument/completion through a real client, with the recorded capabilities of VS Code
(UTF-16) and Neovim (UTF-8): items come from the unsaved buffer, their ranges are in the client's
units, and an accepted item gives a link that the server then resolves."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter

from tests.lsp.conftest import Session

converter = get_converter()
pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]


async def completions(session: Session, path: str, line: int, text: str) -> dict[str, Any]:
    """Completion at the end of `text`, which is the whole of line `line`, as JSON."""
    found = await session.client.text_document_completion_async(
        types.CompletionParams(
            types.TextDocumentIdentifier(session.uri(path)),
            types.Position(line, session.units(text)),
        )
    )
    assert isinstance(found, types.CompletionList)
    answer: dict[str, Any] = converter.unstructure(found)
    return answer


async def test_the_server_offers_completion_on_its_trigger_characters(own: Session) -> None:
    assert own.result is not None
    provider = own.result.capabilities.completion_provider
    assert provider is not None
    assert set("[#^|") <= set(provider.trigger_characters or ())


async def test_a_note_typed_after_two_brackets_is_offered_and_its_link_resolves(
    own: Session,
) -> None:
    line = "😀 混合 see [[hybr"
    own.open("inbox/draft.md", f"# Draft\n\n{line}\n", version=1)
    found = await completions(own, "inbox/draft.md", 2, line)
    first = found["items"][0]
    assert first["detail"] == "search/hybrid-search.md"
    edit = first["textEdit"]
    assert edit["newText"] == "hybrid-search]]"
    # The range is what was typed after `[[`, in the client's units (the emoji is 2 or 4).
    assert edit["range"]["start"] == {"line": 2, "character": own.units("😀 混合 see [[")}
    assert edit["range"]["end"] == {"line": 2, "character": own.units(line)}
    # Accept it as the client would, then follow the link.
    accepted = "😀 混合 see [[" + edit["newText"]
    own.change("inbox/draft.md", 2, (None, f"# Draft\n\n{accepted}\n"))

    async def followed() -> list[str]:
        places = await own.definition("inbox/draft.md", types.Position(2, own.units(accepted) - 3))
        return [place[0] for place in places]

    assert await own.until(followed) == ["search/hybrid-search.md"]
    own.close("inbox/draft.md")


async def test_a_shared_file_name_is_written_with_its_folder(own: Session) -> None:
    own.open("inbox/ideas-draft.md", "[[ideas\n", version=1)
    found = await completions(own, "inbox/ideas-draft.md", 0, "[[ideas")
    written = {item["detail"]: item["textEdit"]["newText"] for item in found["items"][:2]}
    assert written == {"cooking/ideas.md": "cooking/ideas]]", "travel/ideas.md": "travel/ideas]]"}
    own.close("inbox/ideas-draft.md")


async def test_headings_of_a_linked_note_and_tags_with_counts(own: Session) -> None:
    own.open("inbox/more.md", "[[hybrid-search#recip]]\n#sea\n", version=1)
    found = await completions(own, "inbox/more.md", 0, "[[hybrid-search#recip")
    assert [item["label"] for item in found["items"]] == ["Reciprocal Rank Fusion"]
    assert found["items"][0]["textEdit"]["newText"] == "Reciprocal Rank Fusion"  # `]]` is there
    tags = await completions(own, "inbox/more.md", 1, "#sea")
    labels = [item["label"] for item in tags["items"]]
    assert labels[0] == "search" and {"search/ranking", "search/engines"} <= set(labels)
    assert tags["items"][0]["detail"].endswith(("note", "notes"))
    own.close("inbox/more.md")


async def test_no_completion_inside_code(own: Session) -> None:
    own.open("inbox/code.md", "```\n[[hybr\n```\n", version=1)
    found = await completions(own, "inbox/code.md", 1, "[[hybr")
    assert found == {"isIncomplete": False, "items": []}
    own.close("inbox/code.md")
