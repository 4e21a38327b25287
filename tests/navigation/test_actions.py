"""Quick fixes for links as a library (navigation/actions.py), on a small hand-built vault."""

from __future__ import annotations

from memlsp.engine.engine import Engine
from memlsp.navigation.actions import SAME_FOLDER, Action, actions_at
from memlsp.vault.linktext import leads_only_to
from tests.helpers.fixtures import engine_fixture

NOTE = "# Source\n[[Later]] [[ideas|my ideas]] [[Target#Methd]] [x](sub/New%20one.md) [[a:b]]\n"


engine = engine_fixture(
    "actions",
    {
        "notes/Source.md": NOTE,
        "Target.md": "# Target\n\n## Method\n\n## Results\n",
        "travel/ideas.md": "# Travel ideas\n",
        "cooking/ideas.md": "# Cooking ideas\n",
    },
)


def on(engine: Engine, needle: str, folder: str = "") -> list[Action]:
    lines = NOTE.split("\n")
    column = lines[1].index(needle) + 2
    return actions_at(engine.read().view, "notes/Source.md", lines, 1, column, column, folder)


def applied(line: str, action: Action) -> str:
    [edit] = action.edits
    return line[: edit.span.start] + edit.new_text + line[edit.span.end :]


def test_create_note_where_the_setting_says(engine: Engine) -> None:
    [root] = on(engine, "[[Later]]")
    assert (root.title, root.creates) == ("Create note Later.md", "Later.md")
    assert [(e.path, e.new_text) for e in root.edits] == [("Later.md", "# Later\n")]
    [beside] = on(engine, "[[Later]]", SAME_FOLDER)
    assert beside.creates == "notes/Later.md"
    [fixed] = on(engine, "[[Later]]", "Inbox/new")
    assert fixed.creates == "Inbox/new/Later.md"
    assert on(engine, "[[Later]]", "../outside") == []  # never out of the vault
    # A Markdown link's path as written, from the linking note's folder, decoded.
    [markdown] = on(engine, "[x](sub")
    assert markdown.creates == "notes/sub/New one.md"
    assert on(engine, "[[a:b]]") == []  # a name Obsidian refuses


def test_an_ambiguous_link_offers_each_candidate_written_to_mean_it_only(engine: Engine) -> None:
    actions = on(engine, "[[ideas")
    assert [a.title for a in actions] == [
        "Link to travel/ideas.md (the note it opens now)",
        "Link to cooking/ideas.md",
    ]
    line = NOTE.split("\n")[1]
    table = engine.read().view.graph.table
    for action, target in zip(actions, ("travel/ideas.md", "cooking/ideas.md"), strict=True):
        rewritten = applied(line, action)
        assert f"[[{target[:-3]}|my ideas]]" in rewritten  # the label kept
        assert leads_only_to(table, "notes/Source.md", target[:-3], target)


def test_a_missing_heading_offers_the_closest_ones(engine: Engine) -> None:
    actions = on(engine, "[[Target#")
    assert actions[0].title == "Link to heading “Method”" and actions[0].preferred
    assert "[[Target#Method]]" in applied(NOTE.split("\n")[1], actions[0])
