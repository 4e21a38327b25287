"""`explain` on every surface: `memlsp search --explain` (its JSON and a sentence per note in
its text), `memlsp/search` merged over vaults (the verdict of the vault holding the note, judged
against the merged answer and its budget), and the agent's `search` tool (judged against the
answer its JSON budget leaves)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import pytest

from memlsp.agent.source import VaultSource
from memlsp.agent.tools import Memory
from memlsp.cli import main
from memlsp.commands.answers import answer_json
from memlsp.commands.calls import Call
from memlsp.engine.engine import Engine
from memlsp.model import SearchRequest
from memlsp.wire import VaultAnswer, each_vault, vault_search_answer_json
from tests.helpers.engine import indexed_engine
from tests.helpers.vault import write, write_notes

NOTES = {
    "lamps.md": "# Lamps\n\nA lantern, a lantern, a lantern lamp.\n\n## Oil\n\nLantern oil.\n",
    "camping.md": "# Camping\n\nPack a lantern and a tent.\n",
    "garden.md": "# Garden\n\nA solar lantern by the pond.\n",
    "far.md": "# Far\n\nBicycles and tomatoes.\n",
}
OTHER = {"harbour.md": "# Harbour\n\nA lantern on the harbour wall, a lantern on the boat.\n"}


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> str:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def test_the_command_line_explains_in_json_and_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    write(vault, ".memlsp.toml", 'embedder = "none"\nwatch = false\n')
    # --no-recall: each answer would show one recall more than the one before.
    common = ("--cache-dir", tmp_path / "cache", "--no-daemon", "--limit", "2", "--no-recall")
    asked = ("--explain", "lamps", "--explain", "garden.md", "--explain", "far", "--explain", "x")
    plain = json.loads(run(capsys, "search", vault, "lantern", "--json", *common))
    answer = json.loads(run(capsys, "search", vault, "lantern", "--json", *common, *asked))
    verdicts = [(item["note"], item["verdict"]) for item in answer["explain"]]
    assert verdicts == [
        ("lamps", "shown"),
        ("garden.md", "beyond_limit"),
        ("far", "no_evidence"),
        ("x", "not_a_note"),
    ]
    assert plain["explain"] == [] and answer["results"] == plain["results"]
    assert answer["explain"][1]["rank"] == 3 and answer["explain"][1]["limit"] == 2
    text = run(capsys, "search", vault, "lantern", *common, *asked)
    why = [line for line in text.splitlines() if line.startswith("why: ")]
    assert why == [f"why: {item['sentence']}" for item in answer["explain"]]


def test_a_bad_explain_is_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    code = main(["search", str(vault), "lantern", "--explain", " ", "--embedder", "none",
                 "--cache-dir", str(tmp_path / "cache"), "--no-daemon"])  # fmt: skip
    assert code == 2
    assert "--explain has an empty entry" in capsys.readouterr().err


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    here, there = indexed_engine(tmp_path / "a", NOTES), indexed_engine(tmp_path / "b", OTHER)
    yield here, there
    here.close()
    there.close()


def merged(engines: tuple[Engine, Engine], **fields: Any) -> dict[str, Any]:
    request = SearchRequest(
        "lantern", mode="keyword", explain=("harbour", "garden", "far"), **fields
    )
    answers = [
        VaultAnswer(
            name, f"file:///{name}", _uri_in(name), opened.read().search(each_vault(request))
        )
        for name, opened in zip(("here", "there"), engines, strict=True)
    ]
    return dict(vault_search_answer_json(request, answers))


def _uri_in(name: str) -> Callable[[str], str]:
    return lambda path: f"file:///{name}/{path}"


def test_a_merged_answer_explains_from_the_vault_that_holds_the_note(
    engines: tuple[Engine, Engine],
) -> None:
    answer = merged(engines, limit=10)
    harbour, garden, far = answer["explain"]
    ranks = {r["path"]: rank for rank, r in enumerate(answer["results"], 1)}
    assert (harbour["verdict"], harbour["rank"]) == ("shown", ranks["harbour.md"])
    assert harbour["uri"] == "file:///there/harbour.md" and harbour["root"] == "file:///there"
    assert (garden["verdict"], garden["rank"]) == ("shown", ranks["garden.md"])
    assert far["verdict"] == "no_evidence" and far["uri"] == "file:///here/far.md"


def test_a_merged_answer_judges_the_merged_limit_and_budget(
    engines: tuple[Engine, Engine],
) -> None:
    whole = merged(engines, limit=10)
    last = [r["path"] for r in whole["results"]][-1]
    note = {"harbour.md": "harbour", "garden.md": "garden"}.get(last)
    assert note is not None, whole["results"]
    cut = merged(engines, limit=10, budget_tokens=1)
    verdicts = {item["note"]: item["verdict"] for item in cut["explain"]}
    assert verdicts[note] == "cut_by_budget"
    limited = merged(engines, limit=1)
    first = limited["results"][0]["path"]
    for item in limited["explain"]:
        if item["verdict"] != "no_evidence" and item["path"] != first:
            assert item["verdict"] == "beyond_limit", item


class FromEngine:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.root = engine.root
        self.settings = engine.read().settings

    def answer(self, call: Call) -> Mapping[str, Any]:
        return answer_json(self.engine.read(), call, str(self.root))


def test_the_agent_tool_explains_within_its_budget(engines: tuple[Engine, Engine]) -> None:
    memory = Memory(cast(VaultSource, FromEngine(engines[0])), allow_writes=False)
    whole = memory.search("lantern", 10, "keyword", None, None, None, None, None, ["garden"])
    (garden,) = whole["explain"]
    assert garden["verdict"] == "shown"
    cut = memory.search("lantern", 10, "keyword", None, None, None, None, 400, ["garden"])
    assert "garden.md" not in [r["path"] for r in cut["results"]]
    assert "garden.md" in [d["path"] for d in cut["dropped"]]
    assert cut["explain"][0]["verdict"] == "cut_by_budget" and cut["explain"][0]["tokens"] > 0
    nothing = memory.search("qwzxplk", 10, "keyword", None, None, None, None, None, ["far"])
    assert nothing["results"] == [] and nothing["explain"][0]["verdict"] == "no_evidence"
