"""Hover as Markdown: the link target's title, description, section and neighbours; a tag's notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.engine.engine import Engine
from memlsp.model import Heading, Note, ResolvedLink
from memlsp.navigation import hover as hover_module
from memlsp.navigation import places
from memlsp.navigation.hover import MAX_LINES, hover, tag_hover
from memlsp.vault import anchors
from tests.helpers.engine import cursor, indexed_engine, view_of
from tests.helpers.vault import place_uri


def hover_at(engine: Engine, path: str, needle: str, into: int = 2) -> str:
    text = hover(view_of(engine), path, *cursor(engine, path, needle, into), place_uri)
    assert text is not None, (path, needle)
    return text


def test_hover_on_a_link_previews_the_note_and_lists_its_neighbours(
    fixture_engine: Engine,
) -> None:
    text = hover_at(fixture_engine, "index.md", "[[bm25]]")
    assert text.startswith("### [BM25](mem:search/bm25.md:0)\n\n")
    # The description is the first paragraph here: shown once, as part of the note's start.
    assert text.count("BM25 is the ranking function") == 1
    # a wikilink of the preview is a link to where it goes
    assert "and [tantivy](mem:search/tantivy.md:0) all ship it." in text
    assert "\n**Scoring: k1 & b (saturation)**\n" in text  # headings shown as bold lines
    assert "# BM25" not in text  # the H1 repeats the title
    assert "**outlinks (4)**\n\n- [Tantivy](mem:search/tantivy.md:0) — Tantivy is" in text
    assert (
        "- [Hybrid search 混合检索](mem:search/hybrid-search.md:0) `#Fusion` — Run keyword search"
        in text
    )
    assert "**inlinks (6)**\n\n" in text
    assert (
        "- [Hybrid search 混合检索](mem:search/hybrid-search.md:0) "
        "`#Scoring: k1 & b (saturation)`, `#why-idf` — Run keyword" in text
    )
    assert "- [Home](mem:index.md:0) `#^k1-default` — Entry point of my notes" in text
    assert "- [2024-03-01](mem:daily/2024-03-01.md:0)\n" in text + "\n"  # no description
    preview = text.split("**outlinks")[0].strip().split("\n")
    assert len(preview) <= MAX_LINES + 3  # title, blank, at most MAX_LINES lines and "…"
    assert preview[-1] == "…"


def test_frontmatter_is_never_shown_raw(fixture_engine: Engine) -> None:
    text = hover_at(fixture_engine, "pkm/知识管理.md", "[[index|首页]]")
    assert text.startswith("### [Home](mem:index.md:0)\n\n")
    assert "Entry point of my notes on search engines, note-taking, cooking and travel." in text
    assert "Everything starts here." in text
    for raw in ("---", "title:", "aliases:", "description:", "tags:"):
        assert raw not in text


def test_invalid_frontmatter_is_not_shown_either(tmp_path: Path) -> None:
    engine = indexed_engine(
        tmp_path,
        {
            "broken.md": "---\ntitle: a: b\ntags: [x\n---\n# Sync\n\nAgreed to ship it.\n",
            "src.md": "See [[broken]].\n",
        },
    )
    text = hover_at(engine, "src.md", "[[broken]]")
    assert "Agreed to ship it." in text
    assert "tags: [x" not in text and "---" not in text


def test_hover_on_a_heading_link_shows_that_section_only(fixture_engine: Engine) -> None:
    text = hover_at(fixture_engine, "index.md", "[[hybrid-search#Fusion#")
    assert text.startswith(
        "### [Hybrid search 混合检索 › Fusion › Reciprocal Rank Fusion]"
        "(mem:search/hybrid-search.md:12)\n\n"
    )
    assert "Run keyword search" in text  # the description, as the section does not show it
    assert "Each list contributes `1 / (60 + rank)`" in text
    assert "$w_v = 0.7$, $w_k = 0.3$." in text
    assert "Weighted sum" not in text and "Normalise both scores" not in text


def test_hover_on_a_block_link_shows_the_blocks_paragraph(fixture_engine: Engine) -> None:
    text = hover_at(fixture_engine, "index.md", "[[bm25#^k1-default]]")
    preview = text.split("**outlinks")[0]
    assert preview.startswith("### [BM25](mem:search/bm25.md:13)\n\n")
    assert "Term frequency saturates" in preview
    assert "tantivy uses the same values.\n" in preview  # without the `^k1-default` marker
    assert "^k1-default" not in preview and "Why IDF" not in preview and "$$" not in preview
    list_item = hover_at(fixture_engine, "daily/2024-03-02.md", "[[mapo-tofu#^doubanjiang]]")
    assert "- 2 tbsp Pixian doubanjiang (郫县豆瓣酱)\n" in list_item
    assert "100 g minced beef" not in list_item


def test_a_missing_anchor_shows_the_note_start_and_says_so(tmp_path: Path) -> None:
    engine = indexed_engine(tmp_path, {"n.md": "# N\n\nBody.\n", "src.md": "[[n#Nope]]\n"})
    text = hover_at(engine, "src.md", "[[n#Nope]]")
    assert "No `#Nope` in this note; showing its start." in text
    assert "Body." in text


def test_long_sections_are_cut_and_open_fences_closed(tmp_path: Path) -> None:
    body = "\n".join(f"line {i}" for i in range(5)) + "\n```python\n"
    body += "\n".join(f"code {i}" for i in range(40)) + "\n```\n"
    engine = indexed_engine(tmp_path, {"long.md": "# Long\n\n" + body, "src.md": "[[long]]\n"})
    text = hover_at(engine, "src.md", "[[long]]")
    preview = text.split("\n\n**outlinks")[0].split("\n")
    assert preview[2:] == [
        *(f"line {i}" for i in range(5)),
        "```python",
        *(f"code {i}" for i in range(MAX_LINES - 6)),
        "```",
        "…",
    ]
    assert "**outlinks (0)**" in text and "**inlinks (1)**" in text


def test_a_cut_inside_math_is_closed_and_a_comment_not_shown(tmp_path: Path) -> None:
    formula = "\n".join(f"x_{i} +" for i in range(30))
    comment = "\n".join(f"draft {i}" for i in range(30))
    engine = indexed_engine(
        tmp_path,
        {
            "math.md": f"# M\n\n$$\n{formula}\n$$\n",
            "draft.md": f"# D\n\n<!--\n{comment}\n-->\n",
            "src.md": "[[math]] [[draft]]\n",
        },
    )
    math = hover_at(engine, "src.md", "[[math]]").split("\n\n**outlinks")[0]
    assert math.endswith("\nx_13 +\n$$\n…")
    draft = hover_at(engine, "src.md", "[[draft]]").split("\n\n**outlinks")[0]
    assert draft == "### [D](mem:draft.md:0)\n\n…"  # hidden, as when the note is rendered


def test_a_dollar_pair_in_a_fence_indented_four_spaces_opens_no_math(tmp_path: Path) -> None:
    """One fence rule (parse/fences.py) for the safe Markdown and the math closer: a fence
    indented four spaces or more is one inside a list item, and indented code elsewhere; the
    `$$` in it is code either way, so nothing is appended to close it."""
    engine = indexed_engine(
        tmp_path,
        {
            "listed.md": "# L\n\n- item\n\n    ```\n    $$\n    ```\n\nAfter.\n",
            "indented.md": "# I\n\nIntro.\n\n    ```\n    $$\n    ```\n\nAfter.\n",
            "src.md": "[[listed]] [[indented]]\n",
        },
    )
    listed = hover_at(engine, "src.md", "[[listed]]").split("\n\n**outlinks")[0]
    assert listed.endswith("\n- item\n\n```\n$$\n```\n\nAfter.")  # code, at the margin
    indented = hover_at(engine, "src.md", "[[indented]]").split("\n\n**outlinks")[0]
    assert indented.endswith("\nIntro.\n\n    \\`\\`\\`\n    $$\n    \\`\\`\\`\n\nAfter.")
    assert not listed.endswith("$$") and not indented.endswith("$$")


def test_where_a_link_lands_is_found_once_per_hover(
    fixture_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The title's link, the heading path, the excerpt and the missing-anchor note all read the
    one place the link lands in its note."""
    asked: list[str] = []
    real_anchor, real_heading = places.anchor_line, anchors.find_heading

    def anchor_line(note: Note, resolved: ResolvedLink) -> int | None:
        asked.append("anchor_line")
        return real_anchor(note, resolved)

    def find_heading(note: Note, headings: tuple[str, ...]) -> Heading | None:
        asked.append("find_heading")
        return real_heading(note, headings)

    monkeypatch.setattr(hover_module, "anchor_line", anchor_line)
    monkeypatch.setattr(hover_module, "find_heading", find_heading)
    text = hover_at(fixture_engine, "search/hybrid-search.md", "[[bm25#Scoring")
    assert text.startswith("### [BM25 › Scoring: k1 & b (saturation)](mem:search/bm25.md:")
    assert asked == ["anchor_line"]
    asked.clear()
    hover_at(fixture_engine, "index.md", "[[hybrid-search#Fusion#Reciprocal")
    assert asked == ["anchor_line"]


def test_neighbour_lists_stop_at_ten_but_count_everything(tmp_path: Path) -> None:
    files = {f"out{i:02}.md": f"# Out {i}\n\nOutlink number {i}.\n" for i in range(12)}
    files |= {f"in{i:02}.md": "[[hub]]\n" for i in range(12)}
    files["hub.md"] = "# Hub\n\n" + " ".join(f"[[out{i:02}]]" for i in range(12)) + "\n"
    files["src.md"] = "[[hub]] [[hub#Nowhere]]\n"
    engine = indexed_engine(tmp_path, files)
    text = hover_at(engine, "src.md", "[[hub]]")
    assert "**outlinks (12)**" in text and "**inlinks (13)**" in text
    listed = text[text.index("**outlinks") :]
    assert listed.count("](mem:out") == 10  # the preview above links all 12 itself
    assert "- … and 2 more" in text and "- … and 3 more" in text
    # Inlinks come most-linked first, then by path: the ten `in` notes before `src`.
    assert text.count("](mem:in") == 10 and "[src]" not in text


def test_a_link_to_a_missing_note_says_it_does_not_exist_yet(fixture_engine: Engine) -> None:
    text = hover_at(fixture_engine, "daily/2024-03-01.md", "[[Learning to Rank]]")
    assert text == "**Learning to Rank** does not exist yet: no note in the vault has that name."
    text = hover_at(fixture_engine, "index.md", "[old index](../outside.md)")
    assert text == "**../outside.md** is outside the vault."


def test_an_ambiguous_link_names_the_note_it_follows_and_the_others(
    fixture_engine: Engine,
) -> None:
    text = hover_at(fixture_engine, "index.md", "[[ideas]]")
    assert text.startswith(
        "Ambiguous: **ideas** follows `travel/ideas.md`; also matches "
        "[cooking/ideas.md](mem:cooking/ideas.md:0).\n\n### [Trip ideas](mem:travel/ideas.md:0)"
    )


def test_a_shared_alias_names_every_note(fixture_engine: Engine) -> None:
    text = hover_at(fixture_engine, "index.md", "[[Second Brain]]")
    assert text.startswith(
        "**Second Brain** names 2 notes: "
        "[pkm/building-a-second-brain.md](mem:pkm/building-a-second-brain.md:0), "
        "[pkm/知识管理.md](mem:pkm/知识管理.md:0). Showing `pkm/building-a-second-brain.md`."
    )
    assert "### [Building a Second Brain](mem:pkm/building-a-second-brain.md:0)" in text


def test_hover_on_an_attachment(fixture_engine: Engine) -> None:
    text = hover_at(fixture_engine, "index.md", "![[retrieval-pipeline.png]]")
    assert text.startswith(
        "### [retrieval-pipeline.png](mem:assets/retrieval-pipeline.png:0)\n\n"
        "Attachment `assets/retrieval-pipeline.png`"
    )
    assert "**outlinks (0)**" in text and "**inlinks (2)**" in text


def test_uris_with_spaces_are_wrapped_so_the_link_stays_whole(fixture_engine: Engine) -> None:
    text = hover_at(fixture_engine, "index.md", "<search/query understanding.md#Spelling")
    assert text.startswith(
        "### [Query understanding › Spelling correction](<mem:search/query understanding.md:7>)"
    )
    assert "Edit distance over the vocabulary" in text and "同义词扩展" not in text


def test_hover_reads_the_open_buffer(tmp_path: Path) -> None:
    engine = indexed_engine(tmp_path, {"n.md": "# N\n\nOn disk.\n", "src.md": "[[n]]\n"})
    engine.apply_text("n.md", "# N\n\nIn the editor.\n")
    text = hover_at(engine, "src.md", "[[n]]")
    assert "In the editor." in text and "On disk." not in text


def test_hover_on_a_tag_counts_its_notes_nested_tags_included(fixture_engine: Engine) -> None:
    text = hover_at(fixture_engine, "daily/2024-03-01.md", "#daily", into=1)
    assert text.startswith("**#daily** is on 3 notes (nested tags `#daily/…` included)\n\n")
    assert "- [2024-03-01](mem:daily/2024-03-01.md:2)\n" in text  # where the tag is written
    assert "- [周五](mem:daily/2024-03-15.md:2) — 今天整理了" in text  # in the frontmatter
    search = tag_hover(view_of(fixture_engine), "search", place_uri)
    assert search.startswith("**#search** is on 5 notes")
    for path in ("search/bm25.md", "search/hybrid-search.md", "inbox/broken-config.md"):
        assert f"(mem:{path}:" in search


def test_tag_matching_is_case_insensitive_and_stops_at_a_slash(tmp_path: Path) -> None:
    engine = indexed_engine(
        tmp_path,
        {
            "a.md": "#Project\n",
            "b.md": "---\ntags: [project/alpha]\n---\ntext\n",
            "c.md": "#projects and #project-x\n",
            "d.md": "[[a]] [[b]]\n",
        },
    )
    text = tag_hover(view_of(engine), "project", place_uri)
    assert text.startswith("**#project** is on 2 notes")
    assert "(mem:a.md:0)" in text and "(mem:b.md:1)" in text and "c.md" not in text
    assert tag_hover(view_of(engine), "nothing", place_uri).startswith("**#nothing** is on 0 notes")


def test_no_hover_off_links_and_tags(fixture_engine: Engine) -> None:
    assert hover(view_of(fixture_engine), "index.md", 8, 3, place_uri) is None
    assert hover(view_of(fixture_engine), "missing.md", 0, 0, place_uri) is None
