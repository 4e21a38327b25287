"""The memlsp/* requests and notifications, and indexing progress, through a real client.

Read-only: each client shares one server (the `shared` fixture) with the navigation tests.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, TypeAlias, cast

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import Session, range_numbers

WorkDoneProgress: TypeAlias = (
    types.WorkDoneProgressBegin | types.WorkDoneProgressReport | types.WorkDoneProgressEnd
)

pytestmark = [
    pytest.mark.asyncio(loop_scope="package"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]

INVALID_PARAMS = -32602
RESULT_FIELDS = {
    "path",
    "uri",
    "root",
    "start_line",
    "end_line",
    "title",
    "heading",
    "breadcrumb",
    "date",
    "score",
    "keyword_score",
    "keyword_rank",
    "vector_score",
    "vector_rank",
    "matched_terms",
    "source",
    "chunk_id",
    "text",
    "outlinks",
    "inlinks",
    "other_sections",
    "recall_count",
    "last_recalled_at",
}


# -- memlsp/search ------------------------------------------------------------------------------


async def test_search_answers_with_evidence(shared: Session) -> None:
    answer = await shared.search(query="bm25 saturation")
    assert answer["query"] == "bm25 saturation"
    assert answer["counts"] == {
        "keyword": answer["counts"]["keyword"],
        "vector": 0,
        "hybrid": False,
    }
    assert answer["counts"]["keyword"] >= len(answer["results"]) > 1
    first = answer["results"][0]
    assert set(first) == RESULT_FIELDS
    assert first["keyword_rank"] == 1
    assert first["source"] == "hit"
    assert "bm25" in first["matched_terms"]
    assert first["uri"] == shared.uri(first["path"])
    assert first["root"] == shared.vault.as_uri()
    # The chunk's text is the file's lines start_line..end_line (1-based, inclusive).
    lines = shared.text(first["path"]).splitlines()
    assert first["text"] == "\n".join(lines[first["start_line"] - 1 : first["end_line"]]).strip()
    assert first["breadcrumb"][0] == first["title"]
    scores = [result["score"] for result in answer["results"]]
    assert scores == sorted(scores, reverse=True)


async def test_search_explains_the_notes_it_is_asked_about(shared: Session) -> None:
    """`explain`: a verdict and a sentence per note, the note's URI, results unchanged."""
    # Not counted as recalled: the second answer would show one recall more.
    plain = await shared.search(query="bm25 saturation", limit=2, record=False)
    asked = ["search/bm25.md", "travel/成都美食.md", "no such note", "assets/search diagram.png"]
    answer = await shared.search(query="bm25 saturation", limit=2, explain=asked, record=False)
    assert answer["results"] == plain["results"] and plain["explain"] == []
    verdicts = {item["note"]: item for item in answer["explain"]}
    assert list(verdicts) == asked
    bm25 = verdicts["search/bm25.md"]
    assert bm25["verdict"] == "shown" and bm25["uri"] == shared.uri("search/bm25.md")
    assert verdicts["travel/成都美食.md"]["verdict"] in ("no_evidence", "linked_only")
    assert verdicts["no such note"]["verdict"] == "not_a_note"
    png = verdicts["assets/search diagram.png"]
    assert (png["verdict"], png["reason"]) == ("not_a_note", "not_markdown")
    assert all(item["sentence"].startswith(f"“{item['note']}”") for item in answer["explain"])


async def test_search_about_a_note_puts_its_results_first(shared: Session) -> None:
    """`about`: the note, the notes linking to it and those naming it come first."""
    plain = await shared.search(query="kyoto food", limit=20, expand=False)
    about = await shared.search(query="kyoto food", limit=20, expand=False, about=["zettelkasten"])
    assert sorted(r["path"] for r in about["results"]) == sorted(
        r["path"] for r in plain["results"]
    )
    links = await shared.request("memlsp/links", {"uri": shared.uri("pkm/zettelkasten.md")})
    linking = {item["source"] for item in links["inlinks"]} | {"pkm/zettelkasten.md"}
    first = about["results"][0]["path"]
    assert first in linking or "zettelkasten" in shared.text(first).lower()
    assert plain["results"][0]["path"] != first


async def test_search_with_a_chinese_query(shared: Session) -> None:
    answer = await shared.search(query="向量检索", expand=False)
    assert answer["results"][0]["path"] == "search/向量检索.md"
    assert any("向量" in term or "检索" in term for term in answer["results"][0]["matched_terms"])


async def test_search_limit_and_min_score(shared: Session) -> None:
    every = (await shared.search(query="search", limit=50, expand=False))["results"]
    assert len(every) > 3
    assert len((await shared.search(query="search", limit=2))["results"]) == 2
    # The default limit is 10.
    assert len((await shared.search(query="search"))["results"]) == min(10, len(every))
    floor = every[2]["score"]
    kept = (await shared.search(query="search", limit=50, min_score=floor))["results"]
    assert [r["chunk_id"] for r in kept] == [r["chunk_id"] for r in every if r["score"] >= floor]
    assert 3 <= len(kept) < len(every)


async def test_search_date_range(shared: Session) -> None:
    everywhere = await shared.search(query="成都", limit=50, expand=False)
    assert len({r["path"] for r in everywhere["results"]}) > 1
    april = await shared.search(
        query="成都", limit=50, start_date="2023-04-01", end_date="2023-04-30"
    )
    assert {r["path"] for r in april["results"]} == {"travel/成都美食.md"}
    assert all(r["date"] == "2023-04-18" for r in april["results"])
    later = await shared.search(query="成都", limit=50, start_date="2024-01-01")
    assert {r["path"] for r in later["results"]} == {"daily/2024-03-15.md"}
    assert (await shared.search(query="成都", end_date="2000-01-01"))["results"] == []


async def test_search_expand_adds_the_neighbours(shared: Session) -> None:
    query = "Reciprocal Rank Fusion"
    plain = (await shared.search(query=query, limit=3, expand=False))["results"]
    assert all(r["outlinks"] == [] and r["inlinks"] == [] for r in plain)
    expanded = (await shared.search(query=query, limit=3))["results"]
    assert [r["chunk_id"] for r in expanded] == [r["chunk_id"] for r in plain]
    # No note is listed twice in one answer: not as a neighbour of a result that is a result too.
    listed = [n["path"] for r in expanded for n in r["outlinks"] + r["inlinks"]]
    assert len(listed) == len(set(listed))
    assert not set(listed) & {r["path"] for r in expanded}

    [fusion] = (await shared.search(query=query, limit=1))["results"]
    assert fusion["path"] == "search/hybrid-search.md"
    outlinks = {n["path"]: n for n in fusion["outlinks"]}
    assert {"search/bm25.md", "search/向量检索.md", "assets/search diagram.png"} == set(outlinks)
    assert outlinks["search/bm25.md"]["anchors"] == ["Scoring: k1 & b (saturation)", "why-idf"]
    inlinks = {n["path"]: n for n in fusion["inlinks"]}
    # Its eight linking notes, less the two already listed as outlinks.
    assert set(inlinks) == {
        "daily/2024-03-15.md",
        "inbox/broken-config.md",
        "index.md",
        "ml/embeddings.md",
        "pkm/知识管理.md",
        "search/tantivy.md",
    }
    assert inlinks["index.md"]["anchors"] == ["Fusion#Reciprocal Rank Fusion"]
    assert inlinks["index.md"]["name"] == "Home"
    assert inlinks["index.md"]["description"].startswith("Entry point of my notes")
    assert all(n["source"] == "link" for n in fusion["outlinks"] + fusion["inlinks"])


async def test_search_budget_tokens(shared: Session) -> None:
    whole = await shared.search(query="search", limit=10)
    full = whole["results"]
    assert len(full) == 10 and whole["dropped"] == [] and whole["budget_used"] is None
    one = (await shared.search(query="search", limit=10, budget_tokens=1))["results"]
    assert [r["chunk_id"] for r in one] == [full[0]["chunk_id"]]  # the first always fits
    cut = await shared.search(query="search", limit=10, budget_tokens=400)
    some = cut["results"]
    assert 1 <= len(some) < 10
    assert [r["chunk_id"] for r in some] == [r["chunk_id"] for r in full[: len(some)]]
    # What the budget left out is named, with where its note is: the rest of the answer.
    assert [(d["uri"], d["root"], d["score"]) for d in cut["dropped"]] == [
        (r["uri"], r["root"], r["score"]) for r in full[len(some) :]
    ]
    assert 0 < cut["budget_used"] <= 400
    left = len(cut["dropped"])
    assert cut["warnings"][-1] == (
        f"{left} more results left out to stay within 400 tokens (budget_tokens); "
        f"{cut['budget_used']} used"
    )


async def test_search_keeps_to_the_paths_and_tags_asked_for(shared: Session) -> None:
    everywhere = {r["path"] for r in (await shared.search(query="search", limit=50))["results"]}
    assert any(not path.startswith("search/") for path in everywhere)
    folder = await shared.search(query="search", limit=50, paths=["search/"])
    assert folder["results"] and all(r["path"].startswith("search/") for r in folder["results"])
    tagged = await shared.search(query="search", limit=50, tags="#Search", paths="**/*.md")
    # each has #search or a tag under it, in the frontmatter or inline (#search/chinese)
    assert {r["path"] for r in tagged["results"]} == {
        "search/bm25.md",
        "search/tantivy.md",
        "search/hybrid-search.md",
        "search/query understanding.md",
        "inbox/broken-config.md",
    }
    with pytest.raises(JsonRpcException) as raised:
        await shared.request("memlsp/search", {"query": "x", "paths": ["/etc"]})
    assert raised.value.code == INVALID_PARAMS
    assert "'paths' entries are vault-relative: '/etc' is an absolute path" in str(raised.value)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"query": 5},
        {"query": "x", "limit": 0},
        {"query": "x", "limit": "ten"},
        {"query": "x", "limit": 2.5},
        {"query": "x", "min_score": "high"},
        {"query": "x", "start_date": "yesterday"},
        {"query": "x", "end_date": 20240301},
        {"query": "x", "expand": "yes"},
        {"query": "x", "budget_tokens": True},
        {"query": "x", "fusion": "borda"},
        {"query": "x", "fusion": ["rrf"]},
        {"query": "x", "paths": ["../outside"]},
        {"query": "x", "paths": [3]},
        {"query": "x", "tags": "#"},
    ],
    ids=str,
)
async def test_search_with_bad_params_is_an_error_and_the_server_goes_on(
    shared: Session, params: dict[str, Any]
) -> None:
    with pytest.raises(JsonRpcException) as raised:
        await shared.request("memlsp/search", params)
    assert raised.value.code == INVALID_PARAMS
    assert (await shared.search(query="tantivy", limit=1))["results"][0]["path"] == (
        "search/tantivy.md"
    )


async def test_search_names_its_fusion_rule_and_takes_another(shared: Session) -> None:
    # None counted as recalled, so that asking again gives the same answer.
    default = await shared.search(query="bm25 saturation", expand=False, record=False)
    assert default["fusion"] == "evidence"
    rrf = await shared.search(query="bm25 saturation", expand=False, fusion="rrf", record=False)
    assert rrf["fusion"] == "rrf"
    # The same candidates and the same strength; each rule's first result shows the strength and
    # the scores fall from there.
    assert rrf["strength"] == default["strength"] > 0
    assert {r["path"] for r in rrf["results"]} == {r["path"] for r in default["results"]}
    for answer in (default, rrf):
        scores = [r["score"] for r in answer["results"]]
        assert scores[0] == pytest.approx(answer["strength"])
        assert scores == sorted(scores, reverse=True)
    again = await shared.search(
        query="bm25 saturation", expand=False, fusion="evidence", record=False
    )
    assert again == default


async def test_an_unknown_fusion_rule_is_named_with_the_valid_ones(shared: Session) -> None:
    with pytest.raises(JsonRpcException) as raised:
        await shared.request("memlsp/search", {"query": "x", "fusion": "borda"})
    assert raised.value.code == INVALID_PARAMS
    assert "'fusion' must be one of evidence, rrf, not 'borda'" in str(raised.value)


async def test_search_without_params_is_an_error(shared: Session) -> None:
    with pytest.raises(JsonRpcException) as raised:
        await shared.request("memlsp/search", None)
    assert raised.value.code == INVALID_PARAMS


# -- memlsp/links -------------------------------------------------------------------------------


def json_range_numbers(value: dict[str, dict[str, int]]) -> tuple[int, int, int, int]:
    start, end = value["start"], value["end"]
    return (start["line"], start["character"], end["line"], end["character"])


async def test_links_of_a_note(shared: Session) -> None:
    uri = shared.uri("index.md")
    links = await shared.request("memlsp/links", {"uri": uri})
    assert (links["uri"], links["path"]) == (uri, "index.md")
    assert len(links["outlinks"]) == 25
    by_text = {json_range_numbers(link["range"]): link for link in links["outlinks"]}

    ideas = by_text[range_numbers(shared.span("index.md", "[[ideas]]"))]
    assert ideas["status"] == "ambiguous"
    assert ideas["targets"] == ["travel/ideas.md"]
    assert sorted(ideas["candidates"]) == ["cooking/ideas.md", "travel/ideas.md"]
    assert [link["target"] for link in links["ambiguous"]] == ["ideas"]
    # A name two notes share as an alias is no ambiguity: the link goes to both.
    brain = by_text[range_numbers(shared.span("index.md", "[[Second Brain]]"))]
    assert brain["status"] == "resolved"
    assert sorted(brain["targets"]) == ["pkm/building-a-second-brain.md", "pkm/知识管理.md"]

    heading = by_text[range_numbers(shared.span("index.md", "[[bm25#^k1-default]]"))]
    assert (heading["target"], heading["anchor"], heading["kind"]) == (
        "bm25",
        "^k1-default",
        "wiki",
    )
    assert heading["targets"] == ["search/bm25.md"] and heading["status"] == "resolved"
    assert heading["source"] == "index.md" and heading["uri"] == uri
    embed = by_text[range_numbers(shared.span("index.md", "![[reading-list]]"))]
    assert embed["embed"] is True
    spaced = by_text[
        range_numbers(
            shared.span("index.md", "[Query understanding](search/query%20understanding.md)")
        )
    ]
    assert spaced["kind"] == "markdown" and spaced["targets"] == ["search/query understanding.md"]

    [outside] = links["unresolved"]
    assert (outside["target"], outside["status"]) == ("../outside.md", "outside")
    # Its own `[[#Notes on notes]]` links to it too.
    assert sorted(link["source"] for link in links["inlinks"]) == ["index.md", "pkm/知识管理.md"]
    [inlink] = [link for link in links["inlinks"] if link["source"] != "index.md"]
    assert inlink["uri"] == shared.uri("pkm/知识管理.md")
    assert json_range_numbers(inlink["range"]) == range_numbers(
        shared.span("pkm/知识管理.md", "[[index|首页]]")
    )


async def test_links_lists_unresolved_links(shared: Session) -> None:
    links = await shared.request("memlsp/links", {"uri": shared.uri("daily/2024-03-01.md")})
    assert sorted(link["target"] for link in links["unresolved"]) == [
        "Learning to Rank",
        "Search Team Roadmap",
    ]
    assert all(link["status"] == "unresolved" for link in links["unresolved"])
    assert [link["source"] for link in links["inlinks"]] == ["index.md"]


async def test_links_of_an_unknown_note_and_bad_params(shared: Session) -> None:
    assert await shared.request("memlsp/links", {"uri": "file:///nowhere/at/all.md"}) is None
    for params in ({}, {"uri": 7}, None):
        with pytest.raises(JsonRpcException) as raised:
            await shared.request("memlsp/links", params)
        assert raised.value.code == INVALID_PARAMS
    assert (await shared.request("memlsp/links", {"uri": shared.uri("index.md")}))["inlinks"]


# -- memlsp/status, memlsp/indexed, $/progress --------------------------------------------------


async def test_status(shared: Session) -> None:
    # The watcher asks for one rescan once its watch is up: on a busy machine it may still be
    # queued, so the status is read again until the queue is empty.
    for _ in range(100):
        status = await shared.request("memlsp/status", {})
        if status["vaults"][0]["pending_changes"] == 0:
            break
        await asyncio.sleep(0.1)
    assert status["version"]
    [vault] = status["vaults"]
    indexed = shared.events["memlsp/indexed"][0]
    assert vault["root"] == shared.vault.as_uri() == indexed.root
    assert vault["state"] == "ready"
    assert (vault["notes"], vault["chunks"]) == (24, indexed.chunks)
    assert vault["revision"] >= 1
    assert vault["indexed_files"] == vault["files_to_index"] == 24
    assert vault["pending_changes"] == 0
    assert (vault["name"], vault["summary"], vault["busy"]) == ("vault", "Ready: 24 notes", False)
    # The fixture's links: the ambiguous [[ideas]] and the link to a note not written yet.
    problems = vault["problems"]
    assert set(problems) == {"unresolved", "missing_anchors", "ambiguous", "outside"}
    assert problems["ambiguous"] >= 1 and problems["unresolved"] >= 1
    assert await shared.request("memlsp/status", None) == status


async def test_status_with_report_adds_each_vaults_report_and_nothing_else(
    shared: Session,
) -> None:
    plain = await shared.request("memlsp/status", {"report": False})
    assert all("report" not in vault for vault in plain["vaults"])
    status = await shared.request("memlsp/status", {"report": True})
    [vault] = status["vaults"]
    report = vault.pop("report")
    assert set(vault) == set(plain["vaults"][0])  # today's answer, as the extension polls it
    assert Path(report["root"]).resolve() == shared.vault.resolve()
    assert (report["notes"], report["state"], report["read_only"]) == (24, "ready", False)
    assert report["process"]["kind"] == "language server"
    assert isinstance(report["process"]["pid"], int) and report["process"]["pid"] != os.getpid()
    assert report["process"]["since"].endswith("Z")
    kinds = {group["kind"] for group in report["problems"]}
    assert {"ambiguous_link", "unresolved_link"} <= kinds
    assert report["settings"]["max_file_bytes"]["source"] == "default"
    with pytest.raises(JsonRpcException, match="'report' must be true or false"):
        await shared.request("memlsp/status", {"report": "yes"})


async def test_indexed_notification(shared: Session) -> None:
    # The first one: the watcher may ask for a rescan once its watch is up, which tells again.
    indexed = shared.events["memlsp/indexed"][0]
    assert indexed.root == shared.vault.as_uri()
    assert (indexed.notes, indexed.links, indexed.unresolved, indexed.ambiguous) == (24, 92, 8, 3)
    assert indexed.chunks > indexed.notes
    assert indexed.skipped_count == 0
    assert 0 <= indexed.seconds < 30


async def test_progress_while_indexing(shared: Session) -> None:
    reports = shared.client.progress_reports
    # The first run (a rescan once the watcher is up may make a second, with a token of its own).
    # pytest-lsp annotates the reports as ProgressParams; it stores the structured values.
    runs = {
        t: cast(list[WorkDoneProgress], v)
        for t, v in reports.items()
        if str(t).startswith("memlsp-index")
    }
    values = runs[min(runs, key=lambda token: int(str(token).rsplit("-", 1)[1]))]
    kinds = [value.kind for value in values]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    assert kinds[1:-1] and set(kinds[1:-1]) == {"report"}
    begin, *middle, end = values
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == "Indexing vault"
    assert [value.message for value in middle][-1] == "24 of 24 notes"
    assert all(isinstance(value, types.WorkDoneProgressReport) for value in middle)
    percentages = [
        value.percentage or 0 for value in middle if isinstance(value, types.WorkDoneProgressReport)
    ]
    assert percentages == sorted(percentages) and percentages[-1] == 100
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert end.message == "24 notes, 92 links (8 to notes not written yet, 3 ambiguous)"
