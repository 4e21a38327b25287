"""`memlsp/search` with property filters: `where` as a list of filters or an object, a list by
filters alone newest first, and a malformed filter refused as invalid params naming the forms."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.lsp.conftest import start_session
from tests.search.test_filters import AGES, MOVIES, NOTES

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")


async def test_memlsp_search_takes_where(raw_client: LanguageClient, tmp_path: Path) -> None:
    session = await start_session(raw_client, tmp_path, "vscode", files=NOTES)
    for path, age in AGES.items():  # changed, at these times: the index reads them
        (tmp_path / "vault" / path).write_text(NOTES[path] + "\nChanged.\n", encoding="utf-8")
        when = 1_700_000_000 - age * 3600
        os.utime(tmp_path / "vault" / path, (when, when))
    indexed = len(session.events["memlsp/indexed"])
    await session.request("memlsp/reindex", {})
    await session.wait_for("memlsp/indexed", indexed + 1)
    listed = await session.search(where=["type=Movie"], limit=100)
    assert [r["path"] for r in listed["results"]] == sorted(MOVIES, key=AGES.__getitem__)
    assert listed["query"] == "" and all(r["score"] == 0 for r in listed["results"])
    found = await session.search(query="film", where={"state": "想看", "type": "movie"})
    assert {r["path"] for r in found["results"]} == {"movies/alien.md", "movies/heat.md"}
    with pytest.raises(JsonRpcException) as raised:
        await session.request("memlsp/search", {"query": "film", "where": ["a<=>b"]})
    assert "memlsp/search: 'where' takes KEY=VALUE, KEY!=VALUE" in str(raised.value)
    await raw_client.shutdown_session()
