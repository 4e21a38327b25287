"""Property filters as an agent gives them: `where`, an object, on the `search` and `recent` tools,
answered as the command line's `--where` is; a bad filter is one sentence naming 'where'."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.agent.budget import DEFAULT_BUDGET
from tests.agent.test_mcp import agent, call, cli_json, refused, settings_for
from tests.helpers.vault import write_notes
from tests.search.test_filters import AGES, MOVIES, NOTES, aged


def vault_of(tmp_path: Path) -> Path:
    root = write_notes(tmp_path / "vault", NOTES).resolve()
    aged(root)
    return root


@pytest.mark.e2e  # compares with the command line's answer, asked on the agent's socket
async def test_search_and_recent_take_a_where_object(tmp_path: Path) -> None:
    vault = vault_of(tmp_path)
    settings = settings_for(tmp_path / "cache")
    newest = sorted(MOVIES, key=AGES.__getitem__)
    async with agent(vault, settings) as client:
        # Both uncounted: each counted answer shows one recall more than the one before.
        listed = await call(client, "search", where={"type": "Movie"}, limit=1000, record=False)
        assert [r["path"] for r in listed["results"]] == newest
        assert listed == cli_json(
            vault, settings, "search", "--type", "Movie", "--limit", "1000",
            "--budget-tokens", str(DEFAULT_BUDGET), "--no-recall",
        )  # fmt: skip
        found = await call(
            client, "search", query="film", mode="keyword", where={"state": "想看", "rating": ">3"}
        )
        assert [r["path"] for r in found["results"]] == ["movies/alien.md"]
        linked = await call(client, "search", where={"categories": "[[Books]]"})
        assert {r["path"] for r in linked["results"]} == {
            "movies/dune.md",
            "reading/dune-book.md",
        }
        recent = await call(client, "recent", days=100_000, where={"type": "movie", "rating": None})
        assert [n["path"] for n in recent["notes"]] == [p for p in newest if p != "movies/heat.md"]
        assert await refused(client, "search", where={"type": "opera"}) == (
            "nothing found for these filters: no note matches the filters asked for: nothing found"
        )
        bad = await refused(client, "search", where={"rating": ">=good"})
        assert bad.startswith("'where' compares with >= a number or a date")
        bad = await refused(client, "recent", where={"a<b": "c"})
        assert bad.startswith("'where' keys are property names")
        empty = await refused(client, "search")
        assert empty.startswith("'query' is empty")
