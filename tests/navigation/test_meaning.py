"""Links by meaning (navigation/meaning.py) on a small embedded vault: `[[` completion offers the
notes about a typed phrase after the names, writing `[[note|phrase]]`, and a selected phrase is
offered "Link to a note about this"; neither without vectors, and never inside a link or code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memlsp.engine.engine import Engine
from memlsp.navigation.actions import REWRITE
from memlsp.navigation.completion import Kind, complete
from memlsp.navigation.meaning import NEEDS_VECTORS, is_phrase, link_about, with_meaning
from tests.helpers.engine import embedded_vault, indexed_engine
from tests.helpers.fake_embedder import FakeEmbedder

NOTES = {
    "Reciprocal Rank Fusion.md": "# Reciprocal Rank Fusion\n\nMerge ranked lists by summing "
    "inverse ranks of each document across retrievers.\n",
    "Garden.md": "# Garden\n\nTomatoes and basil grow well together in summer soil.\n",
    "向量.md": "# 向量\n\n把文本变成向量，用余弦相似度找相近的笔记。\n",
    "Writing.md": "# Writing\n\nSome text.\n",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    opened = embedded_vault(tmp_path_factory.mktemp("meaning"), NOTES, FakeEmbedder())
    yield opened
    opened.close()


def completions(engine: Engine, typed: str, after: str = "]]") -> list[tuple[str, str, str]]:
    snapshot = engine.read()
    lines = ["# Writing", "", "Some text.", "[[" + typed + after]
    line, column = 3, 2 + len(typed)
    names = complete(snapshot.view, "Writing.md", lines, line, column)
    assert names.naming == (typed, "" if after else "]]")
    found = with_meaning(snapshot.view, "Writing.md", names, column, snapshot.notes_about)
    return [(item.label, item.new_text, item.detail) for item in found.items]


def test_a_phrase_no_name_holds_is_completed_by_meaning(engine: Engine) -> None:
    items = completions(engine, "inverse ranks")
    assert items[0] == (
        "Reciprocal Rank Fusion",
        "Reciprocal Rank Fusion|inverse ranks",
        "by meaning · Reciprocal Rank Fusion.md",
    )


def test_the_closing_brackets_are_added_only_when_missing(engine: Engine) -> None:
    assert completions(engine, "inverse ranks", after="")[0][1].endswith("|inverse ranks]]")


def test_a_chinese_phrase_of_two_characters_is_a_phrase(engine: Engine) -> None:
    items = completions(engine, "余弦")
    assert ("向量", "向量|余弦", "by meaning · 向量.md") in items


def test_names_come_first_and_a_single_word_asks_nothing(engine: Engine) -> None:
    assert all("by meaning" not in detail for *_, detail in completions(engine, "garden"))
    # "rank fusion" is held by a name: the name match is offered, and not again by meaning.
    items = completions(engine, "rank fusion")
    assert items[0][:2] == ("Reciprocal Rank Fusion", "Reciprocal Rank Fusion")
    assert [i for i in items if i[0] == "Reciprocal Rank Fusion"] == items[:1]


def test_the_note_being_written_is_not_offered(engine: Engine) -> None:
    assert all(
        detail != "by meaning · Writing.md" for *_, detail in completions(engine, "some text")
    )


def test_without_vectors_only_names(tmp_path: Path) -> None:
    engine = indexed_engine(tmp_path, NOTES)
    try:
        assert engine.read().notes_about("inverse ranks", 5) is None
        assert completions(engine, "inverse ranks") == []
        snapshot = engine.read()
        lines = ["# Writing", "", "inverse ranks"]
        [greyed] = link_about(snapshot.view, "Writing.md", lines, 2, 0, 13, snapshot.notes_about)
        assert greyed.title == "Link to a note about this…" and greyed.edits == ()
        assert greyed.disabled == NEEDS_VECTORS
    finally:
        engine.close()


def test_is_phrase() -> None:
    assert is_phrase("two words") and is_phrase("余弦") and is_phrase("AI 向量")
    assert not is_phrase("word") and not is_phrase("向") and not is_phrase("x" * 300 + " y")


def actions(engine: Engine, line: str, start: int, end: int) -> list[tuple[str, str]]:
    snapshot = engine.read()
    lines = ["# Writing", "", line]
    found = link_about(snapshot.view, "Writing.md", lines, 2, start, end, snapshot.notes_about)
    assert all(action.kind == REWRITE for action in found)
    return [(action.title, action.edits[0].new_text) for action in found]


def test_a_selected_phrase_is_offered_the_notes_about_it(engine: Engine) -> None:
    line = "We merge inverse ranks of lists."
    start = line.index("inverse")
    found = actions(engine, line, start, start + len("inverse ranks"))
    assert found[0] == (
        "Link to a note about this: [[Reciprocal Rank Fusion]]",
        "[[Reciprocal Rank Fusion|inverse ranks]]",
    )


def test_nothing_is_offered_inside_links_code_or_for_a_word(engine: Engine) -> None:
    in_link = "See [[Garden|inverse ranks]] here."
    start = in_link.index("inverse")
    assert actions(engine, in_link, start, start + 13) == []
    in_code = "Run `inverse ranks` now."
    start = in_code.index("inverse")
    assert actions(engine, in_code, start, start + 13) == []
    assert actions(engine, "inverse ranks", 0, 7) == []  # one word
    assert actions(engine, "inverse ranks ", 0, 14) == []  # a selection with spaces around


def test_a_label_cannot_end_the_link_early(engine: Engine) -> None:
    line = "inverse | ranks"
    found = actions(engine, line, 0, len(line))
    assert found and all("|inverse ｜ ranks]]" in text for _, text in found)


def test_kinds_of_name_items_are_unchanged(engine: Engine) -> None:
    snapshot = engine.read()
    lines = ["[[Gard]]"]
    found = complete(snapshot.view, "Writing.md", lines, 0, 6)
    assert [(i.label, i.kind) for i in found.items] == [("Garden", Kind.NOTE)]
