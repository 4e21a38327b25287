"""Rename and moves as a library (navigation/rename.py, relink.py), on vaults held in memory: each
change is applied as an editor applies it, and the result indexed again."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlsp.navigation.edits import Change
from memlsp.navigation.relink import relink
from memlsp.navigation.rename import Refused, Renamable, Subject, renamable_at, rename
from memlsp.parse.markdown import parse_markdown
from memlsp.vault.view import VaultView
from tests.helpers.memory_vault import applied, memory_view, targets

LINKS = (
    "see [[Old Name]], ![[Old Name#Method]], [[Old Name|label kept]], [[notes/Old Name#^b1]]\n"
    "| a | [[Old Name\\|in a table]] |\n"
    "[md](notes/Old%20Name.md#method) [alias](Other.md) [[Nick]] [[Other]]\n"
)
FILES = {
    "notes/Old Name.md": "---\naliases: [Nick]\n---\n# Old Name\n\n## Method\n\ntext ^b1\n",
    "index.md": LINKS,
    "notes/sibling.md": "[up](Old%20Name.md) [[./Old Name]] [[#Local]]\n\n## Local\n",
    "Other.md": "# Other\n[[Old Name]]\n",
}


def at(
    view: VaultView, files: dict[str, str], path: str, needle: str, offset: int = 1
) -> Renamable:
    lines = files[path].split("\n")
    line = next(i for i, text in enumerate(lines) if needle in text)
    return renamable_at(view, path, lines, line, lines[line].index(needle) + offset)


def renamed(
    files: dict[str, str], path: str, needle: str, new: str, offset: int = 1
) -> dict[str, str]:
    view = memory_view(files)
    return applied(files, rename(view, at(view, files, path, needle, offset), new))


def test_a_note_renamed_from_a_link_rewrites_every_form_of_link_to_it() -> None:
    after = renamed(FILES, "index.md", "[[Old Name]]", "New: Name".replace(":", ""))
    assert "notes/Old Name.md" not in after
    assert after["index.md"] == (
        "see [[New Name]], ![[New Name#Method]], [[New Name|label kept]], [[notes/New Name#^b1]]\n"
        "| a | [[New Name\\|in a table]] |\n"
        "[md](notes/New%20Name.md#method) [alias](Other.md) [[Nick]] [[Other]]\n"
    )
    assert after["notes/sibling.md"].startswith("[up](New%20Name.md) [[./New Name]] [[#Local]]")
    assert after["notes/New Name.md"].split("\n")[3] == "# New Name"  # the H1 was its name
    assert after["Other.md"] == "# Other\n[[New Name]]\n"


def test_after_a_note_rename_every_former_inlink_resolves_to_it_and_nothing_else_moved() -> None:
    before = memory_view(FILES)
    after = memory_view(renamed(FILES, "index.md", "[[Old Name]]", "New Name"))
    moved = {"notes/Old Name.md": "notes/New Name.md"}
    expected = {
        key: tuple(moved.get(t, t) for t in found) for key, found in targets(before).items()
    }
    assert targets(after) == {
        (moved.get(source, source), line, column): found
        for (source, line, column), found in expected.items()
    } | {k: v for k, v in targets(after).items() if k not in _moved_keys(expected, moved)}


def _moved_keys(
    expected: dict[tuple[str, int, int], tuple[str, ...]], moved: dict[str, str]
) -> set[tuple[str, int, int]]:
    return {(moved.get(source, source), line, column) for source, line, column in expected}


def test_inlinks_land_on_the_renamed_note_with_their_columns_shifted() -> None:
    after = memory_view(renamed(FILES, "index.md", "[[Old Name]]", "New Name"))
    inlinks = {(item.source, item.link.target) for item in after.graph.inlinks("notes/New Name.md")}
    assert inlinks >= {
        ("index.md", "New Name"),
        ("index.md", "notes/New Name"),
        ("index.md", "notes/New Name.md"),
        ("index.md", "Nick"),
        ("notes/sibling.md", "New Name.md"),
        ("notes/sibling.md", "./New Name"),
        ("Other.md", "New Name"),
    }
    assert not [p for p in after.graph.notes if after.graph.outlinks(p) and _unresolved(after, p)]


def _unresolved(view: VaultView, path: str) -> list[str]:
    return [i.link.target for i in view.graph.outlinks(path) if not i.resolution.targets]


def test_rename_from_the_h1_or_a_markdown_link_is_the_same_rename() -> None:
    from_h1 = renamed(FILES, "notes/Old Name.md", "# Old Name", "New Name", 3)
    from_markdown = renamed(FILES, "index.md", "(notes/Old", "New Name", 3)
    assert from_h1 == from_markdown == renamed(FILES, "index.md", "[[Old Name]]", "New Name")


def test_a_name_taken_or_refused_by_obsidian_is_refused_with_the_reason() -> None:
    files = FILES | {"notes/Taken.md": "# Taken\n"}
    view = memory_view(files)
    what = at(view, files, "index.md", "[[Old Name]]")
    with pytest.raises(Refused, match=r"notes/Taken\.md already exists"):
        rename(view, what, "taken")
    for bad in ("a/b", "what?", "x#y", "[x]", "", ".hidden"):
        with pytest.raises(Refused):
            rename(view, what, bad)
    assert rename(view, what, "Old Name.md") == Change()  # `.md` is allowed and means no change


def test_an_unresolved_link_or_plain_text_has_nothing_to_rename() -> None:
    files = {"a.md": "[[missing]] plain text\n"}
    view = memory_view(files)
    with pytest.raises(Refused, match="leads to no note"):
        at(view, files, "a.md", "[[missing]]")
    with pytest.raises(Refused, match="Nothing to rename here"):
        at(view, files, "a.md", "plain")


def test_a_note_renamed_to_a_name_another_note_answers_to_keeps_that_notes_links() -> None:
    files = {
        "a/Old.md": "# Old\n",
        "b/Topic.md": "# Topic\n",
        "b/reader.md": "[[Topic]] [[Old]]\n",
        "a/reader.md": "[[Topic]]\n",
    }
    after = renamed(files, "b/reader.md", "[[Old]]", "Topic")
    view = memory_view(after)
    assert [i.resolution.targets[0] for i in view.graph.outlinks("b/reader.md")] == [
        "b/Topic.md",
        "a/Topic.md",
    ]
    assert view.graph.outlinks("a/reader.md")[0].resolution.targets[0] == "b/Topic.md"


def test_a_heading_renamed_rewrites_wikilink_anchors_and_markdown_slugs() -> None:
    after = renamed(FILES, "notes/Old Name.md", "## Method", "Better method", 4)
    assert after["notes/Old Name.md"].split("\n")[5] == "## Better method"
    assert "![[Old Name#Better method]]" in after["index.md"]
    assert "(notes/Old%20Name.md#better-method)" in after["index.md"]
    from_link = renamed(FILES, "index.md", "#Method", "Better method", 2)
    assert from_link == after


def test_a_nested_heading_path_renames_the_part_that_names_it() -> None:
    files = {
        "n.md": "# A\n## B\n# C\n## B\n",
        "r.md": "[[n#A#B]] [[n#C#B]] [[#Mine]]\n## Mine\n",
    }
    after = renamed(files, "n.md", "## B", "D", 3)
    assert after["n.md"] == "# A\n## D\n# C\n## B\n"
    assert after["r.md"].startswith("[[n#A#D]] [[n#C#B]]")
    local = renamed(files, "r.md", "[[#Mine]]", "Yours", 3)
    assert local["r.md"] == "[[n#A#B]] [[n#C#B]] [[#Yours]]\n## Yours\n"


def test_a_block_id_renamed_with_its_links() -> None:
    after = renamed(FILES, "notes/Old Name.md", "^b1", "key-point", 2)
    assert after["notes/Old Name.md"].endswith("text ^key-point\n")
    assert "[[notes/Old Name#^key-point]]" in after["index.md"]
    view = memory_view(FILES)
    with pytest.raises(Refused, match="letters, digits"):
        rename(view, at(view, FILES, "notes/Old Name.md", "^b1", 2), "no spaces")


def test_a_tag_renamed_everywhere_with_its_children_inline_and_in_frontmatter() -> None:
    files = {
        "a.md": "---\ntags: [项目/旧, other]\n---\n今天。#项目/旧 和 #项目/旧/子 #项目/旧的\n",
        "b.md": "---\ntags:\n  - 项目/旧/子\n  - '#项目/旧'\n---\n`#项目/旧` in code\n",
    }
    after = renamed(files, "a.md", "#项目/旧 和", "#项目/新", 2)
    assert (
        after["a.md"]
        == "---\ntags: [项目/新, other]\n---\n今天。#项目/新 和 #项目/新/子 #项目/旧的\n"
    )
    assert after["b.md"] == "---\ntags:\n  - 项目/新/子\n  - '#项目/新'\n---\n`#项目/旧` in code\n"
    from_front = renamed(files, "b.md", "'#项目/旧'", "项目/新", 3)
    assert from_front == after
    view = memory_view(files)
    with pytest.raises(Refused, match="is not a tag"):
        rename(view, at(view, files, "a.md", "#项目/旧 和", 2), "two words")


def test_moving_a_folder_keeps_links_into_it_and_relative_links_out_of_it() -> None:
    files = {
        "projects/plan.md": "[[projects/goal]] [up](../index.md) [[../index]] [[goal]]\n",
        "projects/goal.md": "# Goal\n",
        "index.md": "[p](projects/plan.md) [[projects/plan]] [[plan]]\n",
    }
    moves = {"projects/plan.md": "archive/2026/plan.md", "projects/goal.md": "archive/2026/goal.md"}
    view = memory_view(files)
    after = applied(files, Change(tuple(relink(view, moves))))
    after = {moves.get(path, path): text for path, text in after.items()}
    assert after["archive/2026/plan.md"] == (
        "[[archive/2026/goal]] [up](../../index.md) [[../../index]] [[goal]]\n"
    )
    assert after["index.md"] == "[p](archive/2026/plan.md) [[archive/2026/plan]] [[plan]]\n"
    moved = memory_view(after)
    assert all(i.resolution.targets for p in moved.graph.notes for i in moved.graph.outlinks(p))


# -- a rename and its reverse restore every byte -------------------------------------------------

NAMES = ["Alpha", "beta note", "Gamma", "δέλτα", "向量检索", "e"]
FOLDERS = ["", "x/", "x/y/"]


@st.composite
def vaults(draw: st.DrawFn) -> dict[str, str]:
    paths = draw(
        st.lists(
            st.tuples(st.sampled_from(FOLDERS), st.sampled_from(NAMES)),
            min_size=2,
            max_size=6,
            unique=True,
        )
    )
    notes = [folder + name + ".md" for folder, name in paths]
    files = {}
    for path in notes:
        lines = [f"# {path.rsplit('/', 1)[-1][:-3]}", "", "## Part one", "text ^blk"]
        for _ in range(draw(st.integers(0, 5))):
            target = draw(st.sampled_from(notes))
            lines.append(draw(_link_to(path, target)))
        files[path] = "\n".join(lines) + "\n"
    return files


@st.composite
def _link_to(draw: st.DrawFn, source: str, target: str) -> str:
    import posixpath

    from memlsp.vault.linktext import markdown_destination

    stem = target[:-3]
    name = stem.rsplit("/", 1)[-1]
    anchor = draw(st.sampled_from(["", "#Part one", "#^blk"]))
    forms = [
        f"[[{name}{anchor}]]",
        f"![[{stem}{anchor}|shown]]",
        f"[[{stem}.md{anchor}]]",
        f"[t]({markdown_destination(source, target)}{'#part-one' if anchor == '#Part one' else ''})",
        f"[r](/{markdown_destination('', target)})",
    ]
    destination = markdown_destination(source, target)
    if not destination.startswith("../"):
        forms.append(f"[d](./{destination})")
    relative = posixpath.relpath(stem, posixpath.dirname(source) or ".")
    forms.append(f"[[{relative if relative.startswith('../') else './' + relative}]]")
    return draw(st.sampled_from(forms))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=vaults(), data=st.data())
def test_a_note_rename_and_its_reverse_restore_every_byte(
    files: dict[str, str], data: st.DataObject
) -> None:
    notes = sorted(files)
    path = data.draw(st.sampled_from(notes))
    new_name = data.draw(st.sampled_from(["Renamed", "另一个名字", "with space"]))
    old_name = path.rsplit("/", 1)[-1][:-3]
    new_path = path[: len(path) - len(old_name) - 3] + new_name + ".md"
    if new_path.casefold() in {p.casefold() for p in notes}:
        return
    view = memory_view(files)
    before = targets(view)
    forward = rename(view, _note(view, path), new_name)
    after = applied(files, forward)
    moved_view = memory_view(after)
    moves = {path: new_path}
    # every link leads where it led
    assert sorted(targets(moved_view).values()) == sorted(
        tuple(moves.get(t, t) for t in found) for found in before.values()
    )
    back = rename(moved_view, _note(moved_view, new_path), old_name)
    assert applied(after, back) == files


def _note(view: VaultView, path: str) -> Renamable:
    note = view.graph.notes[path]
    assert parse_markdown(path, view.read(path) or "").headings[0].line == 0
    name = path.rsplit("/", 1)[-1][:-3]
    from memlsp.model import Span

    return Renamable(Subject.NOTE, Span(0, 2, 2 + len(name)), name, note.path)


def test_an_h1_in_another_case_than_the_name_is_a_title_of_its_own_and_stays() -> None:
    files = {"tags.md": "# Tags\n", "a.md": "[[tags]]\n"}
    after = renamed(files, "a.md", "[[tags]]", "labels")
    assert after == {"labels.md": "# Tags\n", "a.md": "[[labels]]\n"}
