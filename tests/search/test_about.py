"""`about`: results about a note (the note itself, the notes linking to it, the notes naming it
in plain text) rank before the others, each group in its order, scores falling with rank. On the
engine, the command line, the agent's tool; memlsp/search in tests/lsp/test_custom.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest

from memlsp.agent.source import VaultSource
from memlsp.agent.tools import Memory
from memlsp.cli import main
from memlsp.engine.engine import Engine
from memlsp.model import SearchRequest
from tests.helpers.engine import indexed_engine, open_indexed
from tests.helpers.vault import FIXTURE_VAULT
from tests.search.test_explain_surfaces import FromEngine

NOTES = {
    "Solid.md": "# Solid\n\nA reactive UI library.\n",
    "signals.md": "# Signals\n\nState that updates the view. Used by [[Solid]].\n",
    "stores.md": "# Stores\n\nNested state; Solid keeps them in proxies.\n",
    "react.md": "# React\n\nState, state, state: the view re-renders when state changes.\n",
    "vue.md": "# Vue\n\nReactive state and a view of refs.\n",
    "redux.md": "# Redux\n\nOne store of state for the whole view.\n",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    opened = indexed_engine(tmp_path_factory.mktemp("about"), NOTES)
    yield opened
    opened.close()


def ranked(engine: Engine, **fields: object) -> list[tuple[str, float]]:
    response = engine.read().search(SearchRequest("state view", expand=False, **fields))  # type: ignore[arg-type]
    return [(hit.chunk.path, hit.score) for hit in response.hits]


def test_results_about_the_note_come_first_each_group_in_its_order(engine: Engine) -> None:
    plain = ranked(engine)
    favoured = ranked(engine, about=("Solid",))
    about = {"signals.md", "stores.md", "Solid.md"}  # links to it, names it, is it
    assert plain[0][0] not in about  # without it, a note about something else leads
    order = [path for path, _ in favoured]
    assert sorted(order) == sorted(path for path, _ in plain)  # the same results
    lead = [path for path in order if path in about]
    assert order[: len(lead)] == lead == [path for path, _ in plain if path in about]
    assert order[len(lead) :] == [path for path, _ in plain if path not in about]
    scores = [score for _, score in favoured]
    assert scores == sorted(scores, reverse=True)


def test_a_name_no_note_has_is_said_and_changes_nothing(engine: Engine) -> None:
    response = engine.read().search(SearchRequest("state view", expand=False, about=("Nobody",)))
    assert [hit.chunk.path for hit in response.hits] == [path for path, _ in ranked(engine)]
    assert any("Nobody" in warning and "about" in warning for warning in response.warnings)


def test_the_command_line_and_the_agent_favour_it_too(
    engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["search", str(engine.root), "state view", "--about", "Solid", "--json",
                 "--embedder", "none", "--cache-dir", str(tmp_path / "cache"), "--no-daemon"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    paths = [result["path"] for result in json.loads(out)["results"]]
    assert paths[:2] == [path for path, _ in ranked(engine, about=("Solid",))][:2]
    memory = Memory(cast(VaultSource, FromEngine(engine)), allow_writes=False)
    answer = memory.search(
        "state view", 10, "hybrid", None, None, None, None, None, None, ["Solid"]
    )
    assert answer["results"][0]["path"] in {"signals.md", "stores.md", "Solid.md"}


def test_whenever_a_top_ten_holds_a_note_linking_to_it_the_first_result_is_about_it(
    tmp_path: Path,
) -> None:
    """The fixture vault: every query of a few, every note as the one favoured."""
    opened = open_indexed(FIXTURE_VAULT, tmp_path / "cache")
    try:
        snapshot = opened.read()
        for query in ("search ranking", "travel food", "notes links", "向量 检索", "cooking"):
            plain = snapshot.search(SearchRequest(query, expand=False))
            for target in snapshot.graph.notes:
                about, _ = snapshot.about([target])
                if not any(hit.chunk.path in about - {target} for hit in plain.hits[:10]):
                    continue
                first = snapshot.search(SearchRequest(query, expand=False, about=(target,))).hits[0]
                assert first.chunk.path in about, (query, target)
    finally:
        opened.close()
