"""Parsing one note: frontmatter, title, headings, block ids, tags, links with exact spans, dates."""

from __future__ import annotations

import datetime as dt
import unicodedata

import pytest

from memlsp.model import Link, LinkKind, Note, Span
from memlsp.parse.frontmatter import as_date, as_strings, split_frontmatter
from memlsp.parse.markdown import parse_markdown, slugify, split_lines


def tags(note: Note) -> list[str]:
    return [tag.name for tag in note.tags]


def inline_tags(note: Note) -> list[str]:
    return [tag.name for tag in note.tags if tag.span is not None]


def targets(note: Note) -> list[str]:
    return [link.target for link in note.links]


def written(text: str, link: Link) -> str:
    """The text a link's span covers in the original note."""
    line = split_lines(text)[link.span.line]
    return line[link.span.start : link.span.end]


# -- frontmatter ---------------------------------------------------------------------------


def test_frontmatter_fields() -> None:
    text = (
        "---\n"
        "title: Hybrid search 混合检索\n"
        "aliases: [混合检索, RRF search]\n"
        "tags: [search/fusion, '#ir']\n"
        "description: Keyword plus vectors.\n"
        "date: 2024-03-01\n"
        "---\n"
        "# Something else\n"
        "Body with [[bm25]].\n"
    )
    note = parse_markdown("search/hybrid.md", text)
    assert note.title == "Hybrid search 混合检索"
    assert note.aliases == ("混合检索", "RRF search")
    assert tags(note) == ["search/fusion", "ir"]
    # where each is written, `#` included: hover and rename find them there
    assert [(t.span.line, t.span.start, t.span.end) for t in note.tags if t.span] == [
        (3, 7, 20),
        (3, 23, 26),
    ]
    assert note.description == "Keyword plus vectors."
    assert note.date == "2024-03-01"
    assert note.body_start_line == 7
    assert note.line_count == 10
    assert note.problems == ()
    assert note.headings[0].line == 7
    assert note.links[0].span == Span(8, 10, 18)


@pytest.mark.parametrize(
    ("yaml_lines", "aliases"),
    [
        ("aliases: 向量表示", ("向量表示",)),
        ("aliases: [ML, Machine Learning]", ("ML", "Machine Learning")),
        ("aliases:\n  - vector search\n  - 向量搜索", ("vector search", "向量搜索")),
        ("alias: PKM", ("PKM",)),
        ("aliases: [A, A]", ("A",)),
        ("aliases:", ()),
    ],
)
def test_aliases_list_or_string(yaml_lines: str, aliases: tuple[str, ...]) -> None:
    note = parse_markdown("n.md", f"---\n{yaml_lines}\n---\nbody\n")
    assert note.aliases == aliases


@pytest.mark.parametrize(
    ("yaml_lines", "expected"),
    [
        ("tags: [pkm, reading]", ["pkm", "reading"]),
        ('tags: "#pkm, #reading"', ["pkm", "reading"]),
        ("tags: pkm reading", ["pkm", "reading"]),
        ("tags:\n  - 烹饪/川菜\n  - '#recipe'", ["烹饪/川菜", "recipe"]),
        ("tag: daily", ["daily"]),
        ("tags:", []),
    ],
)
def test_frontmatter_tags(yaml_lines: str, expected: list[str]) -> None:
    note = parse_markdown("n.md", f"---\n{yaml_lines}\n---\nbody\n")
    assert tags(note) == expected


@pytest.mark.parametrize(
    ("yaml_lines", "path", "date"),
    [
        ("date: 2023-11-05", "travel/kyoto.md", "2023-11-05"),  # YAML date
        ("date: 2023-11-05 08:30:00", "n.md", "2023-11-05"),  # YAML datetime
        ("date: '2023-11-05T08:30'", "n.md", "2023-11-05"),  # a string
        ("created: 2024-01-20T09:30:00", "n.md", "2024-01-20"),
        ("date: 2024-03-16", "daily/2024-03-15.md", "2024-03-16"),  # frontmatter beats path
        ("date: not a date", "daily/2024-03-15.md", "2024-03-15"),  # junk falls back to path
        ("title: x", "daily/2024-03-01.md", "2024-03-01"),
        ("title: x", "journal/2024/2024-02-29 leap day.md", "2024-02-29"),
        ("title: x", "daily/2023-02-30.md", None),  # not a real day
        ("title: x", "notes/v20240301.md", None),
        ("title: x", "n.md", None),
    ],
)
def test_dates(yaml_lines: str, path: str, date: str | None) -> None:
    assert parse_markdown(path, f"---\n{yaml_lines}\n---\nbody\n").date == date


def test_as_date_and_as_strings() -> None:
    assert as_date(dt.date(2024, 3, 1)) == "2024-03-01"
    assert as_date(dt.datetime(2024, 3, 1, 23, 59)) == "2024-03-01"
    assert as_date("2024-03-01T10:00:00Z") == "2024-03-01"
    assert as_date(20240301) is None
    assert as_strings(None) == []
    assert as_strings(["a", None, " ", 3]) == ["a", "3"]
    assert as_strings("  x ") == ["x"]


def test_invalid_yaml_is_reported_and_the_note_still_parsed() -> None:
    text = (
        "---\n"
        "title: Meeting notes: search team\n"
        "tags: [search, meeting\n"
        "---\n"
        "# Search team sync\n"
        "Ship [[hybrid-search]] behind a flag. #search/chinese\n"
    )
    note = parse_markdown("inbox/meeting.md", text)
    assert len(note.problems) == 1
    assert "invalid YAML" in note.problems[0]
    assert note.body_start_line == 0  # the broken YAML is indexed as text
    assert note.title == "Search team sync"  # frontmatter ignored: first H1
    assert tags(note) == ["search/chinese"]
    assert targets(note) == ["hybrid-search"]
    assert note.links[0].span.line == 5


def test_unclosed_and_non_mapping_frontmatter() -> None:
    unclosed = parse_markdown("n.md", "---\ntitle: x\nbody [[a]]\n")
    assert unclosed.problems and "no closing" in unclosed.problems[0]
    assert unclosed.body_start_line == 0
    assert targets(unclosed) == ["a"]
    listed = split_frontmatter(["---", "- a", "- b", "---", "body"])
    assert listed.meta == {} and listed.problem is not None and listed.body_start == 4
    empty = parse_markdown("n.md", "---\n---\n# T\n")
    assert empty.problems == () and empty.body_start_line == 2 and empty.title == "T"


def test_yaml_is_loaded_safely() -> None:
    note = parse_markdown("n.md", "---\ntitle: !!python/object/apply:os.system ['echo hi']\n---\n")
    assert note.problems  # refused, not executed
    assert note.title == "n"


def test_byte_order_mark_before_frontmatter() -> None:
    note = parse_markdown("n.md", "\ufeff---\ntitle: With BOM\n---\nbody\n")
    assert note.title == "With BOM"
    assert note.headings == ()
    assert note.body_start_line == 3


# -- title, description ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "text", "title"),
    [
        ("a/b.md", "---\ntitle: From YAML\n---\n# From H1\n", "From YAML"),
        ("a/b.md", "intro\n\n## Second level\n\n# First *H1*\n", "First H1"),
        ("a/b.md", "Setext title\n============\n\nbody\n", "Setext title"),
        ("a/向量检索.md", "no heading at all\n", "向量检索"),
        ("a/b.md", "```\n# code, not a title\n```\n", "b"),
    ],
)
def test_title_fallbacks(path: str, text: str, title: str) -> None:
    assert parse_markdown(path, text).title == title


@pytest.mark.parametrize(
    ("text", "description"),
    [
        ("---\ndescription: From YAML\n---\nBody.\n", "From YAML"),
        ("---\nsummary: Summary field\n---\nBody.\n", "Summary field"),
        ("# Title\n\n- a list item\n\nFirst *real* paragraph.\n", "First real paragraph."),
        ("**Bold** start of the paragraph.\n", "Bold start of the paragraph."),
        ("Setext\n======\n\nThe body.\n", "The body."),
        ("# T\n\n> a quote\n\n---\n\nAfter the rule.\n", "After the rule."),
        ("See [the note](x.md) and [[y]].\n", "See the note and y."),
    ],
)
def test_description(text: str, description: str) -> None:
    assert parse_markdown("n.md", text).description == description


def test_description_is_capped() -> None:
    assert len(parse_markdown("n.md", "word " * 200).description) == 200


# -- headings, block ids ---------------------------------------------------------------------


def test_atx_and_setext_headings() -> None:
    text = (
        "# One\n"
        "## Two ##\n"
        "###### Six\n"
        "####### seven is not a heading\n"
        "#no-space is a tag\n"
        "   ### indented three\n"
        "\n"
        "Setext one\n"
        "==========\n"
        "\n"
        "Setext *two*\n"
        "---\n"
        "\n"
        "- list item\n"
        "---\n"
        "\n"
        "---\n"
        "## Scoring: k1 & b (saturation)\n"
        "## 向量检索：ANN 算法\n"
        "#\n"
    )
    note = parse_markdown("n.md", text)
    assert [(h.level, h.text, h.line) for h in note.headings] == [
        (1, "One", 0),
        (2, "Two", 1),
        (6, "Six", 2),
        (3, "indented three", 5),
        (1, "Setext one", 7),
        (2, "Setext *two*", 10),
        (2, "Scoring: k1 & b (saturation)", 17),
        (2, "向量检索：ANN 算法", 18),
        (1, "", 19),
    ]
    assert [h.slug for h in note.headings[-3:-1]] == [
        "scoring-k1--b-saturation",
        "向量检索ann-算法",
    ]
    assert note.headings[5].slug == "setext-two"
    assert tags(note) == ["no-space"]


def test_hash_inside_a_fence_is_not_a_heading() -> None:
    text = "```python\n# a comment\n## neither\n```\n~~~\n# nor this\n~~~\n    # indented code\n# Real\n"
    note = parse_markdown("n.md", text)
    assert [(h.text, h.line) for h in note.headings] == [("Real", 8)]


def test_slugify() -> None:
    assert slugify("Why IDF?") == "why-idf"
    assert slugify("  Day 2 — Arashiyama ") == "day-2--arashiyama"
    assert slugify("HNSW（分层可导航小世界图）") == "hnsw分层可导航小世界图"


def test_block_ids() -> None:
    text = (
        "A paragraph that ends with an id. ^para-1\n"
        "\n"
        "- a list item ^item-2\n"
        "- not an id^nope\n"
        "\n"
        "| a | b |\n"
        "^table-3\n"
        "\n"
        "`code ^not-an-id`\n"
        "```\n"
        "x ^in-fence\n"
        "```\n"
        "Link [[n#^other]] is not a block id.\n"
    )
    note = parse_markdown("n.md", text)
    assert [(b.id, b.line) for b in note.blocks] == [("para-1", 0), ("item-2", 2), ("table-3", 6)]


# -- tags ----------------------------------------------------------------------------------


def test_inline_tags() -> None:
    text = (
        "#daily #search/ranking #机器学习 #美食/川菜 #ml/深度学习 (#in-parens)\n"
        "Numbers only: #1984 #2024-03 but #y1984 counts.\n"
        "Not in words: C#, foo#bar, 中文#标签, &#123;\n"
        "Not in URLs: https://example.com/page#section and [x](note.md#heading)\n"
        "Not in links: [[note#heading]] [[n|#label]] ![[img.png#anchor]]\n"
        "Not in code: `#code` and ``#double`` but #after-code\n"
        "Punctuation ends it: #tag, #标签，and #end.\n"
        "After Chinese punctuation: 要做的事。#待办/某天，还有（#备忘）\n"
    )
    note = parse_markdown("n.md", text)
    assert inline_tags(note) == [
        "daily",
        "search/ranking",
        "机器学习",
        "美食/川菜",
        "ml/深度学习",
        "in-parens",
        "y1984",
        "after-code",
        "tag",
        "标签",
        "end",
        "待办/某天",
        "备忘",
    ]
    lines = split_lines(text)
    for tag in note.tags:
        assert tag.span is not None
        assert lines[tag.span.line][tag.span.start : tag.span.end] == "#" + tag.name


def test_frontmatter_and_inline_tags_together() -> None:
    note = parse_markdown("n.md", "---\ntags: [recipe]\n---\nText #烹饪/川菜\n")
    assert [(t.name, t.span) for t in note.tags] == [
        ("recipe", Span(1, 7, 13)),
        ("烹饪/川菜", Span(3, 5, 11)),
    ]


# -- links ---------------------------------------------------------------------------------


LINK_LINE_CASES = [
    ("[[note]]", "note", (), None, None, False, LinkKind.WIKI),
    ("[[note|label]]", "note", (), None, "label", False, LinkKind.WIKI),
    ("[[note#Heading]]", "note", ("Heading",), None, None, False, LinkKind.WIKI),
    ("[[note#Heading#Sub]]", "note", ("Heading", "Sub"), None, None, False, LinkKind.WIKI),
    ("[[note#^block-1]]", "note", (), "block-1", None, False, LinkKind.WIKI),
    ("[[#Heading]]", "", ("Heading",), None, None, False, LinkKind.WIKI),
    ("[[#^blk]]", "", (), "blk", None, False, LinkKind.WIKI),
    ("[[folder/note]]", "folder/note", (), None, None, False, LinkKind.WIKI),
    ("[[note.md]]", "note.md", (), None, None, False, LinkKind.WIKI),
    ("![[note]]", "note", (), None, None, True, LinkKind.WIKI),
    ("![[image.png]]", "image.png", (), None, None, True, LinkKind.WIKI),
    ("![[image.png|200]]", "image.png", (), None, "200", True, LinkKind.WIKI),
    (
        "[[向量 检索#入门：基础|标签]]",
        "向量 检索",
        ("入门：基础",),
        None,
        "标签",
        False,
        LinkKind.WIKI,
    ),
    ("[[a\\|b]]", "a", (), None, "b", False, LinkKind.WIKI),  # escaped pipe in a table
    (
        "[text](path/to/note.md#heading)",
        "path/to/note.md",
        ("heading",),
        None,
        "text",
        False,
        LinkKind.MARKDOWN,
    ),
    ("[t](a%20b.md#h%201)", "a b.md", ("h 1",), None, "t", False, LinkKind.MARKDOWN),
    (
        "[t](<a b.md#Some heading>)",
        "a b.md",
        ("Some heading",),
        None,
        "t",
        False,
        LinkKind.MARKDOWN,
    ),
    ("[t](note.md#^blk)", "note.md", (), "blk", "t", False, LinkKind.MARKDOWN),
    ("[t](#local)", "", ("local",), None, "t", False, LinkKind.MARKDOWN),
    ('[t](note.md "a title")', "note.md", (), None, "t", False, LinkKind.MARKDOWN),
    ("[t [x]](n.md)", "n.md", (), None, "t [x]", False, LinkKind.MARKDOWN),
    ("![alt](../assets/p%20q.png)", "../assets/p q.png", (), None, "alt", True, LinkKind.MARKDOWN),
]


@pytest.mark.parametrize(
    ("written_link", "target", "headings", "block", "label", "embed", "kind"),
    LINK_LINE_CASES,
    ids=[case[0] for case in LINK_LINE_CASES],
)
def test_link_forms(
    written_link: str,
    target: str,
    headings: tuple[str, ...],
    block: str | None,
    label: str | None,
    embed: bool,
    kind: LinkKind,
) -> None:
    text = f"中文 😀 before {written_link} after"
    note = parse_markdown("n.md", text)
    assert len(note.links) == 1
    link = note.links[0]
    assert (link.target, link.headings, link.block, link.label, link.embed, link.kind) == (
        target,
        headings,
        block,
        label,
        embed,
        kind,
    )
    assert written(text, link) == written_link
    assert link.span == Span(0, 12, 12 + len(written_link))  # code points, emoji is one


@pytest.mark.parametrize(
    "text",
    [
        "[site](https://example.com/a.md)",
        "[mail](mailto:me@example.com)",
        "[empty]()",
        "<https://example.com>",
        "[[]]",
        "[ref][1]",
    ],
)
def test_not_links(text: str) -> None:
    assert parse_markdown("n.md", text).links == ()


def test_link_spans_exact_on_mixed_lines() -> None:
    text = (
        "# 标题 [[heading link]]\n"
        "向量检索 🔍 用 [[bm25|BM25]]，再看 [说明](docs/向量%20检索.md#入门) 和 ![[图.png]]。\n"
        "two on a line: [[a]][[b]] and [x](y.md)[z](w.md)\n"
    )
    note = parse_markdown("n.md", text)
    assert [written(text, link) for link in note.links] == [
        "[[heading link]]",
        "[[bm25|BM25]]",
        "[说明](docs/向量%20检索.md#入门)",
        "![[图.png]]",
        "[[a]]",
        "[[b]]",
        "[x](y.md)",
        "[z](w.md)",
    ]
    assert [link.span.line for link in note.links] == [0, 1, 1, 1, 2, 2, 2, 2]
    assert note.links[2].target == "docs/向量 检索.md"
    assert note.headings[0].text == "标题 [[heading link]]"


def test_links_are_in_file_order() -> None:
    note = parse_markdown("n.md", "[md](a.md) [[wiki]]\n[[second]]\n")
    assert targets(note) == ["a.md", "wiki", "second"]


def test_crlf_line_endings() -> None:
    text = "---\r\ntitle: Windows\r\n---\r\n# Head\r\nSee [[b]] #tag\r\nMore ^blk\r\n\r\n```\r\n[[no]]\r\n```\r\n"
    note = parse_markdown("n.md", text)
    assert note.title == "Windows"
    assert note.body_start_line == 3
    assert [(h.text, h.line) for h in note.headings] == [("Head", 3)]
    assert [(link.target, link.span) for link in note.links] == [("b", Span(4, 4, 9))]
    assert inline_tags(note) == ["tag"]
    assert [(b.id, b.line) for b in note.blocks] == [("blk", 5)]
    assert note.line_count == 11
    assert split_lines("a\r\nb\rc\n") == ["a", "b", "c", ""]


def test_title_is_nfc() -> None:
    note = parse_markdown("n.md", unicodedata.normalize("NFD", "# Café\n"))
    assert note.title == unicodedata.normalize("NFC", "Café")


def test_description_reads_like_text() -> None:
    note = parse_markdown(
        "n.md",
        "#daily #journal\n\nPlanned a [[ideas|trip]] to [[京都]] <!-- private --> with **friends**.\n",
    )
    assert note.description == "Planned a trip to 京都  with friends."


def test_link_span_carries_utf16_and_utf8_columns_after_chinese_and_emoji() -> None:
    note = parse_markdown("n.md", "中文🎉 [[x]] #标签\nplain [[y]]\n")
    first, second = note.links
    assert first.span.columns("utf-32") == (4, 9)
    assert first.span.columns("utf-16") == (5, 10)  # the emoji is two UTF-16 units
    assert first.span.columns("utf-8") == (11, 16)  # 3 + 3 + 4 + 1 bytes before the link
    assert second.span.units is None and second.span.columns("utf-16") == (6, 11)
    [tag] = note.tags
    assert tag.span is not None and tag.span.columns("utf-16") == (11, 14)


def test_description_reads_a_wrapped_paragraph_and_drops_trailing_tags() -> None:
    note = parse_markdown(
        "n.md", "# T\n\nFirst line of a\nwrapped paragraph. #旅行 #美食/川菜\n\nNext.\n"
    )
    assert note.description == "First line of a wrapped paragraph."
