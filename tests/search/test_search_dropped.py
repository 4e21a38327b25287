"""What a token budget leaves out is named: `dropped` (path, heading path, score, tokens) after
the results shown, and `budget_used`; the two lists together are the same search without a
budget, in order. On the engine, `memlsp search --json`, its `--queries` lines and its text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memlsp.cli import main
from memlsp.engine.engine import Engine
from memlsp.model import Hit, SearchRequest, SearchResponse, heading_path
from memlsp.queries.reading import ReadRequest, read_passage
from memlsp.search.budget import hit_tokens
from memlsp.search.render import response_text
from memlsp.wire import VaultAnswer, each_vault, search_answer_json, vault_search_answer_json
from tests.helpers.engine import ask, embedded_vault, indexed_engine
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import write, write_notes

# "lantern" in every note, more or less often, at different depths of headings.
NOTES = {
    "lamps.md": (
        "# Lamps\n\nA lantern, a lantern, a lantern lamp.\n\n## Oil\n\nOil for the lantern.\n\n"
        "### Wick\n\nTrim the lantern wick before the lantern is lit.\n"
    ),
    "camping.md": "# Camping\n\nPack a lantern and a tent.\n\n## Night\n\nThe lantern hangs.\n",
    "garden.md": "# Garden\n\nA solar lantern by the path, a lantern by the pond.\n",
    "festival.md": "---\ntitle: Lantern festival\n---\n# Spring\n\nPaper lantern boats.\n",
    "shed.md": "# Shed\n\nThe old lantern is in the shed, next to the rake and the hoe.\n",
    "ship.md": "# Ship\n\nA storm lantern swings on deck.\n",
    "mine.md": "# Mine\n\nMiners carried a lantern, then a lamp on the helmet.\n",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    opened = indexed_engine(tmp_path_factory.mktemp("dropped"), NOTES)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def with_vectors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    opened = embedded_vault(tmp_path_factory.mktemp("dropped-vectors"), NOTES, FakeEmbedder())
    yield opened
    opened.close()


def named(hit: Hit) -> dict[str, Any]:
    """A result as `dropped` names it, its tokens by the measure `--budget-tokens` uses."""
    return {
        "path": hit.chunk.path,
        "heading": heading_path(hit.chunk.breadcrumb),
        "score": hit.score,
        "tokens": hit_tokens(hit),
    }


def assert_the_whole_search(cut: dict[str, Any], whole: SearchResponse, budget: int) -> None:
    """`results` + `dropped` are the search without a budget, in order; `budget_used` is what
    the results shown cost, within the budget unless the first alone is over it."""
    everything = [named(hit) for hit in whole.hits]
    shown = len(cut["results"])
    assert [r["chunk_id"] for r in cut["results"]] == [h.chunk.id for h in whole.hits[:shown]]
    assert everything[:shown] + cut["dropped"] == everything
    assert cut["budget_used"] == sum(item["tokens"] for item in everything[:shown])
    assert cut["budget_used"] <= budget or shown == 1
    if cut["dropped"]:  # the next one would not have fitted
        assert cut["budget_used"] + cut["dropped"][0]["tokens"] > budget


@pytest.mark.parametrize("budget", [1, 15, 40, 80, 10_000])
@pytest.mark.parametrize("expand", [False, True], ids=["alone", "with linked notes"])
def test_results_and_dropped_are_the_search_without_a_budget(
    engine: Engine, budget: int, expand: bool
) -> None:
    asked: dict[str, Any] = {"mode": "keyword", "limit": 50, "expand": expand}
    whole = ask(engine, "lantern", **asked)
    assert len(whole.hits) == len(NOTES)
    cut = search_answer_json(ask(engine, "lantern", budget_tokens=budget, **asked))
    assert_the_whole_search(dict(cut), whole, budget)


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_the_same_with_vectors(with_vectors: Engine, mode: str) -> None:
    whole = ask(with_vectors, "lantern wick oil", mode=mode, limit=50, min_strength=0)
    assert len(whole.hits) > 2
    for budget in (1, 20, 60):
        asked = ask(with_vectors, "lantern wick oil", mode=mode, limit=50, min_strength=0,
                    budget_tokens=budget)  # fmt: skip
        assert_the_whole_search(dict(search_answer_json(asked)), whole, budget)


def test_sections_are_named_by_their_heading_path(engine: Engine) -> None:
    """A section under headings is named as `read` takes a heading ("Oil#Wick"); the text
    before a note's first heading by ""."""
    whole = ask(engine, "lantern", mode="keyword", limit=50, sections=True)
    cut = search_answer_json(ask(engine, "lantern", mode="keyword", limit=50, sections=True,
                                 budget_tokens=1))  # fmt: skip
    assert_the_whole_search(dict(cut), whole, 1)
    first = cut["results"][0]
    sections = {(first["path"], heading_path(first["breadcrumb"]))}
    sections |= {(d["path"], d["heading"]) for d in cut["dropped"]}
    assert {("lamps.md", "Oil#Wick"), ("lamps.md", "Oil"), ("ship.md", "")} <= sections
    wick = read_passage(engine.read().view, "lamps.md", ReadRequest(heading="Oil#Wick"))
    assert wick.text.startswith("### Wick")


def test_without_a_budget_nothing_is_dropped_and_nothing_measured(engine: Engine) -> None:
    answer = search_answer_json(ask(engine, "lantern", mode="keyword", limit=50))
    assert answer["dropped"] == [] and answer["budget_used"] is None
    roomy = search_answer_json(ask(engine, "lantern", mode="keyword", limit=50,
                                   budget_tokens=10_000))  # fmt: skip
    assert roomy["dropped"] == [] and isinstance(roomy["budget_used"], int)
    assert roomy["budget_used"] > 0 and roomy["warnings"] == []


def test_the_warning_says_how_many_were_left_out_and_what_was_used(engine: Engine) -> None:
    response = ask(engine, "lantern", mode="keyword", limit=50, budget_tokens=20)
    answer = search_answer_json(response)
    left, used = len(answer["dropped"]), answer["budget_used"]
    assert left > 1 and used is not None
    sentence = f"{left} more results left out to stay within 20 tokens (budget_tokens); {used} used"
    assert answer["warnings"] == [sentence]
    text = response_text(response)
    assert text.endswith(f"\n\n(cut: {sentence})")  # as `read` says it, where a reader ends
    assert "note:" not in text


# -- the command line ------------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> str:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    vault = write_notes(tmp_path / "vault", NOTES)
    write(vault, ".memlsp.toml", 'embedder = "none"\nwatch = false\n')
    return vault


def test_the_command_line_names_what_it_left_out(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ("--limit", "50", "--cache-dir", tmp_path / "cache", "--no-daemon")
    whole = json.loads(run(capsys, "search", vault, "lantern", "--json", *common))
    cut = json.loads(
        run(capsys, "search", vault, "lantern", "--json", "--budget-tokens", "30", *common)
    )
    assert whole["dropped"] == [] and whole["budget_used"] is None
    assert 1 <= len(cut["results"]) < len(whole["results"])
    assert [(r["path"], r["score"]) for r in cut["results"]] + [
        (d["path"], d["score"]) for d in cut["dropped"]
    ] == [(r["path"], r["score"]) for r in whole["results"]]
    text = run(capsys, "search", vault, "lantern", "--budget-tokens", "30", *common)
    left, used = len(cut["dropped"]), cut["budget_used"]
    assert text.rstrip("\n").endswith(
        f"(cut: {left} more results left out to stay within 30 tokens (budget_tokens); {used} used)"
    )


def test_each_queries_line_names_what_it_left_out(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "queries.jsonl"
    lines = [
        {"id": "cut", "query": "lantern", "budget_tokens": 10},
        {"id": "whole", "query": "lantern"},
    ]
    queries.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = run(capsys, "search", vault, "--queries", queries, "--json", "--limit", "50",
              "--cache-dir", tmp_path / "cache", "--no-daemon")  # fmt: skip
    cut, whole = (json.loads(line) for line in out.splitlines())
    assert cut["id"] == "cut" and cut["dropped"] and cut["budget_used"] is not None
    assert whole["dropped"] == [] and whole["budget_used"] is None
    paths = [r["path"] for r in cut["results"]] + [d["path"] for d in cut["dropped"]]
    assert paths == [r["path"] for r in whole["results"]]


# -- memlsp/search: every open vault's answers merged ----------------------------------------------


OTHER_NOTES = {
    "harbour.md": "# Harbour\n\nA lantern on the harbour wall, a lantern on each boat.\n",
    "tunnel.md": "# Tunnel\n\nA lantern at the tunnel's mouth.\n",
    "road.md": "# Road\n\nCarts with a lantern hung under them.\n",
}


@pytest.mark.parametrize("budget", [1, 25, 60, 10_000])
def test_the_budget_of_a_merged_answer_is_over_every_vault(
    engine: Engine, tmp_path: Path, budget: int
) -> None:
    """The merged results in order, cut once: results then dropped (each with its note's URI and
    vault) are the merged answer without a budget, whichever vault holds each."""
    other = indexed_engine(tmp_path, OTHER_NOTES)

    def answer(name: str, opened: Engine, request: SearchRequest) -> VaultAnswer:
        response = opened.read().search(each_vault(request))
        return VaultAnswer(name, f"file:///{name}", lambda path: f"file:///{name}/{path}", response)

    def merged(budget_tokens: int | None) -> dict[str, Any]:
        request = SearchRequest("lantern", limit=8, mode="keyword", budget_tokens=budget_tokens)
        answers = [answer("here", engine, request), answer("there", other, request)]
        return dict(vault_search_answer_json(request, answers))

    try:
        whole, cut = merged(None), merged(budget)
    finally:
        other.close()
    assert whole["dropped"] == [] and whole["budget_used"] is None
    assert {r["root"] for r in whole["results"]} == {"file:///here", "file:///there"}
    shown = len(cut["results"])
    assert cut["results"] == whole["results"][:shown]
    assert [(d["uri"], d["root"], d["score"]) for d in cut["dropped"]] == [
        (r["uri"], r["root"], r["score"]) for r in whole["results"][shown:]
    ]
    assert isinstance(cut["budget_used"], int) and (cut["budget_used"] <= budget or shown == 1)
    warned = [w for w in cut["warnings"] if "left out" in w]
    if cut["dropped"]:
        assert len(warned) == 1 and warned[0].startswith(f"{len(cut['dropped'])} more result")
    else:
        assert warned == []
