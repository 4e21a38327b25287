"""Editor features as a library: what is under the cursor, definition, references, outline, call
hierarchy and the most-linked notes, over a copy of the fixture vault and small hand-built vaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.engine.engine import Engine
from memlsp.model import Span
from memlsp.navigation.calls import incoming, outgoing
from memlsp.navigation.definition import definition
from memlsp.navigation.outline import Section, document_links, outline
from memlsp.navigation.places import Place, heading_at, link_at, tag_at
from memlsp.navigation.references import references
from memlsp.navigation.symbols import most_linked
from tests.helpers.engine import cursor, indexed_engine, view_of


def line_of(engine: Engine, path: str, needle: str) -> int:
    return cursor(engine, path, needle)[0]


def start(path: str, line: int = 0) -> Place:
    return Place(path, Span(line, 0, 0))


def define(engine: Engine, path: str, needle: str) -> list[Place]:
    return definition(view_of(engine), path, *cursor(engine, path, needle))


# -- under the cursor ----------------------------------------------------------------------


def test_a_link_counts_from_its_first_to_just_after_its_last_character(
    fixture_engine: Engine,
) -> None:
    line, column = cursor(fixture_engine, "index.md", "[[bm25]]", into=0)
    for inside in (column, column + 4, column + 8):
        found = link_at(view_of(fixture_engine), "index.md", line, inside)
        assert found is not None and found.link.target == "bm25"
    assert link_at(view_of(fixture_engine), "index.md", line, column - 1) is None
    assert link_at(view_of(fixture_engine), "index.md", line, column + 9) is None
    assert link_at(view_of(fixture_engine), "index.md", line + 1, column) is None
    assert link_at(view_of(fixture_engine), "missing.md", line, column) is None


def test_between_two_touching_links_the_one_the_cursor_is_inside_wins(tmp_path: Path) -> None:
    engine = indexed_engine(tmp_path, {"a.md": "[[b]][[c]]\n", "b.md": "", "c.md": ""})
    found = link_at(view_of(engine), "a.md", 0, 5)
    assert found is not None and found.link.target == "c"
    found = link_at(view_of(engine), "a.md", 0, 4)
    assert found is not None and found.link.target == "b"


def test_heading_and_tag_under_the_cursor(fixture_engine: Engine) -> None:
    line = line_of(fixture_engine, "search/bm25.md", "## Why IDF?")
    heading = heading_at(view_of(fixture_engine), "search/bm25.md", line)
    assert heading is not None and heading.text == "Why IDF?"
    assert heading_at(view_of(fixture_engine), "search/bm25.md", line + 1) is None
    line, column = cursor(fixture_engine, "search/bm25.md", "#search/ranking", into=3)
    tag = tag_at(view_of(fixture_engine), "search/bm25.md", line, column)
    assert tag is not None and tag.name == "search/ranking"
    assert tag_at(view_of(fixture_engine), "search/bm25.md", line, 0) is None


# -- definition ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("needle", "target"),
    [
        ("[[bm25]]", "search/bm25.md"),
        ("[[hybrid-search|混合检索]]", "search/hybrid-search.md"),
        ("[[search/tantivy]]", "search/tantivy.md"),
        ("[[inverted-index.md]]", "search/inverted-index.md"),
        ("[[travel/ideas]]", "travel/ideas.md"),
        ("[[ML]]", "ml/机器学习.md"),
        ("[[Chengdu food]]", "travel/成都美食.md"),
        ("[Query understanding](search/query%20understanding.md)", "search/query understanding.md"),
        ("![[reading-list]]", "inbox/reading-list.md"),
        ("![[retrieval-pipeline.png]]", "assets/retrieval-pipeline.png"),
    ],
)
def test_definition_of_a_plain_link_is_the_file_start(
    fixture_engine: Engine, needle: str, target: str
) -> None:
    assert define(fixture_engine, "index.md", needle) == [start(target)]


@pytest.mark.parametrize(
    ("source", "needle", "target", "line_text"),
    [
        ("index.md", "[[向量检索#向量检索：ANN", "search/向量检索.md", "## 向量检索：ANN 算法"),
        ("index.md", "[[hybrid-search#Fusion#", "search/hybrid-search.md", "### Reciprocal Rank"),
        ("index.md", "[[bm25#^k1-default]]", "search/bm25.md", "^k1-default"),
        ("index.md", "[[#Notes on notes]]", "index.md", "## Notes on notes"),
        ("index.md", "<search/query understanding.md#Spelling", "search/query understanding.md",
         "## Spelling correction"),
        ("search/hybrid-search.md", "(bm25.md#why-idf)", "search/bm25.md", "## Why IDF?"),
        ("search/hybrid-search.md", "[[bm25#Scoring", "search/bm25.md", "## Scoring: k1"),
        ("search/hybrid-search.md", "[[向量检索#^hnsw-params]]", "search/向量检索.md",
         "^hnsw-params"),
        ("pkm/zettelkasten.md", "[[#^atomic]]", "pkm/zettelkasten.md", "^atomic"),
        ("daily/2024-03-02.md", "[[mapo-tofu#^doubanjiang]]", "cooking/recipes/mapo-tofu.md",
         "^doubanjiang"),
    ],
)  # fmt: skip
def test_definition_of_an_anchored_link_is_the_heading_or_block_line(
    fixture_engine: Engine, source: str, needle: str, target: str, line_text: str
) -> None:
    expected = start(target, line_of(fixture_engine, target, line_text))
    assert define(fixture_engine, source, needle) == [expected]


def test_definition_of_a_markdown_image_embed(fixture_engine: Engine) -> None:
    found = define(fixture_engine, "search/hybrid-search.md", "![Search diagram]")
    assert found == [start("assets/search diagram.png")]


def test_an_ambiguous_link_goes_to_the_one_note_obsidian_opens(fixture_engine: Engine) -> None:
    """The shortest path from the vault root; the diagnostic names the other candidates."""
    assert define(fixture_engine, "index.md", "[[ideas]]") == [start("travel/ideas.md")]
    # From cooking/, the same name follows the note in its own folder.
    assert define(fixture_engine, "cooking/weeknight-dinners.md", "[[ideas]]") == [
        start("cooking/ideas.md")
    ]


def test_notes_sharing_an_alias_are_all_definitions(fixture_engine: Engine) -> None:
    assert define(fixture_engine, "index.md", "[[Second Brain]]") == [
        start("pkm/building-a-second-brain.md"),
        start("pkm/知识管理.md"),
    ]


@pytest.mark.parametrize(
    ("source", "needle"),
    [
        ("daily/2024-03-01.md", "[[Learning to Rank]]"),
        ("daily/2024-03-01.md", "[[Search Team Roadmap#Q2]]"),
        ("index.md", "[old index](../outside.md)"),
        ("inbox/reading-list.md", "[archive](../../old-vault/index.md)"),
        ("inbox/reading-list.md", "[How to Take Smart Notes]"),
        ("index.md", "Everything starts here"),
    ],
)
def test_no_definition_for_links_that_go_nowhere_or_off_a_link(
    fixture_engine: Engine, source: str, needle: str
) -> None:
    assert define(fixture_engine, source, needle) == []


def test_nested_heading_link_takes_the_heading_under_the_named_parent(tmp_path: Path) -> None:
    engine = indexed_engine(
        tmp_path,
        {
            "n.md": "# A\n## Setup\none\n# B\n## Setup\ntwo\n",
            "src.md": "[[n#B#Setup]] [[n#Setup]] [[n#Nope]] [[n#^nope]]\n",
        },
    )
    assert define(engine, "src.md", "[[n#B#Setup]]") == [start("n.md", 4)]
    assert define(engine, "src.md", "[[n#Setup]]") == [start("n.md", 1)]
    # An anchor naming nothing still finds the note: its start.
    assert define(engine, "src.md", "[[n#Nope]]") == [start("n.md")]
    assert define(engine, "src.md", "[[n#^nope]]") == [start("n.md")]


# -- references ----------------------------------------------------------------------------


BM25_INLINKS = [
    ("daily/2024-03-01.md", "[[bm25]]"),
    ("index.md", "[[bm25]]"),
    ("index.md", "[[bm25#^k1-default]]"),
    ("search/hybrid-search.md", "[[bm25]]"),
    ("search/hybrid-search.md", "[[bm25#Scoring"),
    ("search/hybrid-search.md", "(bm25.md#why-idf)"),
    ("search/inverted-index.md", "[[bm25]]"),
    ("search/tantivy.md", "[[bm25]]"),
    ("search/向量检索.md", "[[bm25]]"),
]


def link_places(engine: Engine, wanted: list[tuple[str, str]]) -> list[Place]:
    """The places of the links written at these needles, read back from the graph."""
    places = []
    for path, needle in wanted:
        found = link_at(view_of(engine), path, *cursor(engine, path, needle))
        assert found is not None, (path, needle)
        places.append(Place(path, found.link.span))
    return places


def test_references_on_a_link_are_every_link_to_its_target(fixture_engine: Engine) -> None:
    expected = link_places(fixture_engine, BM25_INLINKS)
    line, column = cursor(fixture_engine, "index.md", "[[bm25]]")
    assert references(view_of(fixture_engine), "index.md", line, column, False) == expected
    with_declaration = references(view_of(fixture_engine), "index.md", line, column, True)
    assert with_declaration == sorted(
        [*expected, start("search/bm25.md")], key=lambda p: (p.path, p.span.line, p.span.start)
    )


def test_references_off_a_link_are_the_notes_inlinks(fixture_engine: Engine) -> None:
    expected = link_places(fixture_engine, BM25_INLINKS)
    line, column = cursor(fixture_engine, "search/bm25.md", "BM25 is the ranking")
    assert references(view_of(fixture_engine), "search/bm25.md", line, column, False) == expected
    found = references(view_of(fixture_engine), "search/bm25.md", line, column, True)
    assert start("search/bm25.md") in found and len(found) == len(expected) + 1


def test_references_are_sorted_by_path_then_position_without_duplicates(
    fixture_engine: Engine,
) -> None:
    line, column = cursor(fixture_engine, "index.md", "[[Second Brain]]")
    found = references(view_of(fixture_engine), "index.md", line, column, True)
    keys = [(p.path, p.span.line, p.span.start) for p in found]
    assert keys == sorted(set(keys))
    # A shared alias refers to both notes: links to either, and both declarations.
    assert start("pkm/知识管理.md") in found and start("pkm/building-a-second-brain.md") in found
    [card] = link_places(fixture_engine, [("pkm/zettelkasten.md", "[[知识管理#卡片笔记]]")])
    assert card in found


ANCHORED = {
    "t.md": "# T\n\n## Heading One\n\nText. ^b1\n\n## Other\n",
    "a.md": "[[t#Heading One]] [[t#heading one]] [[t]] [[t#^b1]]\n",
    "b.md": "[[t#heading-one]] [x](t.md#heading-one) [[t#Other]] [[t#^B1]]\n",
    "c.md": "[[t#Missing]] and [[t#missing]]\n",
}


def test_references_on_an_anchored_link_match_what_the_anchor_resolves_to(
    tmp_path: Path,
) -> None:
    engine = indexed_engine(tmp_path, ANCHORED)
    heading_links = link_places(
        engine,
        [
            ("a.md", "[[t#Heading One]]"),
            ("a.md", "[[t#heading one]]"),
            ("b.md", "[[t#heading-one]]"),
            ("b.md", "[x](t.md#heading-one)"),
        ],
    )
    for source, needle in [("a.md", "[[t#heading one]]"), ("b.md", "[x](t.md")]:
        line, column = cursor(engine, source, needle)
        assert references(view_of(engine), source, line, column, False) == heading_links
        declared = references(view_of(engine), source, line, column, True)
        assert declared == [*heading_links, start("t.md", 2)]
    block_links = link_places(engine, [("a.md", "[[t#^b1]]"), ("b.md", "[[t#^B1]]")])
    line, column = cursor(engine, "b.md", "[[t#^B1]]")
    assert references(view_of(engine), "b.md", line, column, True) == [
        *block_links,
        start("t.md", 4),
    ]
    missing = link_places(engine, [("c.md", "[[t#Missing]]"), ("c.md", "[[t#missing]]")])
    line, column = cursor(engine, "c.md", "[[t#missing]]")
    assert references(view_of(engine), "c.md", line, column, True) == [*missing, start("t.md")]
    # An unanchored link refers to the note: every link to it, anchored or not.
    line, column = cursor(engine, "a.md", "[[t]]")
    assert len(references(view_of(engine), "a.md", line, column, False)) == 10


def test_references_on_a_heading_or_block_line_are_the_links_to_it(tmp_path: Path) -> None:
    engine = indexed_engine(tmp_path, ANCHORED)
    on_heading = references(view_of(engine), "t.md", 2, 4, False)
    assert [p.path for p in on_heading] == ["a.md", "a.md", "b.md", "b.md"]
    assert references(view_of(engine), "t.md", 2, 0, True)[-1] == start("t.md", 2)
    on_block = references(view_of(engine), "t.md", 4, 0, True)
    assert [p.path for p in on_block] == ["a.md", "b.md", "t.md"]
    assert on_block[-1] == start("t.md", 4)
    other = references(view_of(engine), "t.md", 6, 0, False)
    assert link_places(engine, [("b.md", "[[t#Other]]")]) == other
    # A blank line is "elsewhere": all inlinks, and the file start as the declaration.
    everywhere = references(view_of(engine), "t.md", 1, 0, True)
    assert len(everywhere) == 11 and everywhere[-1] == start("t.md")


def test_references_include_same_note_links_to_a_heading(fixture_engine: Engine) -> None:
    line = line_of(fixture_engine, "pkm/zettelkasten.md", "## Permanent notes")
    found = references(view_of(fixture_engine), "pkm/zettelkasten.md", line, 3, False)
    assert found == link_places(
        fixture_engine,
        [
            ("pkm/building-a-second-brain.md", "[[zettelkasten#Permanent notes]]"),
            ("pkm/zettelkasten.md", "[[#Permanent notes]]"),
        ],
    )


def test_no_references_for_a_link_that_goes_nowhere(fixture_engine: Engine) -> None:
    line, column = cursor(fixture_engine, "daily/2024-03-01.md", "[[Learning to Rank]]")
    assert references(view_of(fixture_engine), "daily/2024-03-01.md", line, column, True) == []
    assert references(view_of(fixture_engine), "not-a-note.md", 0, 0, True) == []


# -- outline and document links -------------------------------------------------------------


def shape(sections: tuple[Section, ...] | list[Section]) -> list[object]:
    return [(s.name, s.level, s.span.line, s.end_line, shape(s.children)) for s in sections]


def test_outline_nests_headings_by_level(fixture_engine: Engine) -> None:
    sections = outline(view_of(fixture_engine), "search/向量检索.md")
    assert shape(sections) == [
        (
            "向量检索",
            1,
            6,
            30,
            [
                (
                    "向量检索：ANN 算法",
                    2,
                    11,
                    22,
                    [("HNSW（分层可导航小世界图）", 3, 15, 18, []), ("IVF 与 PQ", 3, 20, 22, [])],
                ),
                ("与 BM25 的对比", 2, 24, 30, []),
            ],
        )
    ]
    # The span covers the heading line, with its UTF-16 and UTF-8 columns for Chinese text.
    ann = sections[0].children[0]
    assert ann.span == Span(11, 0, len("## 向量检索：ANN 算法"))
    assert ann.span.columns("utf-8") == (0, len("## 向量检索：ANN 算法".encode()))


def test_outline_of_setext_headings_skipped_levels_and_no_headings(tmp_path: Path) -> None:
    engine = indexed_engine(
        tmp_path,
        {
            "n.md": "Title\n=====\n\nintro\n\n### Deep\n\ntext\n\n\n## Back **up**\nend\n\n",
            "plain.md": "no headings here\n",
        },
    )
    assert shape(outline(view_of(engine), "n.md")) == [
        ("Title", 1, 0, 11, [("Deep", 3, 5, 7, []), ("Back up", 2, 10, 11, [])])
    ]
    assert outline(view_of(engine), "plain.md") == []
    assert outline(view_of(engine), "missing.md") == []


def test_document_links_carry_their_target_place(fixture_engine: Engine) -> None:
    found = document_links(view_of(fixture_engine), "index.md")
    assert len(found) == len(fixture_engine.read().graph.outlinks("index.md"))
    by_target = {link.target + "#" + link.anchor: place for link, place in found}
    assert by_target["bm25#"] == start("search/bm25.md")
    line = line_of(fixture_engine, "search/bm25.md", "^k1-default")
    assert by_target["bm25#^k1-default"] == start("search/bm25.md", line)
    assert by_target["ideas#"] == start("travel/ideas.md")  # the note an ambiguous link follows
    assert by_target["../outside.md#"] is None
    daily = document_links(view_of(fixture_engine), "daily/2024-03-01.md")
    broken = {link.target: place for link, place in daily}
    assert broken["Learning to Rank"] is None and broken["bm25"] == start("search/bm25.md")


# -- call hierarchy ------------------------------------------------------------------------


def test_outgoing_calls_are_the_notes_linked_in_first_appearance_order(
    fixture_engine: Engine,
) -> None:
    calls = dict(outgoing(view_of(fixture_engine), "index.md"))
    order = [path for path, _ in outgoing(view_of(fixture_engine), "index.md")]
    assert order[:4] == [
        "search/bm25.md",
        "search/hybrid-search.md",
        "search/tantivy.md",
        "search/inverted-index.md",
    ]
    assert calls["search/bm25.md"] == [
        p.span for p in link_places(fixture_engine, BM25_INLINKS) if p.path == "index.md"
    ]
    # A shared alias calls both notes; the same-note link [[#Notes on notes]] is no call.
    assert "pkm/building-a-second-brain.md" in calls and "pkm/知识管理.md" in calls
    assert "index.md" not in calls
    assert "assets/retrieval-pipeline.png" in calls
    assert "pkm/zettelkasten.md" not in dict(
        outgoing(view_of(fixture_engine), "pkm/zettelkasten.md")
    )


def test_incoming_calls_are_the_notes_linking_here_with_their_links(
    fixture_engine: Engine,
) -> None:
    calls = incoming(view_of(fixture_engine), "search/bm25.md")
    expected: dict[str, list[Span]] = {}
    for place in link_places(fixture_engine, BM25_INLINKS):
        expected.setdefault(place.path, []).append(place.span)
    assert calls == list(expected.items())
    zettel = dict(incoming(view_of(fixture_engine), "pkm/zettelkasten.md"))
    assert "pkm/zettelkasten.md" not in zettel and "index.md" in zettel
    assert incoming(view_of(fixture_engine), "daily/2024-03-15.md") == []


# -- workspace symbols ---------------------------------------------------------------------


def test_most_linked_notes_by_inlinks_then_path(tmp_path: Path) -> None:
    engine = indexed_engine(
        tmp_path,
        {
            "hub.md": "# Hub\n\n## Part\n[[#Part]] [[#Part]]\n",  # self-links do not count
            "b.md": "[[hub]] [[c]]\n",
            "a.md": "[[hub]] [[c]] [[hub]]\n",
            "c.md": "[[hub]]\n",
            "d.md": "[[a]]\n",
            "img.md": "![[pic.png]] ![[pic.png]]\n",
        },
    )
    (tmp_path / "vault" / "pic.png").write_bytes(b"\x89PNG")
    engine.refresh()
    assert most_linked(view_of(engine), 3) == ["hub.md", "c.md", "a.md"]
    # Attachments are not workspace symbols; notes without inlinks come last, by path.
    assert most_linked(view_of(engine), 100) == ["hub.md", "c.md", "a.md", "b.md", "d.md", "img.md"]
    assert most_linked(view_of(engine), 0) == []


def test_a_self_link_does_not_lift_a_note_past_the_limit(tmp_path: Path) -> None:
    engine = indexed_engine(
        tmp_path,
        {
            "a.md": "# A\n[[#A]]\n",  # one source and itself
            "b.md": "# B\n",  # two sources
            "p.md": "[[a]] [[b]]\n",
            "q.md": "[[b]]\n",
        },
    )
    assert most_linked(view_of(engine), 1) == ["b.md"]
    assert most_linked(view_of(engine), 2) == ["b.md", "a.md"]


def test_most_linked_in_the_fixture_vault(fixture_engine: Engine) -> None:
    top = most_linked(view_of(fixture_engine), 3)
    assert top[0] == "search/hybrid-search.md"
    counts = [fixture_engine.read().graph.inlink_count(path) for path in top]
    assert counts == sorted(counts, reverse=True)


def test_references_on_the_h1_that_is_the_note_name_are_the_notes_inlinks() -> None:
    from tests.helpers.memory_vault import memory_view

    files = {"n.md": "# n\n## Part\n", "a.md": "[[n]] [[n#Part]]\n", "b.md": "[[n#n]]\n"}
    view = memory_view(files)
    on_title = references(view, "n.md", 0, 1, False)
    assert sorted(place.path for place in on_title) == ["a.md", "a.md", "b.md"]
    assert [place.path for place in references(view, "n.md", 1, 1, False)] == ["a.md"]
