"""Editor features over the fixture vault, through a real client: workspace and document symbols,
definition on every link form, references, hover, document links and the call hierarchy.

Every test here only reads, so each client shares one server (the `shared` fixture). Columns are
computed from the line text in the encoding the server negotiated: UTF-16 for VS Code, UTF-8 for
Neovim 0.11.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.conftest import SERVER, Session, finish, range_numbers, start_session

pytestmark = [
    pytest.mark.asyncio(loop_scope="package"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]


async def test_negotiated_position_encoding(shared: Session) -> None:
    assert shared.result is not None
    expected = {"vscode": "utf-16", "neovim": "utf-8"}[shared.name]
    assert shared.encoding == expected
    assert shared.result.capabilities.position_encoding in (expected, None)
    assert shared.units("中😀a") == {"utf-16": 4, "utf-8": 8}[expected]


# -- workspace/symbol ---------------------------------------------------------------------------


async def test_workspace_symbol_is_a_search_with_title_heading_names(shared: Session) -> None:
    symbols = await shared.symbols("Reciprocal Rank Fusion")
    first = symbols[0]
    assert first.name == "Hybrid search 混合检索 › Reciprocal Rank Fusion"
    assert first.container_name == "search/hybrid-search.md"
    assert first.kind == types.SymbolKind.String
    assert first.location.uri == shared.uri("search/hybrid-search.md")
    # The chunk's lines: its heading line through the line before the next heading.
    found = await shared.request("memlsp/search", {"query": "Reciprocal Rank Fusion", "limit": 1})
    hit = found["results"][0]
    assert (hit["path"], hit["heading"]) == ("search/hybrid-search.md", "Reciprocal Rank Fusion")
    start, end = hit["start_line"] - 1, hit["end_line"]
    assert (first.location.range.start.line, first.location.range.end.line) == (start, end)
    assert first.location.range.start.character == first.location.range.end.character == 0
    lines = shared.text("search/hybrid-search.md").splitlines()
    assert lines[start] == "### Reciprocal Rank Fusion"
    assert lines[end].startswith("### Weighted sum") or not lines[end].strip()


async def test_workspace_symbol_names_a_note_without_heading_by_its_title(
    shared: Session,
) -> None:
    symbols = await shared.symbols("tantivy")
    assert symbols[0].container_name == "search/tantivy.md"
    assert symbols[0].name == "Tantivy"
    assert symbols[0].kind == types.SymbolKind.File
    assert all(" › " not in s.name or s.name.startswith(s.name.split(" › ")[0]) for s in symbols)


@pytest.mark.parametrize(
    ("query", "path", "name"),
    [
        ("混合检索", "search/hybrid-search.md", "Hybrid search 混合检索 › Hybrid search"),
        ("麻婆豆腐", "cooking/recipes/mapo-tofu.md", "麻婆豆腐 Mapo tofu › 麻婆豆腐"),
        ("倒排索引", "search/inverted-index.md", "Inverted index › 倒排索引"),
    ],
)
async def test_workspace_symbol_with_a_chinese_query(
    shared: Session, query: str, path: str, name: str
) -> None:
    symbols = await shared.symbols(query)
    assert (symbols[0].container_name, symbols[0].name) == (path, name)
    # Chinese inside a longer run is found too: 向量 is part of 向量检索.
    assert "search/向量检索.md" in await shared.search_paths("向量")


async def test_workspace_symbol_without_hits_and_with_query_syntax(shared: Session) -> None:
    assert await shared.symbols("zqxjkvw") == []
    # Characters a query parser would choke on are plain text to a user.
    for query in ("foo:bar", '"unclosed', "(bm25", "k1 & b", "*", "[[bm25]]"):
        assert isinstance(await shared.symbols(query), list)
    assert "search/bm25.md" in await shared.search_paths("[[bm25]]")


async def test_empty_workspace_symbol_query_lists_the_most_linked_notes(shared: Session) -> None:
    symbols = await shared.symbols("")
    # Distinct linking notes: hybrid-search 8, 向量检索 8 (ties by path), then bm25 6 and 成都美食 6.
    assert [s.container_name for s in symbols[:4]] == [
        "search/hybrid-search.md",
        "search/向量检索.md",
        "search/bm25.md",
        "travel/成都美食.md",
    ]
    assert [s.name for s in symbols[:4]] == [
        "Hybrid search 混合检索",
        "向量检索",
        "BM25",
        "成都美食",
    ]
    for symbol in symbols:
        assert symbol.location.uri == shared.uri(symbol.container_name)
        assert (symbol.location.range.start.line, symbol.location.range.end.line) == (0, 0)
    assert len(symbols) == len({s.container_name for s in symbols})  # one per note
    # A whitespace-only query is an empty one.
    assert [s.container_name for s in await shared.symbols("   ")] == [
        s.container_name for s in symbols
    ]


# -- textDocument/definition --------------------------------------------------------------------

FILE = 0  # a link to a whole note lands on the file's first line

DEFINITIONS = [
    # (note, the link as written, [(target, line)])
    ("index.md", "[[bm25]]", [("search/bm25.md", FILE)]),
    ("index.md", "[[hybrid-search|混合检索]]", [("search/hybrid-search.md", FILE)]),
    ("index.md", "[[search/tantivy]]", [("search/tantivy.md", FILE)]),
    ("index.md", "[[inverted-index.md]]", [("search/inverted-index.md", FILE)]),
    ("index.md", "[[向量检索#向量检索：ANN 算法]]", [("search/向量检索.md", 11)]),
    (
        "index.md",
        "[[hybrid-search#Fusion#Reciprocal Rank Fusion]]",
        [("search/hybrid-search.md", 12)],
    ),
    ("index.md", "[[bm25#^k1-default]]", [("search/bm25.md", 13)]),
    ("index.md", "[[#Notes on notes]]", [("index.md", 31)]),
    ("index.md", "[[travel/ideas]]", [("travel/ideas.md", FILE)]),
    ("index.md", "![[retrieval-pipeline.png]]", [("assets/retrieval-pipeline.png", FILE)]),
    ("index.md", "![[reading-list]]", [("inbox/reading-list.md", FILE)]),
    (
        "index.md",
        "[Query understanding](search/query%20understanding.md)",
        [("search/query understanding.md", FILE)],
    ),
    (
        "index.md",
        "[查询理解：拼写纠错](<search/query understanding.md#Spelling correction>)",
        [("search/query understanding.md", 7)],
    ),
    ("index.md", "[[ML]]", [("ml/机器学习.md", FILE)]),
    ("index.md", "[[Chengdu food]]", [("travel/成都美食.md", FILE)]),
    # Ambiguous: the one note it opens (its diagnostic names the other).
    ("index.md", "[[ideas]]", [("travel/ideas.md", FILE)]),
    ("index.md", "[old index](../outside.md)", []),  # outside the vault
    ("pkm/zettelkasten.md", "[[#^atomic]]", [("pkm/zettelkasten.md", 10)]),
    ("pkm/zettelkasten.md", "[[#Permanent notes]]", [("pkm/zettelkasten.md", 19)]),
    ("search/hybrid-search.md", "[BM25 IDF note](bm25.md#why-idf)", [("search/bm25.md", 22)]),
    (
        "search/hybrid-search.md",
        "![Search diagram](../assets/search%20diagram.png)",
        [("assets/search diagram.png", FILE)],
    ),
    ("search/hybrid-search.md", "[[向量检索#^hnsw-params]]", [("search/向量检索.md", 18)]),
    ("search/inverted-index.md", "[Tantivy](./tantivy.md)", [("search/tantivy.md", FILE)]),
    ("inbox/reading-list.md", "[[INVERTED-INDEX]]", [("search/inverted-index.md", FILE)]),
    ("cooking/weeknight-dinners.md", "[[mapo-tofu#步骤]]", [("cooking/recipes/mapo-tofu.md", 16)]),
    ("ml/embeddings.md", "[[机器学习#表示学习]]", [("ml/机器学习.md", 13)]),
    ("daily/2024-03-01.md", "[[Learning to Rank]]", []),  # unresolved
    ("daily/2024-03-01.md", "[[Search Team Roadmap#Q2]]", []),
    ("search/tantivy.md", "[[rust-snippet-link]]", []),  # inside a code fence: not a link
]


@pytest.mark.parametrize(("path", "link", "targets"), DEFINITIONS, ids=[d[1] for d in DEFINITIONS])
async def test_definition_on_every_link_form(
    shared: Session, path: str, link: str, targets: list[tuple[str, int]]
) -> None:
    expected = [(target, line, 0, line, 0) for target, line in targets]
    # On the first character, inside, and just after the closing bracket: the same answer.
    for offset in (0, 2, len(link) // 2, len(link)):
        assert await shared.definition(path, shared.find(path, link, offset)) == expected, offset


async def test_definition_lands_on_lines_that_hold_the_anchor(shared: Session) -> None:
    places = await shared.definition("index.md", shared.find("index.md", "[[bm25#^k1-default]]"))
    assert shared.text("search/bm25.md").splitlines()[places[0][1]].endswith("^k1-default")
    places = await shared.definition("index.md", shared.find("index.md", "[[向量检索#向量", 3))
    assert shared.text("search/向量检索.md").splitlines()[places[0][1]] == "## 向量检索：ANN 算法"


async def test_definition_of_a_shared_alias_gives_every_note(shared: Session) -> None:
    places = await shared.definition("index.md", shared.find("index.md", "[[Second Brain]]", 4))
    assert sorted(places) == [
        ("pkm/building-a-second-brain.md", 0, 0, 0, 0),
        ("pkm/知识管理.md", 0, 0, 0, 0),
    ]


async def test_definition_off_a_link_is_empty(shared: Session) -> None:
    # Just before a link (a space), on plain text, on a heading, on frontmatter.
    assert await shared.definition("index.md", shared.find("index.md", " [[bm25]]")) == []
    assert await shared.definition("index.md", shared.find("index.md", "Everything starts")) == []
    assert await shared.definition("index.md", types.Position(11, 3)) == []
    assert await shared.definition("index.md", types.Position(1, 2)) == []


# -- textDocument/references --------------------------------------------------------------------

BM25_LINKS = [
    ("daily/2024-03-01.md", "[[bm25]]"),
    ("index.md", "[[bm25]]"),
    ("index.md", "[[bm25#^k1-default]]"),
    ("search/hybrid-search.md", "[[bm25]]"),
    ("search/hybrid-search.md", "[[bm25#Scoring: k1 & b (saturation)]]"),
    ("search/hybrid-search.md", "[BM25 IDF note](bm25.md#why-idf)"),
    ("search/inverted-index.md", "[[bm25]]"),
    ("search/tantivy.md", "[[bm25]]"),
    ("search/向量检索.md", "[[bm25]]"),
]

HYBRID_LINKS = [
    ("daily/2024-03-15.md", "[[hybrid-search]]"),
    ("inbox/broken-config.md", "[[hybrid-search]]"),
    ("index.md", "[[hybrid-search|混合检索]]"),
    ("index.md", "[[hybrid-search#Fusion#Reciprocal Rank Fusion]]"),
    ("ml/embeddings.md", "[[hybrid-search]]"),
    ("pkm/知识管理.md", "[[hybrid-search|混合检索]]"),
    ("search/bm25.md", "[[hybrid-search#Fusion]]"),
    ("search/tantivy.md", "[[hybrid-search#实践经验]]"),
    ("search/向量检索.md", "[[hybrid-search]]"),
]


def spans(session: Session, links: list[tuple[str, str]]) -> list[tuple[str, int, int, int, int]]:
    return sorted(
        (path, *numbers)
        for path, link in links
        for numbers in [range_numbers(session.span(path, link))]
    )


async def test_references_on_a_link_find_every_link_to_its_target(shared: Session) -> None:
    position = shared.find("index.md", "[[bm25]]", 3)
    expected = spans(shared, BM25_LINKS)
    assert await shared.references("index.md", position, False) == expected
    with_declaration = await shared.references("index.md", position, True)
    assert with_declaration == sorted([*expected, ("search/bm25.md", 0, 0, 0, 0)])


async def test_references_on_an_anchored_link_find_links_to_that_anchor(shared: Session) -> None:
    position = shared.find("index.md", "[[bm25#^k1-default]]", 8)
    expected = spans(shared, [("index.md", "[[bm25#^k1-default]]")])
    assert await shared.references("index.md", position, False) == expected
    assert await shared.references("index.md", position, True) == sorted(
        [*expected, ("search/bm25.md", 13, 0, 13, 0)]
    )
    # The same heading written differently (a slug in a markdown link) is the same anchor.
    position = shared.find("search/hybrid-search.md", "(bm25.md#why-idf)", 3)
    expected = spans(shared, [("search/hybrid-search.md", "[BM25 IDF note](bm25.md#why-idf)")])
    assert await shared.references("search/hybrid-search.md", position, False) == expected


async def test_references_on_a_heading_find_the_links_to_it(shared: Session) -> None:
    path = "search/hybrid-search.md"
    fusion = shared.find(path, "## Fusion", 4)
    expected = spans(shared, [("search/bm25.md", "[[hybrid-search#Fusion]]")])
    assert await shared.references(path, fusion, False) == expected
    assert await shared.references(path, fusion, True) == sorted([*expected, (path, 10, 0, 10, 0)])
    nested = shared.find(path, "### Reciprocal Rank Fusion", 0)
    expected = spans(shared, [("index.md", "[[hybrid-search#Fusion#Reciprocal Rank Fusion]]")])
    assert await shared.references(path, nested, False) == expected
    # A block id's line: the links to the block.
    block = shared.find("search/bm25.md", "^k1-default")
    expected = spans(shared, [("index.md", "[[bm25#^k1-default]]")])
    assert await shared.references("search/bm25.md", block, False) == expected


async def test_references_elsewhere_find_all_inlinks_of_the_note(shared: Session) -> None:
    path = "search/hybrid-search.md"
    plain_text = shared.find(path, "Normalise both scores", 3)
    expected = spans(shared, HYBRID_LINKS)
    assert await shared.references(path, plain_text, False) == expected
    assert await shared.references(path, plain_text, True) == sorted(
        [*expected, (path, 0, 0, 0, 0)]
    )


async def test_references_of_an_unresolved_link_is_empty(shared: Session) -> None:
    position = shared.find("daily/2024-03-01.md", "[[Learning to Rank]]", 4)
    assert await shared.references("daily/2024-03-01.md", position, False) == []


# -- textDocument/hover -------------------------------------------------------------------------

MARKDOWN_LINK = re.compile(r"\[((?:\\.|[^\]\\])+)\]\((<[^>]+>|[^)\s]+)\)")


def links_in(session: Session, markdown: str) -> list[tuple[str, str]]:
    """(text, vault-relative path#line) of each Markdown link; every one must open a vault file."""
    found = []
    for text, target in MARKDOWN_LINK.findall(markdown):
        uri = target.strip("<>")
        path, _, line = session.relative(uri.split("#")[0]), None, uri.partition("#")[2]
        assert (session.vault / path).is_file(), uri
        found.append((text.replace("\\", ""), f"{path}#{line}" if line else path))
    return found


def section(markdown: str, header: str) -> list[str]:
    """The list items under a bold header like `**outlinks (4)**`."""
    after = markdown.split(header, 1)[1]
    items = []
    for line in after.splitlines()[1:]:
        if line.startswith("**"):
            break
        if line.startswith("- "):
            items.append(line)
    return items


async def test_hover_on_a_link_previews_the_note_and_its_neighbours(shared: Session) -> None:
    text = await shared.hover("index.md", shared.find("index.md", "[[bm25]]", 3))
    assert text is not None
    lines = text.splitlines()
    assert links_in(shared, lines[0]) == [("BM25", "search/bm25.md")]
    assert lines[0].startswith("### ")
    assert "Term frequency saturates" in text  # the note's text, headings made bold
    assert text.count("BM25 is the ranking function") == 1  # no description repeating it
    assert "**Scoring: k1 & b (saturation)**" in text
    assert "tags:" not in text and "---" not in text  # no raw frontmatter
    assert "^k1-default" not in text.split("**outlinks")[0]  # block markers are not shown
    outlinks = section(text, "**outlinks (4)**")
    assert [links_in(shared, item)[0][1] for item in outlinks] == [
        "search/tantivy.md",
        "search/inverted-index.md",
        "search/hybrid-search.md",
        "search/向量检索.md",
    ]
    assert "`#Fusion`" in outlinks[2]  # the anchor the link goes to
    inlinks = section(text, "**inlinks (6)**")
    assert sorted(links_in(shared, item)[0][1] for item in inlinks) == [
        "daily/2024-03-01.md",
        "index.md",
        "search/hybrid-search.md",
        "search/inverted-index.md",
        "search/tantivy.md",
        "search/向量检索.md",
    ]
    home = next(item for item in inlinks if links_in(shared, item)[0][1] == "index.md")
    assert "`#^k1-default`" in home
    assert "Entry point of my notes" in home  # the neighbour's description


async def test_hover_on_a_heading_link_shows_that_section(shared: Session) -> None:
    link = "[[hybrid-search#Fusion#Reciprocal Rank Fusion]]"
    text = await shared.hover("index.md", shared.find("index.md", link, 5))
    assert text is not None
    title = text.splitlines()[0]
    assert links_in(shared, title) == [
        ("Hybrid search 混合检索 › Fusion › Reciprocal Rank Fusion", "search/hybrid-search.md#L13")
    ]
    assert "Each list contributes" in text
    assert "Normalise both scores" not in text  # the next section is not shown
    assert "aliases" not in text
    assert "**outlinks (3)**" in text  # bm25, 向量检索, the diagram
    assert "**inlinks (8)**" in text


async def test_hover_shows_a_frontmatter_description(shared: Session) -> None:
    text = await shared.hover(
        "pkm/知识管理.md", shared.find("pkm/知识管理.md", "[[index|首页]]", 3)
    )
    assert text is not None
    assert links_in(shared, text.splitlines()[0]) == [("Home", "index.md")]
    assert "Entry point of my notes on search engines" in text
    assert "description:" not in text and "title: Home" not in text


async def test_hover_on_an_unresolved_and_an_ambiguous_link(shared: Session) -> None:
    path = "daily/2024-03-01.md"
    text = await shared.hover(path, shared.find(path, "[[Learning to Rank]]", 4))
    assert text is not None and "does not exist yet" in text
    text = await shared.hover("index.md", shared.find("index.md", "[[ideas]]", 4))
    assert text is not None and text.startswith("Ambiguous")
    assert ("cooking/ideas.md", "cooking/ideas.md") in links_in(shared, text.splitlines()[0])


async def test_hover_on_an_embedded_attachment(shared: Session) -> None:
    position = shared.find("index.md", "![[retrieval-pipeline.png]]", 5)
    text = await shared.hover("index.md", position)
    assert text is not None
    assert links_in(shared, text.splitlines()[0]) == [
        ("retrieval-pipeline.png", "assets/retrieval-pipeline.png")
    ]
    assert "Attachment `assets/retrieval-pipeline.png`" in text


async def test_hover_on_a_tag_lists_the_notes_carrying_it(shared: Session) -> None:
    path = "daily/2024-03-01.md"
    text = await shared.hover(path, shared.find(path, "#daily", 2))
    assert text is not None
    assert text.startswith("**#daily** is on 3 notes")
    assert sorted(p for _, p in links_in(shared, text)) == [
        "daily/2024-03-01.md#L3",
        "daily/2024-03-02.md#L3",
        "daily/2024-03-15.md#L3",  # a frontmatter tag: where it is written
    ]
    # A nested tag counts for its parent.
    text = await shared.hover(
        "travel/成都美食.md", shared.find("travel/成都美食.md", "#美食/川菜", 3)
    )
    assert text is not None and text.startswith("**#美食/川菜** is on 1 note")


async def test_no_hover_on_plain_text(shared: Session) -> None:
    assert await shared.hover("index.md", shared.find("index.md", "Everything starts", 3)) is None
    assert await shared.hover("index.md", shared.find("index.md", "## This week")) is None
    # A tag-like word in a code fence is no tag.
    path = "search/tantivy.md"
    assert await shared.hover(path, shared.find(path, "#rust-snippet-tag", 2)) is None


async def test_a_hover_on_a_hostile_note_runs_nothing(tmp_path: Path) -> None:
    """A note's HTML and `command:` links reach the client as text (reliability finding S6)."""
    attack = "<script>alert(1)</script> [run](command:workbench.action.terminal.new)"
    files = {
        "hostile.md": f"---\ndescription: '{attack}'\n---\n# Hostile\n\nBody words {attack}\n",
        "asks.md": "See [[hostile]].\n",
    }
    client = await SERVER.start()
    assert isinstance(client, LanguageClient)  # the default client factory makes one
    try:
        session = await start_session(client, tmp_path, "vscode", files=files)
        text = await session.hover("asks.md", session.find("asks.md", "[[hostile]]", 3))
    finally:
        await finish(client)
        await client.stop()
    assert text is not None and "Body words" in text
    unescaped = r"(?<!\\)(?:\\\\)*"  # preceded by no backslash, or by escaped ones only
    assert re.search(unescaped + "<script", text, re.IGNORECASE) is None, text
    assert re.search(unescaped + r"(?:\]\(|<)\s*command:", text, re.IGNORECASE) is None, text
    assert links_in(session, text)  # every link there is: the title's, the inlink's, into the vault


# -- textDocument/documentLink ------------------------------------------------------------------


async def test_document_links_cover_every_link_with_its_target(shared: Session) -> None:
    links = await shared.client.text_document_document_link_async(
        types.DocumentLinkParams(shared.doc("index.md"))
    )
    assert links is not None
    listed = await shared.request("memlsp/links", {"uri": shared.uri("index.md")})
    assert len(links) == len(listed["outlinks"]) == 25
    by_range = {range_numbers(link.range): link for link in links}
    expected = {
        "[[bm25]]": "search/bm25.md",
        "[[bm25#^k1-default]]": "search/bm25.md#L14",
        "[[向量检索#向量检索：ANN 算法]]": "search/向量检索.md#L12",
        "[[#Notes on notes]]": "index.md#L32",
        "![[retrieval-pipeline.png]]": "assets/retrieval-pipeline.png",
        "[Query understanding](search/query%20understanding.md)": "search/query understanding.md",
        "[[ideas]]": "travel/ideas.md",
    }
    for written, target in expected.items():
        link = by_range[range_numbers(shared.span("index.md", written))]
        assert link.target is not None
        uri, _, line = link.target.partition("#")
        assert (shared.relative(uri) + (f"#{line}" if line else "")) == target, written
    outside = by_range[range_numbers(shared.span("index.md", "[old index](../outside.md)"))]
    assert outside.target is None
    document = shared.client.capabilities and shared.client.capabilities.text_document
    if document and document.document_link and document.document_link.tooltip_support:
        assert outside.tooltip == "../outside.md: not found"
    else:
        assert outside.tooltip is None  # the client cannot show one


# -- textDocument/documentSymbol ----------------------------------------------------------------


def tree(symbols: Sequence[types.DocumentSymbol] | None) -> list[object]:
    return [(s.name, tree(s.children)) if s.children else s.name for s in symbols or []]


async def document_symbols(session: Session, path: str) -> list[types.DocumentSymbol]:
    found = await session.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(session.doc(path))
    )
    assert found is not None
    assert all(isinstance(symbol, types.DocumentSymbol) for symbol in found)
    return list(found)  # type: ignore[arg-type]


def check_nesting(symbols: list[types.DocumentSymbol], outer: types.Range | None = None) -> None:
    for symbol in symbols:
        inner = symbol.range
        assert range_numbers(symbol.selection_range)[:2] >= range_numbers(inner)[:2]
        if outer is not None:
            assert range_numbers(outer)[:2] <= range_numbers(inner)[:2]
            assert (outer.end.line, outer.end.character) >= (inner.end.line, inner.end.character)
        check_nesting(list(symbol.children or []), inner)


async def test_document_symbols_are_the_nested_heading_outline(shared: Session) -> None:
    path = "search/向量检索.md"
    symbols = await document_symbols(shared, path)
    assert tree(symbols) == [
        (
            "向量检索",
            [("向量检索：ANN 算法", ["HNSW（分层可导航小世界图）", "IVF 与 PQ"]), "与 BM25 的对比"],
        )
    ]
    check_nesting(symbols)
    top = symbols[0]
    assert range_numbers(top.selection_range) == range_numbers(shared.span(path, "# 向量检索"))
    assert top.range.start.line == 6
    assert top.range.end.line >= 30  # to the end of the note
    ann = top.children[0]  # type: ignore[index]
    assert range_numbers(ann.selection_range) == range_numbers(
        shared.span(path, "## 向量检索：ANN 算法")
    )
    hnsw = ann.children[0]  # type: ignore[index]
    assert hnsw.range.start.line == 15 and hnsw.range.end.line in (18, 19)


async def test_document_symbols_of_setext_headings(shared: Session) -> None:
    symbols = await document_symbols(shared, "search/inverted-index.md")
    assert tree(symbols) == [
        ("Inverted index", ["Posting lists", "Segments and merging", "倒排索引"])
    ]
    check_nesting(symbols)


# -- call hierarchy -----------------------------------------------------------------------------


async def prepare(
    session: Session, path: str, position: types.Position
) -> list[types.CallHierarchyItem]:
    found = await session.client.text_document_prepare_call_hierarchy_async(
        types.CallHierarchyPrepareParams(session.doc(path), position)
    )
    return list(found or [])


async def test_call_hierarchy_over_the_link_graph(shared: Session) -> None:
    # Off a link: the note itself; on a link: the note it goes to.
    [home] = await prepare(shared, "index.md", shared.find("index.md", "Everything starts"))
    assert (home.name, shared.relative(home.uri)) == ("Home", "index.md")
    [bm25] = await prepare(shared, "index.md", shared.find("index.md", "[[bm25]]", 3))
    assert (bm25.name, shared.relative(bm25.uri), bm25.detail) == (
        "BM25",
        "search/bm25.md",
        "search/bm25.md",
    )

    outgoing = await shared.client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=bm25)
    )
    assert outgoing is not None
    assert [(shared.relative(c.to.uri), c.to.name) for c in outgoing] == [
        ("search/tantivy.md", "Tantivy"),
        ("search/inverted-index.md", "Inverted index"),
        ("search/hybrid-search.md", "Hybrid search 混合检索"),
        ("search/向量检索.md", "向量检索"),
    ]
    hybrid = outgoing[2]
    assert [range_numbers(r) for r in hybrid.from_ranges] == [
        range_numbers(shared.span("search/bm25.md", "[[hybrid-search#Fusion]]"))
    ]

    incoming = await shared.client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=bm25)
    )
    assert incoming is not None
    calls = {
        shared.relative(c.from_.uri): sorted(map(range_numbers, c.from_ranges)) for c in incoming
    }
    expected: dict[str, list[tuple[int, int, int, int]]] = {}
    for path, link in BM25_LINKS:
        expected.setdefault(path, []).append(range_numbers(shared.span(path, link)))
    assert calls == {path: sorted(ranges) for path, ranges in expected.items()}


async def test_call_hierarchy_leaves_out_links_to_the_note_itself(shared: Session) -> None:
    [item] = await prepare(shared, "pkm/zettelkasten.md", types.Position(6, 0))
    outgoing = await shared.client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=item)
    )
    assert [shared.relative(c.to.uri) for c in outgoing or []] == ["pkm/知识管理.md"]
