"""`memlsp/search` counts each note it shows once per search, in the vault's cache, and
`record: false` nothing; `workspace/symbol`, a search per keystroke, counts nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.index.recall import RecallStore
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings
from tests.helpers.vault import snapshot
from tests.lsp.conftest import served

pytestmark = pytest.mark.asyncio(loop_scope="function")


def stored(vault: Path, cache: Path) -> dict[str, int]:
    store = RecallStore(cache_dir_for(vault, Settings(cache_dir=cache)))
    paths = [path.relative_to(vault).as_posix() for path in vault.rglob("*.md")]
    return {path: recall.recall_count for path, recall in store.recalls(paths).items()}


async def test_memlsp_search_counts_what_it_shows(tmp_path: Path) -> None:
    async with served(tmp_path, "vscode") as session:
        vault = session.vault
        before = snapshot(vault)
        for _ in range(3):
            answer = await session.search(query="bm25 saturation", limit=3)
        cut = await session.search(query="tantivy", limit=10, budget_tokens=1)
        uncounted = await session.search(query="bm25 saturation", limit=3, record=False)
        await session.symbols("bm25")
        await session.symbols("tantivy")
        counted = stored(vault, tmp_path / "cache")
        assert snapshot(vault) == before  # nothing of the vault written
    shown = [result["path"] for result in answer["results"]]
    assert len(shown) == 3 and [r["recall_count"] for r in answer["results"]] == [3, 3, 3]
    assert all(r["last_recalled_at"].endswith("Z") for r in answer["results"])
    assert [r["recall_count"] for r in uncounted["results"]] == [3, 3, 3]
    assert len(cut["results"]) == 1 and cut["dropped"]  # the budget's dropped are not shown
    expected = dict.fromkeys(shown, 3)
    first = cut["results"][0]["path"]
    expected[first] = expected.get(first, 0) + 1
    assert counted == expected
    assert cut["results"][0]["recall_count"] == expected[first]
