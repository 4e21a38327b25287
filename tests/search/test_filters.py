"""Property filters through the engine and the command line: a search with `where` takes both
sides' candidates among the notes that hold every filter; with no query it lists them all, newest
first; `memlsp recent` takes them too; a malformed one is a sentence naming the forms."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlsp.cli import main
from memlsp.commands.arguments import UsageError
from memlsp.commands.calls import (
    RecentCall,
    SearchCall,
    argv,
    call_from_json,
    call_json,
    needs_vectors,
)
from memlsp.engine.engine import Engine
from memlsp.search.request import build_request
from tests.helpers.engine import embedded_vault, open_indexed
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import write, write_notes

# Every note says "film", so a search for it finds each note the filters leave.
NOTES = {
    "movies/alien.md": "---\ntype: Movie\nstate: 想看\nrating: 4\n---\n# Alien\n\nA film in space.\n",
    "movies/dune.md": (
        "---\ntype: movie\nstate: 看过\nrating: 2.5\ncategories: ['[[Books]]']\n---\n"
        "# Dune\n\nA film of sand.\n"
    ),
    "movies/heat.md": "---\ntype: [Movie, Crime]\nstate: 想看\n---\n# Heat\n\nA film of a heist.\n",
    "reading/dune-book.md": (
        "---\ntype: Book\ncategories:\n  - '[[Categories/Books|books]]'\ncreated: 2024-03-01\n---\n"
        "# Dune, the book\n\nThe film came later.\n"
    ),
    "Categories/Books.md": "# Books\n\nNo film here, only books.\n",
    "plain.md": "# Plain\n\nA film note with no frontmatter.\n",
}
MOVIES = {"movies/alien.md", "movies/dune.md", "movies/heat.md"}
# How old each note is, in hours: newest first is the reverse of the paths' order.
AGES = {path: len(NOTES) - index for index, path in enumerate(sorted(NOTES))}


def aged(root: Path) -> None:
    for path, age in AGES.items():
        when = 1_700_000_000 - age * 3600
        os.utime(root / path, (when, when))


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("filters")
    aged(write_notes(root / "vault", NOTES))
    opened = open_indexed(root / "vault", root / "cache")
    yield opened
    opened.close()


def search(engine: Engine, query: str = "", **values: object) -> list[str]:
    request = build_request({"query": query, "limit": 50, "expand": False, **values})
    return [hit.chunk.path for hit in engine.read().search(request).hits]


@pytest.mark.parametrize(
    ("where", "wanted"),
    [
        (["type=movie"], MOVIES),
        (["type=Movie", "state=想看"], {"movies/alien.md", "movies/heat.md"}),
        (["state!=想看"], set(NOTES) - {"movies/alien.md", "movies/heat.md"}),
        (["categories=books"], {"movies/dune.md", "reading/dune-book.md"}),
        (["categories=[[Categories/Books]]"], {"movies/dune.md", "reading/dune-book.md"}),
        (["rating>=3"], {"movies/alien.md"}),
        (["rating"], {"movies/alien.md", "movies/dune.md"}),
        (["created<2025-01-01"], {"reading/dune-book.md"}),
        (["nosuchkey=x"], set()),
        ({"type": "movie", "rating": "<3"}, {"movies/dune.md"}),
    ],
)
def test_a_filtered_search_finds_only_the_notes_that_hold_every_filter(
    engine: Engine, where: object, wanted: set[str]
) -> None:
    assert set(search(engine, "film", where=where, mode="keyword")) == wanted
    assert set(search(engine, where=where)) == wanted  # no query: every one of them


def test_both_sides_take_their_candidates_among_the_matching_notes(tmp_path: Path) -> None:
    with_vectors = embedded_vault(tmp_path, NOTES, FakeEmbedder())
    try:
        request = build_request({"query": "a film in space", "where": ["state=看过"]})
        response = with_vectors.read().search(request)
        assert response.counts.vector > 0
        assert {hit.chunk.path for hit in response.hits} == {"movies/dune.md"}
        unfiltered = with_vectors.read().search(build_request({"query": "a film in space"}))
        assert unfiltered.hits[0].chunk.path == "movies/alien.md"  # what the filter left out
    finally:
        with_vectors.close()


def test_a_list_by_filters_is_newest_first_one_result_a_note(engine: Engine) -> None:
    request = build_request({"query": "", "where": ["type=movie"], "limit": 2, "expand": False})
    response = engine.read().search(request)
    newest = sorted(MOVIES, key=AGES.__getitem__)
    assert [hit.chunk.path for hit in response.hits] == newest[:2]
    first = response.hits[0]
    assert (first.score, first.matched_terms, first.keyword_rank) == (0.0, (), None)
    assert first.chunk.start_line == 5 and first.title == "Heat"  # its first section
    assert response.query == "" and response.warnings == ()
    budgeted = build_request({"where": ["type=movie"], "budget_tokens": 1, "expand": False})
    cut = engine.read().search(budgeted)
    assert cut.budget is not None and len(cut.hits) + len(cut.budget.dropped) == 3
    nothing = engine.read().search(build_request({"where": "type=opera"}))
    assert nothing.hits == () and nothing.warnings


def test_an_empty_query_without_a_filter_is_still_refused() -> None:
    with pytest.raises(ValueError, match="'query' is empty: give words or a question"):
        build_request({"query": " "})
    assert build_request({"where": "type=movie"}).query == ""
    assert build_request({"query": "", "paths": ["movies"]}).query == ""
    with pytest.raises(ValueError, match="'explain' needs a query"):
        build_request({"where": "type=movie", "explain": ["x"]})


def test_explain_names_the_property_filter_that_leaves_a_note_out(engine: Engine) -> None:
    request = build_request(
        {"query": "film", "where": ["state=想看"], "explain": ["movies/dune.md"], "mode": "keyword"}
    )
    (explained,) = engine.read().search(request).explained
    assert explained.verdict == "filtered" and explained.facts.filter == "property"
    assert "state=想看" in explained.sentence


def test_a_filter_travels_in_a_typed_call_and_as_flags() -> None:
    search = SearchCall(build_request({"query": "", "where": {"Type": "Movie", "r": ">=4"}}))
    assert search.request.where == ("type=movie", "r>=4")
    assert call_from_json(call_json(search)) == search
    assert argv(search, "V")[-3:] == ["--", "V", ""]
    assert argv(search, "V").count("--where") == 2
    assert not needs_vectors(search)  # a list embeds nothing first
    assert needs_vectors(SearchCall(build_request({"query": "x", "where": "a"})))
    recent = RecentCall(7, 20, ("type=Movie",))
    assert recent.where == ("type=movie",)
    assert call_from_json(call_json(recent)) == recent
    assert argv(recent, "V")[-4:-2] == ["--where", "type=movie"]
    with pytest.raises(UsageError, match=r"^--where takes KEY=VALUE"):
        RecentCall(7, 20, ("=x",))


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_line_takes_where_and_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    write(vault, ".memlsp.toml", 'embedder = "none"\n')
    aged(vault)
    cache = ("--cache-dir", tmp_path / "c", "--no-daemon")

    def paths(*args: str | Path) -> list[str]:
        code, out, err = run(capsys, args[0], vault, *args[1:], "--json", *cache)
        assert code == 0, err
        answer = json.loads(out)
        return [item["path"] for item in answer.get("results", answer.get("notes", []))]

    newest = sorted(MOVIES, key=AGES.__getitem__)
    assert paths("search", "--type", "Movie", "--limit", "1000") == newest
    assert paths("search", "--where", "state=想看", "--type", "MOVIE") == [
        p for p in newest if p != "movies/dune.md"
    ]
    assert set(paths("search", "film", "--where", "categories=Books", "--mode", "keyword")) == {
        "movies/dune.md",
        "reading/dune-book.md",
    }
    assert paths("recent", "--days", "100000", "--type", "movie") == newest
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        json.dumps({"id": "a", "where": {"type": "book"}})
        + "\n"
        + json.dumps({"id": "b", "query": "film", "where": ["rating>3"]})
        + "\n"
        + json.dumps({"id": "c", "where": ["rating>"]})
        + "\n",
        encoding="utf-8",
    )
    code, out, err = run(capsys, "search", vault, "--queries", queries, "--no-expand", *cache)
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [r["path"] for r in lines[0]["results"]] == ["reading/dune-book.md"]
    assert [r["path"] for r in lines[1]["results"]] == ["movies/alien.md"]
    assert lines[2]["error"].startswith("line 3: --where takes KEY=VALUE, KEY!=VALUE, KEY")
    code, _, err = run(capsys, "search", vault, "--where", "a<=>b", *cache)
    assert code == 2
    assert err.strip() == (
        "memlsp: --where takes KEY=VALUE, KEY!=VALUE, KEY (the property is present), or "
        "KEY<VALUE, KEY<=VALUE, KEY>VALUE, KEY>=VALUE with a number or a date; not 'a<=>b'"
    )
    code, _, err = run(capsys, "search", vault, *cache)
    assert code == 2 and "give a QUERY" in err


def test_a_scope_asked_by_its_chunks_gives_what_its_paths_give(engine: Engine) -> None:
    """A wide scope is asked of the keyword index by its chunks, looked up once, and the index's
    best overall until enough are in (hybrid.wide); the answer is the one its paths give."""
    keyword = engine.read().keyword
    terms = keyword.query_terms("film")
    for scope in ({"movies/heat.md"}, MOVIES, set(NOTES) - {"movies/alien.md"}, set()):
        within = keyword.chunks_of_paths(scope)
        for limit in (1, 2, 50):
            by_paths = keyword.search(terms, limit, paths=scope)
            by_chunks = keyword.search(terms, limit, within=within)
            assert by_chunks == by_paths, (scope, limit)
