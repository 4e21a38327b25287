"""Semantic search through a real client, with the real default embedder (offline models).

One server for the module: it loads the models and embeds the fixture vault in the background,
announcing progress with `$/progress` and the result with `memlsp/vectors`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TypeAlias, cast

import pytest
import pytest_asyncio
from lsprotocol import types

from tests.lsp.conftest import Session, served

pytestmark = pytest.mark.asyncio(loop_scope="module")

WorkDoneProgress: TypeAlias = (
    types.WorkDoneProgressBegin | types.WorkDoneProgressReport | types.WorkDoneProgressEnd
)

# Shares no word with travel/kyoto-2023.md (checked below), so only the vector side can find it.
MEANING_ONLY = "visiting shrines of former imperial capitals"
TARGET = "travel/kyoto-2023.md"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def semantic(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    folder = tmp_path_factory.mktemp("semantic")
    async with served(folder, "vscode", {"embedder": "bilingual"}) as session:
        [vectors] = await session.wait_for("memlsp/vectors", timeout=120)
        assert vectors.vectors.state == "ready", vectors
        yield session


async def embedded_now(session: Session) -> tuple[int, int]:
    """How many chunks have vectors now, and how many `memlsp/vectors` have arrived."""
    heard = len(session.events.get("memlsp/vectors", []))
    status = await session.request("memlsp/status", {})
    return int(status["vaults"][0]["vectors"]["embedded"]), heard


async def embedded_more_than(session: Session, before: tuple[int, int]) -> None:
    """Wait for a `memlsp/vectors` since `before` that tells of an embedding run that caught up
    with more chunks than then (not merely the next one: a run from before may end meanwhile)."""
    embedded, heard = before
    await session.wait_until(
        "memlsp/vectors",
        lambda p: p.vectors.pending == 0 and p.vectors.embedded > embedded,
        since=heard,
        timeout=60,
    )


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


async def test_the_vault_is_embedded_and_announced(semantic: Session) -> None:
    [done] = semantic.events["memlsp/vectors"]
    indexed = semantic.events["memlsp/indexed"][0]
    assert done.root == semantic.vault.as_uri()
    vectors = done.vectors
    # Every chunk of prose has its vector; a title-only or image-only section gets none.
    assert 0.8 * indexed.chunks < vectors.embedded < indexed.chunks
    assert (vectors.pending, vectors.problem) == (0, "")
    assert vectors.embedder == "bilingual-minilm-l6-int8mm+use-m3-512+bridge"
    status = await semantic.request("memlsp/status", {})
    assert status["vaults"][0]["vectors"] == {
        "state": "ready",
        "embedder": vectors.embedder,
        "embedded": vectors.embedded,
        "pending": 0,
        "problem": "",
    }


async def test_embedding_progress_ends_with_the_counts(semantic: Session) -> None:
    reports = semantic.client.progress_reports
    [values] = [v for t, v in reports.items() if str(t).startswith("memlsp-vectors")]
    begin, *_, end = values
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == "Finding meaning in vault"
    embedded = semantic.events["memlsp/vectors"][0].vectors.embedded
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert end.message == f"{embedded} of {embedded} sections"


async def test_a_hit_by_meaning_alone(semantic: Session) -> None:
    note = (semantic.vault / TARGET).read_text(encoding="utf-8")
    assert not words(MEANING_ONLY) & words(note)
    vector = await semantic.search(query=MEANING_ONLY, mode="vector", limit=3, expand=False)
    assert vector["results"][0]["path"] == TARGET
    assert vector["results"][0]["keyword_rank"] is None
    assert vector["results"][0]["vector_rank"] == 1
    assert vector["counts"]["keyword"] == 0 and vector["counts"]["vector"] > 0
    # Weighted RRF puts a vector-only hit after the keyword hits (w_v = 0.3), so ask for enough.
    hybrid = await semantic.search(query=MEANING_ONLY, limit=50, expand=False)
    assert hybrid["counts"]["hybrid"] is True and hybrid["warnings"] == []
    found = [r for r in hybrid["results"] if r["path"] == TARGET]
    assert found and found[0]["keyword_rank"] is None and found[0]["vector_rank"] == 1
    keyword = await semantic.search(query=MEANING_ONLY, mode="keyword", limit=50, expand=False)
    assert TARGET not in {r["path"] for r in keyword["results"]}


async def test_hybrid_keeps_the_keyword_evidence(semantic: Session) -> None:
    answer = await semantic.search(query="bm25 saturation", limit=5)
    top = answer["results"][0]
    # Sections with both words come first, found by both sides; which of the two notes that
    # have them leads is the vector side's call (search/bm25.md, or search/hybrid-search.md,
    # whose mostly Chinese section links to bm25's saturation heading).
    assert top["keyword_rank"] is not None and top["vector_rank"] is not None
    assert 0 < top["score"] <= 1
    assert {"bm25", "satur"} <= set(top["matched_terms"])
    assert "search/bm25.md" in [r["path"] for r in answer["results"][:2]]


async def test_a_chinese_question_finds_the_chinese_note(semantic: Session) -> None:
    answer = await semantic.search(query="按意思而不是字面找相似的文本", mode="vector", limit=3)
    assert "search/向量检索.md" in [r["path"] for r in answer["results"]]


async def test_workspace_symbol_is_hybrid(semantic: Session) -> None:
    symbols = await semantic.symbols(MEANING_ONLY)
    assert TARGET in [symbol.container_name for symbol in symbols]


async def test_a_new_note_gets_its_vectors(semantic: Session, tmp_path: Path) -> None:
    embedded = await embedded_now(semantic)
    semantic.write("travel/lisbon.md", "# Lisbon\n\nTrams climbing steep hills above the river.\n")
    await embedded_more_than(semantic, embedded)
    answer = await semantic.search(
        query="streetcars going up slopes by the water", mode="vector", limit=3
    )
    assert answer["results"][0]["path"] == "travel/lisbon.md"


async def test_an_unreachable_embedder_leaves_keyword_search(tmp_path: Path) -> None:
    options = {
        "embedder": "endpoint",
        "embedder_url": "http://127.0.0.1:9/v1",  # the discard port: nothing listens
        "embedder_model": "nomic-embed-text",
        "vector_retry_seconds": 0.2,
    }
    async with served(tmp_path, "neovim", options) as session:
        [vectors] = await session.wait_for("memlsp/vectors", timeout=60)
        assert vectors.vectors.state == "unavailable"
        assert "127.0.0.1:9" in vectors.vectors.problem
        # Not counted as recalled: the second answer would show one recall more.
        answer = await session.search(query="bm25 saturation", limit=3, record=False)
        keyword = await session.search(
            query="bm25 saturation", limit=3, mode="keyword", record=False
        )
        assert answer["results"] == keyword["results"] and answer["results"]
        assert answer["counts"]["hybrid"] is False and answer["counts"]["vector"] == 0
        assert answer["warnings"] and "unavailable" in answer["warnings"][0]
        status = await session.request("memlsp/status", {})
        assert status["vaults"][0]["vectors"]["state"] == "unavailable"
        # Retried every 0.2 s, but told once.
        await asyncio.sleep(1.0)
        assert len(session.events["memlsp/vectors"]) == 1


async def test_each_embedding_run_has_a_progress_token_of_its_own(semantic: Session) -> None:
    """pygls never forgets a token: one reused per run failed from the second run on
    ("Token is already registered!", then an `end` with no `begin`)."""
    for number in (1, 2):
        embedded = await embedded_now(semantic)
        semantic.write(f"inbox/later-{number}.md", f"# Later {number}\n\nQuantum gardening.\n")
        await embedded_more_than(semantic, embedded)
    # pytest-lsp annotates the reports as ProgressParams; it stores the structured values.
    runs = {
        token: cast(list[WorkDoneProgress], values)
        for token, values in semantic.client.progress_reports.items()
        if str(token).startswith("memlsp-vectors")
    }
    # The first embedding, then the new notes (two quick runs may share no progress at all).
    assert len(runs) >= 2, runs
    for values in runs.values():
        assert [values[0].kind, values[-1].kind] == ["begin", "end"], values
    logged = " ".join(message.message for message in semantic.client.log_messages)
    assert "already registered" not in logged
