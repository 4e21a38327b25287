"""The hover's preview links what the note links, and counts what leads nowhere; a frontmatter
tag has the tag hover; the code lens counts notes, not links (navigation/hover.py, counts.py)."""

from __future__ import annotations

from memlsp.navigation.counts import LinkCounts, lens_title, link_counts
from memlsp.navigation.hover import hover
from tests.helpers.memory_vault import memory_view
from tests.helpers.vault import place_uri

FILES = {
    "src.md": "see [[target]]\n",
    "target.md": (
        "# Target\n\n"
        "Read [[a|the A note]], ![[pic.png]], [b](sub/b.md#part) and [[nope]].\n"
        "Forged \ue0000\ue001 stays text; [[a]] again, `[[a]]` in code.\n"
        "Twice [[a]] [[b#^blk]] [[gone]] [[gone]] [[outside/../../x]]\n"
    ),
    "a.md": "# A\n[[target]]\n",
    "sub/b.md": "# B\n## Part\ntext ^blk\n",
    "pic.png": "",
}


def on_link(files: dict[str, str], path: str, needle: str) -> str:
    lines = files[path].split("\n")
    line = next(i for i, text in enumerate(lines) if needle in text)
    found = hover(memory_view(files), path, line, lines[line].index(needle) + 2, place_uri)
    assert found is not None
    return found


def test_the_preview_links_each_link_of_the_note_to_where_it_goes() -> None:
    text = on_link(FILES, "src.md", "[[target]]")
    assert "Read [the A note](mem:a.md:0), [pic.png](mem:pic.png:0)," in text
    assert "[b](mem:sub/b.md:1) and \\[\\[nope\\]\\]." in text  # a missing note stays text
    assert "Forged \ufffd0\ufffd stays text; [a](mem:a.md:0) again, `[[a]]` in code." in text
    assert "[b › ^blk](mem:sub/b.md:2)" in text


def test_the_outlinks_header_counts_the_names_that_lead_nowhere() -> None:
    text = on_link(FILES, "src.md", "[[target]]")
    assert "**outlinks (3, 3 unresolved)**" in text  # nope, gone (twice), the one outside


def test_link_counts_count_notes_once_and_leave_out_the_note_itself() -> None:
    files = FILES | {"a.md": "# A\n[[target]] [[target#Target]] [[#A]]\n"}
    view = memory_view(files)
    assert link_counts(view, "target.md") == LinkCounts(inlinks=2, outlinks=3, unresolved=3)
    assert link_counts(view, "a.md") == LinkCounts(inlinks=1, outlinks=1, unresolved=0)
    assert lens_title(link_counts(view, "a.md")) == "1 inlink · 1 outlink"
    assert lens_title(LinkCounts(0, 2, 1)) == "0 inlinks · 2 outlinks · 1 unresolved"


def test_a_frontmatter_tag_has_the_tag_hover() -> None:
    files = {"n.md": "---\ntags: [项目/旧, '#other']\n---\n正文。#待办/某天\n", "m.md": "#项目\n"}
    text = on_link(files, "n.md", "项目/旧")
    assert text.startswith("**#项目/旧** is on 1 note")
    assert on_link(files, "n.md", "#other").startswith("**#other** is on 1 note")
    assert on_link(files, "n.md", "#待办/某天").startswith("**#待办/某天** is on 1 note")
