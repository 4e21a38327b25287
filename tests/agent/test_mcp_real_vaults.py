"""An agent's session on the real vaults (../shared/data/vaults, skipped when absent): `memlsp mcp`
over stdio, every tool, each answer checked against the command line on the same vault."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.agent.test_mcp_processes import cli, flags
from tests.helpers.cli import environment
from tests.helpers.paths import REPO
from tests.vault.test_real_vaults import VAULTS

pytestmark = [pytest.mark.e2e, pytest.mark.realdata]
QUERIES = REPO / "benchmarks" / "data"
SETS = {
    "knowledge-garden": "knowledge_garden_queries",
    "vaultofknowledge": "vaultofknowledge_queries",
}


@pytest.mark.parametrize("name", sorted(SETS))
async def test_an_agents_session(name: str, tmp_path: Path) -> None:
    source = VAULTS / name
    if not source.is_dir():
        pytest.skip(f"real vault {name} not found under {VAULTS} (shared test data absent)")
    vault = tmp_path / name  # a copy: the session writes a note
    shutil.copytree(source, vault, symlinks=True)
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memlsp", "mcp", str(vault), "--allow-writes", *flags(tmp_path)],
        env=environment(),
    )
    with open(QUERIES / f"{SETS[name]}.jsonl", encoding="utf-8") as handle:
        queries = [json.loads(line)["query"] for line in handle if line.strip()][:6]

    async with Client(server, read_timeout_seconds=600) as client:

        async def call(tool: str, **arguments: Any) -> Any:
            result = await client.call_tool(tool, arguments)
            text = result.content[0].text  # type: ignore[union-attr]
            assert not result.is_error, (tool, arguments, text)
            return json.loads(text)

        async def refused(tool: str, **arguments: Any) -> str:
            result = await client.call_tool(tool, arguments)
            text = str(result.content[0].text)  # type: ignore[union-attr]
            assert result.is_error and "Traceback" not in text, text
            return text

        # search: the command line's answer, in a process of its own
        # (neither counted as recalled: the second would show one recall more)
        for query in queries:
            answer = await call("search", query=query, record=False)
            assert answer == cli(
                vault, tmp_path, "search", query, "--budget-tokens", "20000", "--no-daemon",
                "--no-recall",
            )  # fmt: skip
            assert answer["results"], query
        top = answer["results"][0]["path"]

        # read: a section is exactly its lines
        sections = 0
        for result in answer["results"]:
            whole = await call("read", path=result["path"])
            lines = (vault / result["path"]).read_text(encoding="utf-8").splitlines()
            for heading in whole["headings"][:3]:
                part = await call("read", path=result["path"], heading=heading["text"])
                start, end = part["start_line"], part["end_line"]
                assert part["text"] == "\n".join(lines[start - 1 : end])
                assert start == heading["line"]
                if part["cut"] is None:  # whole: up to the next heading as high, or the end
                    below = [
                        h["line"] for h in whole["headings"]
                        if h["line"] > start and h["level"] <= heading["level"]
                    ]  # fmt: skip
                    assert end == (below[0] - 1 if below else len(lines)), heading
                else:
                    assert f"start_line={end + 1}" in part["cut"]
                sections += 1
        assert sections

        # links at depth 2: `memlsp links` hop by hop
        graph = await call("links", path=top, depth=2)
        kinds = {node["id"]: node["kind"] for node in graph["nodes"]}

        def hop(note: str) -> set[str]:
            links = cli(vault, tmp_path, "links", note)
            found = {t for item in links["outlinks"] for t in item["targets"]}
            found |= {item["source"] for item in links["inlinks"]}
            return found | {i["target"] for i in links["unresolved"] if i["status"] == "unresolved"}

        first = hop(top)
        second = set().union(*(hop(n) for n in first if kinds.get(n) == "note"), set())
        if graph["cut"] is None:
            assert set(kinds) == {top} | first | second
        assert {n["id"] for n in graph["nodes"] if n["distance"] == 1} == first

        # related and recent answer (keyword-only here: related says why it has nothing)
        assert "results" in await call("related", path=top)
        assert "notes" in await call("recent", days=36500, limit=5)

        # refusals, each a sentence
        assert "outside the vault" in await refused("read", path="../../etc/passwd")
        assert "no parameter" in await refused("search", query="x", k=3)
        assert "outside the vault" in await refused("write", path="../x.md", content="x")

        # a write, found by the next search, holding exactly its bytes
        content = "# 代理笔记\n\nThe agent learned that xylophagous beetles eat wood.\n"
        written = await call("write", path="Agent/学到的.md", content=content)
        assert (vault / written["path"]).read_bytes() == content.encode()
        found = await call("search", query="xylophagous beetles")
        assert found["results"][0]["path"] == "Agent/学到的.md"


def test_without_allow_writes_a_real_vault_is_never_written(tmp_path: Path) -> None:
    """The stdio server started as a user would, with no flag: `write` is refused with a message
    (the in-process tests check the same on the fixture; here as a process)."""
    source = VAULTS / "vaultofknowledge"
    if not source.is_dir():
        pytest.skip(f"real vault vaultofknowledge not found under {VAULTS}")
    import anyio

    async def session() -> str:
        server = StdioServerParameters(
            command=sys.executable,
            args=["-m", "memlsp", "mcp", str(source), *flags(tmp_path)],
            env=environment(),
        )
        async with Client(server, read_timeout_seconds=600) as client:
            result = await client.call_tool("write", {"path": "x.md", "content": "x"})
            assert result.is_error
            return str(result.content[0].text)  # type: ignore[union-attr]

    assert "--allow-writes" in anyio.run(session)
    assert not (source / "x.md").exists()
