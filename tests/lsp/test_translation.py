"""In the editor: an English question finds a Chinese note in a vault written mostly in Chinese,
through workspace/symbol and memlsp/search, with the Chinese word it matched."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.lsp.conftest import start_session

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")

# A vault written mostly in Chinese: more of its sections have 的 than "the".
CHINESE = {
    f"日记/第{n}天.md": f"# 第{n}天\n\n今天的天气很好，我们去了公园的湖边散步。\n"
    for n in range(40)
}
INSURANCE = "# 保险的本质\n\n保险是用一笔确定的小钱，换取对不确定的大损失的保障。\n"


async def test_an_english_question_finds_a_chinese_note(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    files = {**CHINESE, "卡片/保险.md": INSURANCE}
    session = await start_session(raw_client, tmp_path, "neovim", files=files)
    # The server builds the dictionary on a thread of its own: no request waits for it, and
    # the first English question may come before it is there.
    for _ in range(300):
        if await session.finds("insurance", "卡片/保险.md"):
            break
        await asyncio.sleep(0.1)
    assert (await session.search_paths("insurance"))[:1] == ["卡片/保险.md"]
    answer = await session.search(query="insurance", mode="keyword")
    assert answer["results"][0]["path"] == "卡片/保险.md"
    assert answer["results"][0]["matched_terms"] == ["保险"]
    await raw_client.shutdown_session()
