"""The live index through a real client: editor buffers, writes by other programs (the watcher),
renames and deletes on disk, positions on lines with Chinese and emoji, and bad input that must
not break the server.

Each client shares one server for this module. Every test works on notes of its own under
`live/<test>/`, so the tests do not see each other's changes; each waits for the server's
`memlsp/changed` notifications (`Session.until`), never for a fixed time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types

from tests.lsp.conftest import CHANGED, CLIENTS, Session, range_numbers, served

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=sorted(CLIENTS))
async def live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Session]:
    async with served(tmp_path_factory.mktemp(f"live-{request.param}"), request.param) as session:
        yield session


async def chunk_text(session: Session, query: str, path: str) -> str | None:
    """The indexed text of the first chunk of `path` that `query` finds."""
    answer = await session.request("memlsp/search", {"query": query, "limit": 50, "expand": False})
    return next((r["text"] for r in answer["results"] if r["path"] == path), None)


async def outlinks(session: Session, path: str) -> list[dict[str, Any]]:
    links = await session.request("memlsp/links", {"uri": session.uri(path)})
    return list(links["outlinks"]) if links else []


# -- positions ----------------------------------------------------------------------------------

EMOJI_NOTE = "live/positions/表情 emoji.md"
EMOJI_TEXT = (
    "# 表情 😀 笔记\n"
    "\n"
    "中文😀 and 🎉 see [[bm25#Why IDF?]] then 汉字👍🏽 [[向量检索#^hnsw-params]] end [[Nowhere Yet]]\n"
)
EMOJI_LINKS = {
    "[[bm25#Why IDF?]]": [("search/bm25.md", 22, 0, 22, 0)],
    "[[向量检索#^hnsw-params]]": [("search/向量检索.md", 18, 0, 18, 0)],
    "[[Nowhere Yet]]": [],
}


async def test_positions_on_a_line_with_chinese_and_emoji(live: Session) -> None:
    path = EMOJI_NOTE
    live.write(path, EMOJI_TEXT)
    await live.until(lambda: outlinks(live, path))
    for link, expected in EMOJI_LINKS.items():
        for offset in (0, 1, len(link) - 1, len(link)):
            assert await live.definition(path, live.find(path, link, offset)) == expected, link
    # The character before each link is a space: no link there.
    assert await live.definition(path, live.find(path, " [[bm25")) == []
    # In Neovim's UTF-8 the emoji alone is 4 units; a UTF-16 client counts 2: the same column
    # number means different characters, so a wrong codec lands off the link.
    line = EMOJI_TEXT.splitlines()[2]
    start = live.units(line[: line.index("[[bm25")])
    assert start == {"utf-8": 24, "utf-16": 16}[live.encoding]

    listed = sorted(range_numbers(_range(link["range"])) for link in await outlinks(live, path))
    assert listed == sorted(range_numbers(live.span(path, link)) for link in EMOJI_LINKS)

    document_links = await live.client.text_document_document_link_async(
        types.DocumentLinkParams(live.doc(path))
    )
    assert sorted(range_numbers(link.range) for link in document_links or []) == sorted(
        range_numbers(live.span(path, link)) for link in EMOJI_LINKS
    )

    # References from the fixture note find this note's link at its right columns, and back.
    hnsw = live.find("search/hybrid-search.md", "[[向量检索#^hnsw-params]]", 3)
    expected = sorted(
        [
            (
                "search/hybrid-search.md",
                *range_numbers(live.span("search/hybrid-search.md", "[[向量检索#^hnsw-params]]")),
            ),
            (path, *range_numbers(live.span(path, "[[向量检索#^hnsw-params]]"))),
        ]
    )
    assert await live.references("search/hybrid-search.md", hnsw) == expected
    assert await live.references(path, live.find(path, "[[向量检索#^hnsw-params]]", 5)) == expected

    text = await live.hover(path, live.find(path, "[[向量检索#^hnsw-params]]", 2))
    assert text is not None and "efConstruction = 200" in text

    symbols = await live.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(live.doc(path))
    )
    assert symbols is not None
    [heading] = symbols
    assert isinstance(heading, types.DocumentSymbol)
    assert heading.name == "表情 😀 笔记"
    assert range_numbers(heading.selection_range) == range_numbers(
        live.span(path, "# 表情 😀 笔记")
    )

    [item] = (
        await live.client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(live.doc(path), types.Position(0, 0))
        )
        or []
    )
    calls = await live.client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=item)
    )
    assert sorted(range_numbers(r) for call in calls or [] for r in call.from_ranges) == sorted(
        range_numbers(live.span(path, link)) for link in list(EMOJI_LINKS)[:2]
    )


def _range(value: dict[str, dict[str, int]]) -> types.Range:
    start, end = value["start"], value["end"]
    return types.Range(
        types.Position(start["line"], start["character"]),
        types.Position(end["line"], end["character"]),
    )


async def test_positions_in_an_open_buffer_follow_its_text(live: Session) -> None:
    """Columns are read from the editor's text, not the disk's, while a note is open."""
    path = "live/buffer-positions/笔记 notes.md"
    live.write(path, "# 笔记\n\n[[bm25]]\n")
    await live.until(lambda: outlinks(live, path))
    text = "# 笔记\n\n😀😀 多了表情 [[bm25]]\n"
    live.open(path, text)
    await live.until(lambda: live.definition(path, live.find(path, "[[bm25]]", 3, text=text)))
    assert await live.definition(path, live.find(path, "[[bm25]]", 3, text=text)) == [
        ("search/bm25.md", 0, 0, 0, 0)
    ]
    assert await live.definition(path, types.Position(2, 0)) == []  # an emoji there now
    live.close(path)
    await live.until(lambda: live.definition(path, types.Position(2, 0)))


# -- editing ------------------------------------------------------------------------------------


async def test_open_and_incremental_changes_reach_workspace_symbol(live: Session) -> None:
    path = "live/editing/草稿 draft.md"  # a space and Chinese: the URI is percent-encoded
    assert "%20" in live.uri(path)
    before = "# 草稿\n\nnothing yet\n"
    live.open(path, before)
    await live.until(lambda: live.finds("草稿", path))
    assert not (live.vault / path).exists()  # an unsaved buffer is indexed too

    # Replace the placeholder, then (in one notification, applied in order) append after an
    # emoji and rewrite a word behind it: each range counts units of the negotiated encoding.
    first = "中文😀 quokkaphant sighting"
    live.change(path, 2, (types.Range(types.Position(2, 0), types.Position(2, 11)), first))
    end = types.Position(2, live.units(first))
    word = live.units("中文😀 ")
    live.change(
        path,
        3,
        (types.Range(end, end), "🎉 wombatron"),
        (
            types.Range(
                types.Position(2, word), types.Position(2, word + live.units("quokkaphant"))
            ),
            "quokkaphantastic",
        ),
    )
    expected = "# 草稿\n\n中文😀 quokkaphantastic sighting🎉 wombatron"
    assert await live.until(lambda: chunk_text(live, "wombatron", path)) == expected
    assert await live.finds("quokkaphantastic", path)
    [symbol] = [s for s in await live.symbols("wombatron") if s.container_name == path]
    assert symbol.name == "草稿"
    assert symbol.location.uri == live.uri(path)
    assert range_numbers(symbol.location.range)[::2] == (0, 3)

    live.close(path)  # never saved: gone from the index with the buffer
    await live.until(lambda: live.misses("wombatron", path))


async def test_a_burst_of_keystrokes_is_indexed_once_typing_stops(live: Session) -> None:
    path = "live/typing/note.md"
    live.open(path, "# Typing\n\n\n")
    await live.until(lambda: live.finds("Typing", path))
    mark = live.mark()
    word = "pangolinword"
    for version, character in enumerate(word, 2):
        at = types.Position(2, version - 2)
        live.change(path, version, (types.Range(at, at), character))
    assert await live.until(lambda: chunk_text(live, word, path)) == f"# Typing\n\n{word}"
    # Coalesced: far fewer index updates than keystrokes.
    assert live.mark() - mark <= 3
    live.close(path)


async def test_an_open_note_deleted_on_disk_goes_at_once(live: Session) -> None:
    path = "live/open-deleted/note.md"
    live.write(path, "# Doomed\n\nsaiga\n")
    await live.until(lambda: live.finds("saiga", path))
    live.open(path, "# Doomed\n\nsaiga tapir\n")
    await live.until(lambda: live.finds("tapir", path))
    (live.vault / path).unlink()  # by another program, while the tab stays open
    await live.until(lambda: live.misses("tapir", path))
    live.close(path)
    await live.until(lambda: live.misses("saiga", path))


async def test_an_open_note_renamed_on_disk_leaves_no_ghost(live: Session) -> None:
    old, new = "live/open-renamed/主动复习.md", "live/open-renamed/主动回顾.md"
    live.write(old, "# Review\n\nokapiword\n")
    await live.until(lambda: live.finds("okapiword", old))
    live.open(old, "# Review\n\nokapiword\n")
    os.rename(live.vault / old, live.vault / new)  # the tab on the old name stays open
    await live.until(lambda: _only(live, "okapiword", [new]))
    live.change(old, 2, (None, "# Review\n\nokapiword typed on\n"))  # typing in the dead tab
    live.write("live/open-renamed/sentinel.md", "# Sentinel\n\nrenamesentinel\n")
    await live.until(lambda: live.finds("renamesentinel", "live/open-renamed/sentinel.md"))
    assert await live.search_paths("okapiword") == [new]
    live.close(old)


async def _only(session: Session, query: str, paths: list[str]) -> bool:
    return await session.search_paths(query) == paths


async def test_edit_of_a_fixture_note_with_a_chinese_name(live: Session) -> None:
    path = "search/向量检索.md"
    text = live.text(path).replace(
        "HNSW 在多层图上做贪心搜索", "HNSW 在多层图上做贪心搜索 platypusword"
    )
    live.open(path, text)
    await live.until(lambda: live.finds("platypusword", path))
    live.close(path)
    await live.until(lambda: live.misses("platypusword", path))


async def test_open_buffer_wins_over_the_disk_until_closed(live: Session) -> None:
    path = "live/contested/note.md"
    live.write(path, "# Contested\n\ndiskword\n")
    await live.until(lambda: live.finds("diskword", path))
    live.open(path, "# Contested\n\nbufferword [[bm25]]\n")
    await live.until(lambda: live.finds("bufferword", path))
    assert not await live.finds("diskword", path)

    # Another program saves the file while it is open; a second file written after it shows
    # when the watcher's batch has been applied.
    live.write(path, "# Contested\n\nnewdiskword\n")
    live.write("live/contested/sentinel.md", "# Sentinel\n\nsentinelword\n")
    await live.until(lambda: live.finds("sentinelword", "live/contested/sentinel.md"))
    assert await live.finds("bufferword", path)
    assert not await live.finds("newdiskword", path)
    position = types.Position(2, live.units("bufferword [[b"))
    assert await live.definition(path, position) == [("search/bm25.md", 0, 0, 0, 0)]

    live.close(path)
    await live.until(lambda: live.finds("newdiskword", path))
    assert not await live.finds("bufferword", path)
    assert await live.definition(path, position) == []


async def test_a_buffer_in_a_dot_folder_is_not_indexed(live: Session) -> None:
    live.open(".obsidian/scratch.md", "# Scratch\n\nscratchword\n")
    live.open("live/dots/seen.md", "# Seen\n\nseenword\n")
    await live.until(lambda: live.finds("seenword", "live/dots/seen.md"))
    assert await live.search_paths("scratchword") == []
    live.close(".obsidian/scratch.md")
    live.close("live/dots/seen.md")
    await live.until(lambda: live.misses("seenword", "live/dots/seen.md"))
    await still_answers(live)


# -- other programs: the watcher ----------------------------------------------------------------


async def test_a_write_by_another_program_becomes_searchable(live: Session) -> None:
    path = "live/external/finch.md"
    revision = (await live.request("memlsp/status", {}))["vaults"][0]["revision"]
    mark = live.mark()
    live.write(path, "# External\n\nzebrafinch\n")
    await live.until(lambda: live.finds("zebrafinch", path))
    changes = live.events["memlsp/changed"][mark:]
    assert changes and changes[-1].root == live.vault.as_uri()
    assert changes[-1].revision > revision
    assert [c.revision for c in changes] == sorted(c.revision for c in changes)

    live.write(path, "# External\n\nhummingbird\n")
    await live.until(lambda: live.finds("hummingbird", path))
    assert not await live.finds("zebrafinch", path)


async def test_a_new_note_makes_an_unresolved_link_resolve(live: Session) -> None:
    asker = "live/resolving/asker.md"
    live.write(asker, "# Asker\n\nSee [[Brand New Topic]] soon.\n")
    [link] = await live.until(lambda: outlinks(live, asker))
    assert link["status"] == "unresolved"
    position = live.find(asker, "[[Brand New Topic]]", 4)
    assert await live.definition(asker, position) == []
    hover = await live.hover(asker, position)
    assert hover is not None and "does not exist yet" in hover

    live.write("live/resolving/brand new topic.md", "# Brand New Topic\n\nNow it exists.\n")
    target = [("live/resolving/brand new topic.md", 0, 0, 0, 0)]
    assert await live.until(lambda: live.definition(asker, position)) == target
    [link] = await outlinks(live, asker)
    assert link["status"] == "resolved"
    hover = await live.hover(asker, position)
    assert hover is not None and "Now it exists." in hover


async def test_rename_on_disk(live: Session) -> None:
    old, new = "live/renaming/old name.md", "live/renaming/new name.md"
    pointer = "live/renaming/pointer.md"
    live.write(old, "# Old name\n\nmarmosetword\n")
    live.write(pointer, "# Pointer\n\n[[old name]]\n")
    position = live.find(pointer, "[[old name]]", 3)
    assert await live.until(lambda: live.definition(pointer, position)) == [(old, 0, 0, 0, 0)]

    os.rename(live.vault / old, live.vault / new)
    await live.until(lambda: live.finds("marmosetword", new))
    assert await live.search_paths("marmosetword") == [new]
    assert await live.definition(pointer, position) == []  # the link now names nothing
    [link] = await outlinks(live, pointer)
    assert link["status"] == "unresolved"


async def test_delete_on_disk(live: Session) -> None:
    doomed, mourner = "live/deleting/doomed.md", "live/deleting/mourner.md"
    live.write(doomed, "# Doomed\n\ncapybaraword\n")
    live.write(mourner, "# Mourner\n\n[[doomed]]\n")
    position = live.find(mourner, "[[doomed]]", 3)
    assert await live.until(lambda: live.definition(mourner, position)) == [(doomed, 0, 0, 0, 0)]

    (live.vault / doomed).unlink()
    await live.until(lambda: live.misses("capybaraword", doomed))
    assert await live.definition(mourner, position) == []
    [link] = await outlinks(live, mourner)
    assert link["status"] == "unresolved"
    assert await outlinks(live, doomed) == []


async def test_folder_rename_on_disk(live: Session) -> None:
    live.write("live/folders/box/inside.md", "# Inside\n\nocelotword\n")
    await live.until(lambda: live.finds("ocelotword", "live/folders/box/inside.md"))
    os.rename(live.vault / "live/folders/box", live.vault / "live/folders/crate")
    await live.until(lambda: live.finds("ocelotword", "live/folders/crate/inside.md"))
    assert await live.search_paths("ocelotword") == ["live/folders/crate/inside.md"]


# -- bad input ----------------------------------------------------------------------------------


def error_popups(session: Session) -> list[str]:
    return [m.message for m in session.client.messages if m.type == types.MessageType.Error]


async def still_answers(session: Session) -> None:
    assert "search/tantivy.md" in await session.search_paths("tantivy")
    assert (await session.request("memlsp/status", {}))["vaults"][0]["state"] == "ready"
    assert error_popups(session) == []


@pytest.mark.parametrize(
    "uri",
    [
        "file:///nowhere/outside/any/vault.md",
        "untitled:Untitled-1",
        "not a uri at all",
        "file:///",
    ],
)
async def test_unknown_uris_give_empty_answers(live: Session, uri: str) -> None:
    document = types.TextDocumentIdentifier(uri=uri)
    position = types.Position(0, 0)
    client = live.client
    assert not await client.text_document_definition_async(
        types.DefinitionParams(document, position)
    )
    assert not await client.text_document_references_async(
        types.ReferenceParams(
            text_document=document,
            position=position,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert await client.text_document_hover_async(types.HoverParams(document, position)) is None
    assert not await client.text_document_document_link_async(types.DocumentLinkParams(document))
    assert not await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(document)
    )
    assert not await client.text_document_prepare_call_hierarchy_async(
        types.CallHierarchyPrepareParams(document, position)
    )
    assert await live.request("memlsp/links", {"uri": uri}) is None
    await still_answers(live)


async def test_a_note_neither_on_disk_nor_open(live: Session) -> None:
    path = "live/ghost/never.md"
    position = types.Position(0, 0)
    assert await live.definition(path, position) == []
    assert await live.references(path, position, True) == []
    assert await live.hover(path, position) is None
    links = await live.request("memlsp/links", {"uri": live.uri(path)})
    assert links is None or links["outlinks"] == links["inlinks"] == []
    await still_answers(live)


async def test_positions_past_the_end(live: Session) -> None:
    path = "search/hybrid-search.md"
    lines = live.text(path).splitlines()
    # Past the end of a line means its end (the LSP says so): here the end of a link.
    link = "![Search diagram](../assets/search%20diagram.png)"
    number = lines.index(link)
    past_line = types.Position(number, live.units(link) + 500)
    assert await live.definition(path, past_line) == [("assets/search diagram.png", 0, 0, 0, 0)]
    prose = lines.index("## Fusion") + 4
    assert await live.definition(path, types.Position(prose, 10_000)) == []
    assert await live.hover(path, types.Position(prose, 10_000)) is None
    # Past the end of the file: nothing is there.
    for line in (len(lines) + 1, 10_000, 2**31 - 1):
        for character in (0, 3, 2**31 - 1):
            far = types.Position(line, character)
            assert await live.definition(path, far) == []
            assert await live.hover(path, far) is None
            assert await live.references(path, far, True) == []
            assert not await live.client.text_document_prepare_call_hierarchy_async(
                types.CallHierarchyPrepareParams(live.doc(path), far)
            )
    await still_answers(live)


async def test_did_change_for_a_document_never_opened(live: Session) -> None:
    path = "live/unopened/note.md"
    live.write(path, "# Unopened\n\nkestrelword\n")
    await live.until(lambda: live.finds("kestrelword", path))
    logged = len(live.client.log_messages)
    start = types.Position(2, 0)
    live.change(path, 2, (types.Range(start, start), "sparrowword "))
    live.change("live/unopened/not-on-disk.md", 2, (None, "# Nowhere\n\nsparrowword\n"))
    await still_answers(live)
    assert await live.search_paths("sparrowword") == []
    assert await live.finds("kestrelword", path)
    said = [m.message for m in live.client.log_messages[logged:]]
    assert sum("not open" in m for m in said) == 2, said


async def test_out_of_order_versions_are_ignored(live: Session) -> None:
    path = "live/versions/ordered.md"
    live.open(path, "# Ordered\n\nfreshfive\n", version=5)
    await live.until(lambda: live.finds("freshfive", path))
    logged = len(live.client.log_messages)
    live.change(path, 3, (None, "# Ordered\n\nstalethree\n"))  # older than what the editor has
    live.change(path, 5, (None, "# Ordered\n\nstalefive\n"))  # not newer either
    end = types.Position(2, live.units("freshfive"))
    live.change(path, 6, (types.Range(end, end), " freshsix"))  # an edit of version 5's text
    expected = "# Ordered\n\nfreshfive freshsix"
    assert await live.until(lambda: chunk_text(live, "freshsix", path)) == expected
    assert await live.search_paths("stalethree") == await live.search_paths("stalefive") == []
    said = [m.message for m in live.client.log_messages[logged:]]
    assert sum("not newer" in m for m in said) == 2, said
    live.close(path)
    await still_answers(live)


async def test_a_five_megabyte_single_line_note(live: Session) -> None:
    path = "live/huge/one line.md"
    line = "lorem ipsum dolor sit amet " * 190_000 + "needleword"
    text = "# Huge\n\n" + line + "\n"
    assert len(text.encode()) > 5_000_000
    live.open(path, text)
    # Parsing it takes seconds; meanwhile every request is answered from what is indexed.
    loop = asyncio.get_running_loop()
    slowest = 0.0
    opened = loop.time()
    while True:
        seen, started = live.mark(), loop.time()
        status = await live.request("memlsp/status", {})  # answered from the snapshot
        slowest = max(slowest, loop.time() - started)
        # (a rescan after an earlier test's folder move may still be going on)
        assert status["vaults"][0]["state"] in ("ready", "indexing")
        if await live.finds("needleword", path):
            break
        with contextlib.suppress(TimeoutError):  # probe again at least every 0.2 s
            await live.wait_for(CHANGED, seen + 1, timeout=0.2)
        assert loop.time() - opened < 60
    # Had the parse held the lock, one request would have waited about as long as it took.
    took = loop.time() - opened
    assert took > 1.0 and slowest < max(1.0, took / 2), (slowest, took)
    await still_answers(live)
    far = types.Position(2, live.units(line) - 2)
    assert await live.definition(path, far) == []
    live.close(path)
    await live.until(lambda: live.misses("needleword", path), timeout=60)
    await still_answers(live)
