"""Unlinked mentions (queries/mentions.py, navigation/mentions.py, parse/names_in_text.py, parse/word_cuts.py): which
plain-text names count, the fixes and hints built on them, and `memlsp mentions`."""

from __future__ import annotations

import json
import time
from itertools import pairwise
from pathlib import Path

import pytest

from memlsp.cli import main
from memlsp.navigation.diagnostics import Code, Severity
from memlsp.navigation.edits import Change
from memlsp.navigation.mentions import (
    link_all_action,
    link_edit,
    mention_actions,
    mention_problems,
    mentions_in,
    note_mentions,
)
from memlsp.parse.markdown import split_lines
from memlsp.parse.word_cuts import NO_EXTRA_WORDS, cuts, extra_words
from memlsp.queries.mentions import (
    MENTIONS_LIMIT,
    NAMES_PER_NOTE,
    MentionsAnswer,
    mentions_of,
    name_index,
    names_of,
)
from memlsp.vault.view import VaultView
from tests.helpers.engine import indexed_engine
from tests.helpers.memory_vault import applied, memory_view
from tests.helpers.vault import write


def _found(files: dict[str, str], path: str, min_length: int = 3) -> list[tuple[str, str]]:
    """(text as written, first target) of each mention in `path`."""
    view = memory_view(files)
    return [
        (m.text, m.targets[0]) for m in mentions_in(view, path, name_index(view.graph, min_length))
    ]


def _with(text: str, *names: str) -> dict[str, str]:
    files = {f"{name}.md": f"# {name}\n" for name in names}
    files["n.md"] = text
    return files


def _every_note(view: VaultView) -> object:
    return lambda names: list(view.graph.notes)


# -- what counts -------------------------------------------------------------------------------


def test_a_name_in_prose_is_found_case_insensitively_but_not_inside_markup() -> None:
    text = (
        "---\ntitle: BM25 in the frontmatter\nsummary: BM25\n---\n"
        "# Why BM25 works\n"
        "- bm25 in a list item, Bm25 again.\n"
        "Not in [[bm25]], [BM25](bm25.md), [[other|BM25]], `BM25`, $BM25$, #BM25, <!-- BM25 -->.\n"
        "Not in https://example.com/BM25 or <https://x.org/BM25> or www.bm25.org.\n"
        "```\nBM25 in a fence\n```\n"
        "    \n"
    )
    found = _found(_with(text, "bm25", "other"), "n.md")
    assert found == [("BM25", "bm25.md"), ("bm25", "bm25.md"), ("Bm25", "bm25.md")]


def test_latin_names_match_on_word_boundaries_only() -> None:
    text = "BM25s and xBM25 and BM25_x miss; (BM25), BM25. and 用BM25检索 hit."
    assert [t for t, _ in _found(_with(text, "bm25"), "n.md")] == ["BM25", "BM25", "BM25"]


def test_a_multi_word_name_matches_any_run_of_spaces_and_the_longest_name_wins() -> None:
    text = "Machine   learning is fun; learning\talone too; Machine learning."
    found = _found(_with(text, "machine learning", "learning"), "n.md")
    assert found == [
        ("Machine   learning", "machine learning.md"),
        ("learning", "learning.md"),
        ("Machine learning", "machine learning.md"),
    ]
    # Not across code, a link or a line break.
    text = "Machine `x` learning, Machine [[x]] learning, Machine\nlearning"
    assert [t for t, _ in _found(_with(text, "machine learning"), "n.md")] == []


def test_names_with_punctuation_and_mixed_names_are_bounded_at_their_ends() -> None:
    text = "C++ and C++11, Node.js not Node.jsx, GPT-4 模型很好, GPT-4 模型库 no."
    found = _found(_with(text, "C++", "Node.js", "GPT-4 模型"), "n.md")
    assert found == [
        ("C++", "C++.md"),
        ("C++", "C++.md"),  # the name ends with `+`: nothing after it is read as its word
        ("Node.js", "Node.js.md"),
        ("GPT-4 模型", "GPT-4 模型.md"),
    ]


def test_a_note_does_not_mention_itself() -> None:
    files = {"bm25.md": "# BM25\nBM25 ranks words.\n", "n.md": "About BM25.\n"}
    assert _found(files, "bm25.md") == []
    assert _found(files, "n.md") == [("BM25", "bm25.md")]


def test_a_mention_of_a_note_already_linked_is_still_reported() -> None:
    assert _found(_with("See [[bm25]]; BM25 is old.", "bm25"), "n.md") == [("BM25", "bm25.md")]


def test_a_shared_name_gives_one_mention_with_every_note() -> None:
    files = {"a/Topic.md": "", "b/Topic.md": "", "n.md": "A topic here."}
    view = memory_view(files)
    (mention,) = mentions_in(view, "n.md", name_index(view.graph, 3))
    assert mention.targets == ("a/Topic.md", "b/Topic.md")


def test_aliases_are_names_too() -> None:
    files = {
        "hybrid.md": "---\naliases: [混合检索, Fusion Search]\n---\n",
        "n.md": "用混合检索和 fusion search。",
    }
    assert _found(files, "n.md") == [("混合检索", "hybrid.md"), ("fusion search", "hybrid.md")]


def test_short_names_and_common_words_are_not_looked_for() -> None:
    files = _with("AI, RRF, 向量, 书, the, The, 什么", "AI", "RRF", "向量", "书", "the", "什么")
    assert [t for t, _ in _found(files, "n.md")] == ["RRF", "向量"]
    assert [t for t, _ in _found(files, "n.md", min_length=2)] == ["AI", "RRF", "向量", "书"]


# -- Chinese: jieba's cut with the vault's names added -------------------------------------------


def _words(text: str, *names: str) -> list[str]:
    positions = cuts(text, extra_words(names) if names else NO_EXTRA_WORDS)
    return [text[a:b] for a, b in pairwise(positions)]


def test_jieba_alone_cuts_a_new_name_apart_and_the_name_added_keeps_it_whole() -> None:
    assert _words("我的知识花园里") == ["我", "的", "知识", "花园里"]
    assert _words("我的知识花园里", "知识花园") == ["我", "的", "知识花园", "里"]
    assert _found(_with("我的知识花园里", "知识花园"), "n.md") == [("知识花园", "知识花园.md")]


def test_a_name_inside_a_longer_dictionary_word_is_not_a_mention() -> None:
    assert _words("人工智能是未来", "智能") == ["人工智能", "是", "未来"]
    assert _found(_with("人工智能是未来, 智能是一种能力", "智能"), "n.md") == [("智能", "智能.md")]


def test_a_dictionary_name_keeps_jiebas_judgement() -> None:
    # 研究生 is a word of its own, but not in 研究生命 (研究 | 生命).
    assert _found(_with("研究生命的起源。我是研究生。", "研究生"), "n.md") == [
        ("研究生", "研究生.md")
    ]


def test_machine_learning_is_not_in_jiebas_dictionary_but_a_longer_note_name_wins() -> None:
    # 机器学习 is cut 机器 | 学习 by jieba: 学习 alone is a mention there ...
    assert _found(_with("机器学习很有趣", "学习"), "n.md") == [("学习", "学习.md")]
    # ... unless the vault has a note named 机器学习: the longer name is the mention.
    assert _found(_with("机器学习很有趣", "学习", "机器学习"), "n.md") == [
        ("机器学习", "机器学习.md")
    ]


def test_the_global_jieba_dictionary_is_not_changed() -> None:
    import jieba

    before = len(jieba.dt.FREQ)
    _found(_with("我的知识花园里", "知识花园"), "n.md")
    assert len(jieba.dt.FREQ) == before and "知识花园" not in jieba.dt.FREQ


# -- columns -------------------------------------------------------------------------------------


def test_spans_are_code_point_columns_with_other_units_for_clients() -> None:
    files = _with("😀 中文 Straße BM25", "bm25", "straße")
    view = memory_view(files)
    mentions = mentions_in(view, "n.md", name_index(view.graph, 3))
    assert [(m.text, m.span.start, m.span.end) for m in mentions] == [
        ("Straße", 5, 11),
        ("BM25", 12, 16),
    ]
    assert mentions[1].span.columns("utf-16") == (13, 17)
    # Case folding lengthens ß (ss): the columns are still those of the text as written.
    assert _found(_with("STRASSE und Strasse", "straße"), "n.md") == [
        ("STRASSE", "straße.md"),
        ("Strasse", "straße.md"),
    ]


# -- edits and actions -----------------------------------------------------------------------------


def test_link_edit_writes_the_name_alone_when_the_text_is_it_else_a_label() -> None:
    files = {
        "BM25.md": "",
        "notes/deep/Topic.md": "",
        "x/Topic.md": "",
        "n.md": "BM25, bm25, topic",
    }
    view = memory_view(files)
    mentions = mentions_in(view, "n.md", name_index(view.graph, 3))
    assert [link_edit(view, m, m.targets[0]).new_text for m in mentions] == [
        "[[BM25]]",
        "[[BM25|bm25]]",
        "[[deep/Topic|topic]]",
    ]
    assert link_edit(view, mentions[2], "x/Topic.md").new_text == "[[x/Topic|topic]]"


def test_mention_actions_offer_each_target_and_linking_all_of_one_name() -> None:
    files = {
        "bm25.md": "",
        "a/Topic.md": "",
        "b/Topic.md": "",
        "n.md": "BM25 and BM25 again.\nA topic, bm25.",
    }
    view = memory_view(files)
    lines = split_lines(files["n.md"])
    mentions = note_mentions(view, "n.md", lines, 3)
    actions = mention_actions(view, mentions, "n.md", 0, 1, 1)
    assert [(a.title, a.preferred, a.fixes) for a in actions] == [
        ("Link “BM25” to [[bm25]]", True, Code.UNLINKED_MENTION),
        ("Link all 3 mentions of “BM25” in this note", False, Code.UNLINKED_MENTION),
    ]
    after = applied(files, actions[1].change)
    assert after["n.md"] == "[[bm25|BM25]] and [[bm25|BM25]] again.\nA topic, [[bm25]]."
    shared = mention_actions(view, mentions, "n.md", 1, 3, 3)
    assert [(a.title, a.preferred) for a in shared] == [
        ("Link “topic” to [[a/Topic]]", False),
        ("Link “topic” to [[b/Topic]]", False),
    ]


def test_link_all_covers_every_note_and_several_mentions_on_one_line() -> None:
    files = {
        "bm25.md": "# BM25\n",
        "a/Topic.md": "BM25 BM25 BM25, and BM25.\n",
        "b/Topic.md": "",
        "c.md": "bm25 or [[bm25]].\n",
        "d.md": "A topic beside BM25.\n",
    }
    view = memory_view(files)
    answer = mentions_of(view, "bm25.md", _every_note(view), 3)  # type: ignore[arg-type]
    assert [(m.path, m.span.line, m.span.start) for m in answer.mentions] == [
        ("a/Topic.md", 0, 0),
        ("a/Topic.md", 0, 5),
        ("a/Topic.md", 0, 10),
        ("a/Topic.md", 0, 20),
        ("c.md", 0, 0),
        ("d.md", 0, 15),
    ]
    action = link_all_action(view, answer)
    assert action is not None and action.title == "Link all 6 unlinked mentions of bm25"
    after = applied(files, action.change)
    assert after["a/Topic.md"] == "[[bm25|BM25]] [[bm25|BM25]] [[bm25|BM25]], and [[bm25|BM25]].\n"
    assert after["c.md"] == "[[bm25]] or [[bm25]].\n"
    after_view = memory_view(after)
    again = mentions_of(after_view, "bm25.md", _every_note(after_view), 3)  # type: ignore[arg-type]
    assert again.mentions == ()


def test_link_all_leaves_shared_names_out_and_says_so() -> None:
    files = {"a/Topic.md": "", "b/Topic.md": "", "n.md": "topic", "m.md": "topic too"}
    view = memory_view(files)
    answer = mentions_of(view, "a/Topic.md", _every_note(view), 3)  # type: ignore[arg-type]
    assert len(answer.mentions) == 2 and link_all_action(view, answer) is None
    mixed = MentionsAnswer(
        "a/Topic.md",
        (
            *answer.mentions,
            answer.mentions[0].__class__("n.md", answer.mentions[0].span, "topic", ("a/Topic.md",)),
        ),
    )
    action = link_all_action(view, mixed)
    assert action is not None
    assert action.title == "Link all 1 unlinked mentions of Topic (2 of a shared name left out)"


def test_problems_are_hints_naming_the_notes() -> None:
    files = {"bm25.md": "", "a/Topic.md": "", "b/Topic.md": "", "n.md": "BM25 topic"}
    view = memory_view(files)
    problems = mention_problems(mentions_in(view, "n.md", name_index(view.graph, 3)), Severity.HINT)
    assert [(p.message, p.code, p.severity, p.candidates) for p in problems] == [
        ("“BM25” could link to [[bm25]]", Code.UNLINKED_MENTION, Severity.HINT, ("bm25.md",)),
        (
            "“topic” could link to [[a/Topic]] or [[b/Topic]]",
            Code.UNLINKED_MENTION,
            Severity.HINT,
            ("a/Topic.md", "b/Topic.md"),
        ),
    ]


# -- bad input: answers stay small and quick ------------------------------------------------------


def test_thousands_of_mentions_are_capped_with_a_count_of_the_rest() -> None:
    files = {"bm25.md": "", "n.md": "BM25 " * 3000, "m.md": "BM25\n" * 500}
    view = memory_view(files)
    started = time.perf_counter()
    answer = mentions_of(view, "bm25.md", _every_note(view), 3)  # type: ignore[arg-type]
    assert time.perf_counter() - started < 20  # measured in benchmarks; this only catches a hang
    # m.md comes first and fills the list: its other mentions are counted, n.md is not read.
    assert len(answer.mentions) == MENTIONS_LIMIT and answer.left_out == 500 - MENTIONS_LIMIT
    assert answer.unread == 1


def test_a_name_written_everywhere_stops_the_reading_once_the_list_is_full() -> None:
    files = {"因为.md": "", **{f"n{i:03}.md": "因为下雨，我们没去。" for i in range(700)}}
    view = memory_view(files)
    answer = mentions_of(view, "因为.md", _every_note(view), 3)  # type: ignore[arg-type]
    assert len(answer.mentions) == MENTIONS_LIMIT
    assert answer.mentions[-1].path == f"n{MENTIONS_LIMIT - 1:03}.md"
    # One note past the full list is read (its mention is counted), the others are not.
    unread = 700 - MENTIONS_LIMIT - 1
    assert (answer.left_out, answer.unread) == (1, unread)
    assert answer.warning == f"{unread} more notes may name it too; they were not read"


def test_one_letter_and_common_word_names_are_not_looked_for() -> None:
    files = {"a.md": "", "x.md": "", "and.md": "", "n.md": "a x and " * 5000}
    view = memory_view(files)
    assert mentions_in(view, "n.md", name_index(view.graph, 3)) == ()
    answer = mentions_of(view, "and.md", _every_note(view), 3)  # type: ignore[arg-type]
    assert answer.mentions == () and "no name" in answer.warning


def test_a_thousand_aliases_are_cut_to_the_first_ones() -> None:
    aliases = ", ".join(f"alias{i:04d}" for i in range(1000))
    files = {"aliased.md": f"---\naliases: [{aliases}]\n---\n", "n.md": "alias0001 and alias0999\n"}
    view = memory_view(files)
    names = name_index(view.graph, 3)
    assert len(names.names["aliased.md"]) == NAMES_PER_NOTE
    assert [m.text for m in mentions_in(view, "n.md", names)] == ["alias0001"]
    answer = mentions_of(view, "aliased.md", _every_note(view), 3)  # type: ignore[arg-type]
    assert [m.text for m in answer.mentions] == ["alias0001"]
    assert f"first {NAMES_PER_NOTE} names" in answer.warning


def test_a_frozen_graphs_names_are_built_once_per_min_length() -> None:
    view = memory_view({"bm25.md": ""})
    assert name_index(view.graph, 3) is name_index(view.graph, 3)
    assert name_index(view.graph, 3) is not name_index(view.graph, 5)


def test_edits_of_a_change_on_one_line_do_not_overlap() -> None:
    files = {"bm25.md": "", "rrf.md": "", "n.md": "BM25 RRF BM25 RRF"}
    view = memory_view(files)
    names = name_index(view.graph, 3)
    edits = tuple(link_edit(view, m, m.targets[0]) for m in mentions_in(view, "n.md", names))
    assert (
        applied(files, Change(edits))["n.md"]
        == "[[bm25|BM25]] [[rrf|RRF]] [[bm25|BM25]] [[rrf|RRF]]"
    )


# -- the command line, over a real index -----------------------------------------------------------


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root, ".memlsp.toml", 'embedder = "none"\n')
    write(root, "bm25.md", "---\naliases: [词频检索]\n---\n# BM25\n")
    write(root, "a.md", "We rank with BM25, see [[bm25]].\n")
    write(root, "b.md", "# Notes\n\n用词频检索，`BM25` 不算。\n")
    write(root, "c.md", "Nothing here.\n")
    return root


def test_memlsp_mentions_prints_each_mention_and_json(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "c"
    code = main(["mentions", str(vault), "bm25", "--cache-dir", str(cache), "--no-daemon"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines() == [
        "bm25.md",
        "a.md:1:14  BM25  -> bm25.md",
        "b.md:3:2  词频检索  -> bm25.md",
        "2 unlinked mentions",
    ]
    code = main(["mentions", str(vault), "bm25.md", "--json", "--cache-dir", str(cache)])
    data = json.loads(capsys.readouterr().out)
    assert data == {
        "note": "bm25.md",
        "mentions": [
            {
                "path": "a.md",
                "line": 1,
                "start": 14,
                "end": 18,
                "text": "BM25",
                "targets": ["bm25.md"],
            },
            {
                "path": "b.md",
                "line": 3,
                "start": 2,
                "end": 6,
                "text": "词频检索",
                "targets": ["bm25.md"],
            },
        ],
        "left_out": 0,
    }


def test_memlsp_mentions_of_an_unknown_note_is_a_usage_error(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["mentions", str(vault), "nope", "--cache-dir", str(tmp_path / "c")])
    assert code == 2 and "no note 'nope'" in capsys.readouterr().err


def test_a_snapshot_finds_mentions_once_per_revision(tmp_path: Path) -> None:
    """`Snapshot.mentions` and a note's own mentions are asked of the snapshot's memo: a lens, a
    code action and a picker on one revision share one answer."""
    engine = indexed_engine(tmp_path, {"bm25.md": "# BM25\n", "n.md": "BM25 here.\n"})
    snapshot = engine.read()
    answer = snapshot.mentions("bm25.md")
    assert [(m.path, m.text) for m in answer.mentions] == [("n.md", "BM25")]
    assert snapshot.mentions("bm25.md") is answer
    min_length = snapshot.settings.mention_min_length
    found = mentions_of(snapshot.view, "bm25.md", snapshot.candidates_for_names, min_length)
    assert found == answer
    lines = ["BM25 here."]
    own = note_mentions(snapshot.view, "n.md", lines, min_length)
    assert own is note_mentions(snapshot.view, "n.md", lines, min_length)
    assert names_of(snapshot.view, min_length) is names_of(snapshot.view, min_length)
    # Each request reads the revision anew (with the settings of its moment): the same answer.
    assert engine.read().mentions("bm25.md") is answer
    assert names_of(engine.read().view, min_length) is names_of(snapshot.view, min_length)
    engine.apply_text("n.md", "BM25 here, and BM25.\n")  # a new revision answers anew
    assert len(engine.read().mentions("bm25.md").mentions) == 2
