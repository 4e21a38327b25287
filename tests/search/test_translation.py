"""A question in the vault's other language: the keyword side also reads the query's words as the
vault writes them (CC-CEDICT), and only then."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memlsp.engine.engine import Engine
from memlsp.index.dictionary import BilingualDictionary, bilingual_dictionary
from memlsp.model import SearchRequest
from memlsp.search.translation import outermost, translated_terms
from tests.helpers.engine import open_indexed
from tests.helpers.vault import write_notes

CHINESE_NOTES = {
    "保险.md": "# 保险的本质\n\n保险是用一笔确定的小钱，换取对不确定的大损失的保障。买保险前先想清楚要转移什么风险。\n",
    "睡眠.md": "# 睡眠\n\n卧室保持黑暗和凉爽，睡前一小时放下手机，就能睡得更好。每天固定时间起床。\n",
    "咖啡.md": "# 咖啡\n\n咖啡因让人清醒，但下午喝咖啡会影响晚上的睡眠。每天不超过四杯。\n",
    "番茄.md": "# 番茄工作法\n\n专注工作二十五分钟，然后休息五分钟，四轮之后长休息。\n",
}
ENGLISH_NOTES = {
    "insurance.md": "# Insurance\n\nInsurance trades a small certain cost for protection against a large uncertain loss.\n",
    "sleep.md": "# Sleep\n\nA dark, cool bedroom and no phone for an hour before bed help you sleep.\n",
    "coffee.md": "# Coffee\n\nCaffeine keeps you awake; coffee in the afternoon spoils the night.\n",
}


def engine_for(root: Path, notes: dict[str, str], **settings: object) -> Engine:
    return open_indexed(write_notes(root / "vault", notes), root / "cache", **settings)


def near(folder: Path) -> Callable[[], BilingualDictionary | None]:
    return lambda: bilingual_dictionary(folder)


def first(engine: Engine, query: str) -> list[str]:
    request = SearchRequest(query=query, mode="keyword", expand=False)
    return [hit.chunk.path for hit in engine.read().search(request).hits]


def test_the_dictionary_reads_both_ways(tmp_path: Path) -> None:
    words = bilingual_dictionary(tmp_path)
    assert words is not None
    assert "保险" in words.chinese(["insur"])["insur"].split()  # keys are stems
    assert "insurance" in words.english(["保险"])["保险"].split()
    assert words.chinese(["qwzxplk"]) == {}
    # The longest word is read, not also the words inside it.
    assert set(outermost(words.english(["番茄", "番茄酱"]))) == {"番茄酱"}
    # Built once: a second process (here, a second look) reads the same file.
    assert bilingual_dictionary(tmp_path) is words
    assert [path.name for path in tmp_path.iterdir()] == [words.path.name]


def test_a_server_never_waits_for_the_dictionary(tmp_path: Path) -> None:
    """Not built yet: the answer is None at once, and the dictionary is there once built on a
    thread of its own (a copy of the one this process has, or the source read)."""
    folder = tmp_path / "server"
    started = time.monotonic()
    assert bilingual_dictionary(folder, wait=False) is None
    assert time.monotonic() - started < 0.5
    deadline = time.monotonic() + 60
    while (words := bilingual_dictionary(folder, wait=False)) is None:
        assert time.monotonic() < deadline, "the dictionary was never built"
        time.sleep(0.05)
    assert "保险" in words.chinese(["insur"])["insur"].split()


def test_an_english_question_finds_its_chinese_note(tmp_path: Path) -> None:
    engine = engine_for(tmp_path, CHINESE_NOTES)
    assert first(engine, "insurance")[:1] == ["保险.md"]
    assert first(engine, "coffee every day")[:1] == ["咖啡.md"]


def test_a_chinese_question_finds_its_english_note(tmp_path: Path) -> None:
    engine = engine_for(tmp_path, ENGLISH_NOTES)
    assert first(engine, "保险")[:1] == ["insurance.md"]
    assert first(engine, "咖啡")[:1] == ["coffee.md"]


def test_a_question_in_the_vaults_own_language_is_not_translated(tmp_path: Path) -> None:
    chinese = engine_for(tmp_path / "zh", {**CHINESE_NOTES, **ENGLISH_NOTES, "more.md": "的的的"})
    reader = chinese.read().keyword
    assert translated_terms(reader.query_terms("保险"), reader, near(tmp_path)) == {}
    assert translated_terms(reader.query_terms("insurance"), reader, near(tmp_path))
    english = engine_for(tmp_path / "en", ENGLISH_NOTES)
    reader = english.read().keyword
    assert translated_terms(reader.query_terms("insurance"), reader, near(tmp_path)) == {}


def test_translations_count_as_the_setting_says(tmp_path: Path) -> None:
    off = engine_for(tmp_path / "off", CHINESE_NOTES, translated_share=0.0)
    assert first(off, "insurance") == []
    on = engine_for(tmp_path / "on", CHINESE_NOTES)
    response = on.read().search(SearchRequest(query="insurance", mode="keyword", expand=False))
    assert response.hits[0].matched_terms == ("保险",)


@pytest.mark.parametrize("query", ["qwzxplk", "the of and", "在 的 了"])
def test_nothing_to_translate_changes_nothing(tmp_path: Path, query: str) -> None:
    engine = engine_for(tmp_path, CHINESE_NOTES)
    reader = engine.read().keyword
    assert translated_terms(reader.query_terms(query), reader, near(tmp_path)) == {}


def test_a_dictionary_in_a_folder_given_relative_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # `--cache-dir cache`, as typed
    words = bilingual_dictionary(Path("cache") / "models")
    assert words is not None
    assert "insurance" in words.english(["保险"])["保险"].split()
