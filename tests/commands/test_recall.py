"""Recall memory through the command line: every note a search shows is counted once per search
in the vault's cache, never in the vault; `--no-recall` counts nothing; `recent --recalled` and
`status` tell the counts; `recall_weight` lifts the notes recalled often and lately."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from memlsp import daemon
from memlsp.cli import main
from memlsp.commands.arguments import UsageError
from memlsp.commands.calls import (
    RecentCall,
    SearchCall,
    argv,
    call_from_json,
    call_json,
    checked_request,
)
from memlsp.index.recall import RecallStore
from memlsp.model import SearchRequest, SearchResponse
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings
from tests.commands.test_read_recent import serving
from tests.helpers.cli import memlsp
from tests.helpers.engine import open_indexed
from tests.helpers.vault import snapshot, write_notes

NOTES = {
    "apple.md": "# Apple\n\nThe orchard grows apples, red and round.\n",
    "pear.md": "# Pear\n\nThe orchard grows pears too.\n",
    "plum.md": "# Plum\n\nPlums grow by the wall.\n",
    "links.md": "# Links\n\nSee [[apple]] and [[pear]].\n",
}
ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "vault", NOTES)


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def search(capsys: pytest.CaptureFixture[str], vault: Path, query: str, *flags: str) -> Any:
    cache = vault.parent / "cache"
    code, out, err = run(
        capsys, "search", vault, query, "--json", "--cache-dir", cache, "--embedder", "none", *flags
    )
    assert code == 0, err
    return json.loads(out)


def counts(answer: Any) -> dict[str, int]:
    return {result["path"]: result["recall_count"] for result in answer["results"]}


def stored(vault: Path) -> dict[str, int]:
    folder = cache_dir_for(vault, Settings(cache_dir=vault.parent / "cache"))
    found = RecallStore(folder).recalls(list(NOTES))
    return {path: recall.recall_count for path, recall in found.items()}


def test_each_search_counts_each_note_it_shows_once(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    search(capsys, vault, "orchard", "--no-recall")  # indexed first: the vault as it is now
    before = snapshot(vault)
    for _ in range(3):
        orchard = search(capsys, vault, "orchard")
    for _ in range(2):
        apple = search(capsys, vault, "round")
    # Each command is a process of its own: the counts were kept across them.
    assert counts(orchard) == {"apple.md": 3, "pear.md": 3}
    assert counts(apple) == {"apple.md": 5}
    assert stored(vault) == {"apple.md": 5, "pear.md": 3}  # not links.md, linked from both
    result = apple["results"][0]
    assert ISO_UTC.fullmatch(result["last_recalled_at"])
    assert snapshot(vault) == before  # no file of the vault written, no mtime touched


def test_a_search_with_no_recall_counts_nothing_and_shows_the_counts(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in range(4):
        uncounted = search(capsys, vault, "orchard", "--no-recall")
    assert counts(uncounted) == {"apple.md": 0, "pear.md": 0}
    assert {result["last_recalled_at"] for result in uncounted["results"]} == {None}
    assert stored(vault) == {}
    search(capsys, vault, "round")
    assert counts(search(capsys, vault, "orchard", "--no-recall")) == {"apple.md": 1, "pear.md": 0}


def test_what_the_budget_leaves_out_is_not_counted(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = search(capsys, vault, "orchard", "--budget-tokens", "20")
    shown = [result["path"] for result in answer["results"]]
    assert len(shown) == 1 and [item["path"] for item in answer["dropped"]]
    assert stored(vault) == {shown[0]: 1}


def test_query_lines_count_unless_they_say_record_false(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = vault.parent / "queries.jsonl"
    lines = [
        {"id": "a", "query": "round"},
        {"id": "b", "query": "orchard", "record": False},
        {"id": "c", "query": "round"},
        {"id": "d", "query": "round", "record": "no"},
    ]
    queries.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    common = ("--cache-dir", vault.parent / "cache", "--embedder", "none", "--json")
    code, out, _ = run(capsys, "search", vault, "--queries", queries, *common)
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [counts(answer) for answer in answers[:3]] == [
        {"apple.md": 1},
        {"apple.md": 1, "pear.md": 0},
        {"apple.md": 2},
    ]
    assert answers[3] == {"id": "d", "error": "line 4: --no-recall must be true or false"}
    code, out, _ = run(capsys, "search", vault, "--queries", queries, *common, "--no-recall")
    assert code == 0 and stored(vault) == {"apple.md": 2}  # the flag holds for every line


def test_recent_recalled_lists_the_most_recalled_first(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for query in ("orchard", "round", "round", "plums"):
        search(capsys, vault, query)
    common = ("--cache-dir", vault.parent / "cache", "--embedder", "none")
    code, out, _ = run(capsys, "recent", vault, "--recalled", "--json", *common)
    answer = json.loads(out)
    assert code == 0 and answer["by"] == "recalled" and answer["more"] == 0
    listed = [(note["path"], note["recall_count"]) for note in answer["notes"]]
    assert listed == [("apple.md", 3), ("plum.md", 1), ("pear.md", 1)]  # equal: latest first
    assert all(ISO_UTC.fullmatch(note["last_recalled_at"]) for note in answer["notes"])
    code, out, _ = run(capsys, "recent", vault, "--recalled", "--limit", "1", *common)
    assert code == 0 and re.fullmatch(r"\S+ \S+  3×  apple\.md  Apple\n2 more\n", out)
    # Changed lately: every note, each with its count.
    code, out, _ = run(capsys, "recent", vault, "--json", *common)
    changed = {note["path"]: note["recall_count"] for note in json.loads(out)["notes"]}
    assert json.loads(out)["by"] == "changed"
    assert changed == {"apple.md": 3, "pear.md": 1, "plum.md": 1, "links.md": 0}


def test_a_deleted_note_keeps_its_count_but_is_not_listed(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    search(capsys, vault, "plums")
    (vault / "plum.md").unlink()
    common = ("--cache-dir", vault.parent / "cache", "--embedder", "none")
    code, out, _ = run(capsys, "recent", vault, "--recalled", *common)
    assert code == 0 and out == "no notes recalled in the last 7 days\n"
    code, out, _ = run(capsys, "status", vault, "--json", *common)
    assert json.loads(out)["recall"]["notes"] == 1


def test_status_shows_the_totals(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ("--cache-dir", vault.parent / "cache", "--embedder", "none")
    search(capsys, vault, "orchard", "--no-recall")
    code, out, _ = run(capsys, "status", vault, *common)
    assert code == 0 and "recalled: no note yet" in out
    for query in ("orchard", "round"):
        search(capsys, vault, query)
    code, out, _ = run(capsys, "status", vault, "--json", *common)
    recall = json.loads(out)["recall"]
    assert code == 0 and (recall["notes"], recall["recalls"]) == (2, 3)
    assert ISO_UTC.fullmatch(recall["last"])
    code, out, _ = run(capsys, "status", vault, *common)
    assert f"recalled: 2 notes, 3 times by searches, last {recall['last']}" in out


def test_recall_weight_lifts_the_notes_recalled_often(tmp_path: Path) -> None:
    words = ("amber", "birch", "cedar", "dune", "elm", "fern")
    notes = {
        f"{word}.md": f"# {word}\n\n{'lantern ' * (9 - number)}{word}\n"
        for number, word in enumerate(words)
    }
    vault = write_notes(tmp_path / "vault", notes)
    order = [f"{word}.md" for word in words]  # the more lanterns, the higher
    plain = open_indexed(vault, tmp_path / "cache")
    try:
        assert _found(plain.read().search(SearchRequest("lantern"))) == order
        for _ in range(10):  # the user kept looking for the last one
            snapshot_now = plain.read()
            snapshot_now.recalled(snapshot_now.search(SearchRequest("fern")), record=True)
        assert _found(plain.read().search(SearchRequest("lantern"))) == order  # off: the same
    finally:
        plain.close()
    weighted = open_indexed(vault, tmp_path / "cache", recall_weight=1.0)
    try:
        answer = weighted.read().search(SearchRequest("lantern"))
        assert _found(answer) == ["fern.md", *order[:-1]]
        assert answer.hits[0].score == answer.strength  # the first shows the query's strength
        scores = [hit.score for hit in answer.hits]
        assert scores == sorted(scores, reverse=True)
    finally:
        weighted.close()


def _found(response: SearchResponse) -> list[str]:
    return [hit.chunk.path for hit in response.hits]


@pytest.mark.e2e
@pytest.mark.skipif(not daemon.supported(), reason="no Unix domain sockets")
def test_a_search_answered_on_the_socket_is_counted_once(vault: Path, tmp_path: Path) -> None:
    cache = tmp_path / "served"
    common = ("--cache-dir", cache, "--embedder", "none", "--json")
    with serving(vault, cache) as log:
        before = snapshot(vault)
        for _ in range(3):
            asked = memlsp("search", vault, "orchard", *common)
            assert asked.returncode == 0, asked.stderr
        uncounted = memlsp("search", vault, "orchard", *common, "--no-recall")
        assert log.read_text(encoding="utf-8").count(" answered in ") == 4  # all by the server
    assert counts(json.loads(asked.stdout)) == {"apple.md": 3, "pear.md": 3}
    assert counts(json.loads(uncounted.stdout)) == {"apple.md": 3, "pear.md": 3}
    folder = cache_dir_for(vault, Settings(cache_dir=cache))
    found = RecallStore(folder).recalls(list(NOTES))
    assert {path: recall.recall_count for path, recall in found.items()} == {
        "apple.md": 3,
        "pear.md": 3,
    }
    assert snapshot(vault) == before


def test_the_calls_carry_recall_to_a_server_old_or_new() -> None:
    """Over the socket a typed call, or for an older server its command line."""
    recalled, changed = RecentCall(by="recalled"), RecentCall()
    assert call_json(recalled)["arguments"]["by"] == "recalled"
    assert "by" not in call_json(changed)["arguments"]  # a server from before `by` answers it
    assert call_from_json(call_json(recalled)) == recalled
    assert call_from_json(call_json(changed)) == changed
    assert "--recalled" in argv(recalled, "v") and "--recalled" not in argv(changed, "v")
    uncounted = SearchCall(checked_request({"query": "x", "record": False}))
    assert call_from_json(call_json(uncounted)) == uncounted
    assert "--no-recall" in argv(uncounted, "v")
    assert "--no-recall" not in argv(SearchCall(checked_request({"query": "x"})), "v")
    with pytest.raises(UsageError, match="'by' must be \"changed\" or \"recalled\", not 'often'"):
        RecentCall(by="often")
