"""The MCP tools and recall memory: each note a `search` shows the agent is counted once, in the
vault's cache; `record=false` counts nothing; `recent(by="recalled")` lists the most recalled."""

from __future__ import annotations

from pathlib import Path

from memlsp.agent.budget import answer_tokens
from memlsp.index.recall import RecallStore
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings
from tests.agent.test_mcp import agent, call, settings_for, vault
from tests.helpers.vault import snapshot

__all__ = ["vault"]  # the fixture, shared with test_mcp.py


def stored(vault: Path, settings: Settings) -> dict[str, int]:
    store = RecallStore(cache_dir_for(vault, settings))
    paths = [path.relative_to(vault).as_posix() for path in vault.rglob("*.md")]
    return {path: recall.recall_count for path, recall in store.recalls(paths).items()}


async def test_each_search_counts_what_it_shows_unless_told_not_to(
    vault: Path, tmp_path: Path
) -> None:
    settings = settings_for(tmp_path / "cache")
    async with agent(vault, settings) as client:
        await call(client, "status")  # indexed: the vault as it is from now on
        before = snapshot(vault)
        for _ in range(3):
            answer = await call(client, "search", query="bm25 saturation", limit=3)
        uncounted = await call(client, "search", query="bm25 saturation", limit=3, record=False)
        recalled = await call(client, "recent", by="recalled", days=1)
        changed = await call(client, "recent")
    shown = [result["path"] for result in answer["results"]]
    assert len(shown) == 3
    assert [result["recall_count"] for result in answer["results"]] == [3, 3, 3]
    assert [result["recall_count"] for result in uncounted["results"]] == [3, 3, 3]
    assert stored(vault, settings) == dict.fromkeys(shown, 3)
    assert recalled["by"] == "recalled"
    assert sorted(note["path"] for note in recalled["notes"]) == sorted(shown)
    assert {note["recall_count"] for note in recalled["notes"]} == {3}
    assert changed["by"] == "changed"
    assert snapshot(vault) == before


async def test_a_search_cut_to_the_agents_budget_counts_what_it_shows(
    vault: Path, tmp_path: Path
) -> None:
    """Over the budget by its JSON, the tool asks again for every result and cuts them itself:
    only the notes it shows are counted, once, not those the first ask would have shown."""
    settings = settings_for(tmp_path / "cache")
    async with agent(vault, settings) as client:
        cut = await call(client, "search", query="search", limit=10, budget_tokens=1500)
    assert cut["dropped"] and answer_tokens(cut) <= 1500
    shown = [result["path"] for result in cut["results"]]
    assert stored(vault, settings) == dict.fromkeys(shown, 1)
    assert [result["recall_count"] for result in cut["results"]] == [1] * len(shown)
