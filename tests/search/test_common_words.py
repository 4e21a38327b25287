"""A question in ordinary words finds what its keyword form finds: common words (English and
Chinese function and question words) do not decide the keyword side's candidates."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.engine.engine import Engine
from memlsp.index.keyword import KeywordIndex
from memlsp.model import SearchRequest
from tests.helpers.engine import open_engine
from tests.helpers.vault import write

HOW_TO = (
    "# How to\n\n"
    "How to do it? What is it, and why do I do it the way I do? How can I tell what to do and "
    "how to do it for the one who is in it? Is it for me, or is it for you, and what of it?\n"
)
SLEEP = (
    "# Sleep\n\nNotes on sleep. A dark, cool bedroom and no late coffee help you fall asleep "
    "faster; a fixed wake-up time every morning matters more than an early night, and a short "
    "walk in daylight sets the body clock.\n"
)
RUNNING = "# Running\n\nRun faster with intervals: short fast laps, then slow ones.\n"

HOW_TO_ZH = "# 问答\n\n我们怎么才能做到？为什么是这样？是不是一个什么样的我们？怎么才能是我们的？\n"
SLEEP_ZH = (
    "# 睡眠\n\n关于睡眠的笔记。卧室保持黑暗、安静和凉爽，下午以后不喝咖啡，睡前一小时放下手机，"
    "就能睡得更好；每天固定时间起床，比早睡更重要。\n"
)
STUDY_ZH = "# 学习\n\n学得更好的方法：间隔重复，做笔记。\n"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    root = tmp_path_factory.mktemp("common")
    vault = root / "vault"
    for name, text in {
        "how-to.md": HOW_TO,
        "sleep.md": SLEEP,
        "running.md": RUNNING,
        "问答.md": HOW_TO_ZH,
        "睡眠.md": SLEEP_ZH,
        "学习.md": STUDY_ZH,
    }.items():
        write(vault, name, text)
    engine = open_engine(vault, root / "cache")
    engine.refresh()
    return engine


def ranking(engine: Engine, query: str) -> list[str]:
    request = SearchRequest(query=query, mode="keyword", expand=False)
    return [hit.chunk.path for hit in engine.read().search(request).hits]


@pytest.mark.parametrize(
    ("question", "keywords", "answer"),
    [
        ("how to fall asleep faster", "fall asleep faster", "sleep.md"),
        ("How do I fall asleep faster?", "fall asleep faster", "sleep.md"),
        ("怎么才能睡得更好", "睡得更好", "睡眠.md"),
        ("我们怎么才能睡得更好呢", "睡得更好", "睡眠.md"),
    ],
)
def test_a_question_ranks_the_notes_its_keywords_rank(
    engine: Engine, question: str, keywords: str, answer: str
) -> None:
    found = ranking(engine, question)
    assert found == ranking(engine, keywords)
    assert found[0] == answer
    assert "how-to.md" not in found and "问答.md" not in found


def test_a_query_made_only_of_common_words_keeps_them(engine: Engine) -> None:
    assert ranking(engine, "how to")[0] == "how-to.md"
    assert ranking(engine, "怎么才能")[0] == "问答.md"


def test_query_terms_drop_common_words_only_when_others_remain() -> None:
    index = KeywordIndex(None).reader()
    assert index.query_terms("How does one fall asleep faster?") == [
        "one",
        "fall",
        "asleep",
        "faster",
    ]
    assert index.query_terms("怎么才能睡得更好") == ["睡", "更好"]
    assert index.query_terms("what is it") == ["what", "is", "it"]
    # The index's own analysis keeps every word: notes and matched-term display are unchanged.
    assert index.terms("how to sleep") == ["how", "to", "sleep"]


def test_notes_keep_common_words_in_the_index(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, "a.md", "# A\n\nThe Who played live.\n")
    write(vault, "b.md", "# B\n\nA band played live.\n")
    engine = open_engine(vault, tmp_path / "cache")
    engine.refresh()
    assert ranking(engine, "the who")[0] == "a.md"
