"""`memlsp mcp` as a process, the way agents' clients start it: over stdio and over streamable HTTP,
every tool called through the `mcp` SDK's client, answers equal to the command line's."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.agent.test_mcp import FIXTURE
from tests.helpers.cli import environment, memlsp
from tests.helpers.paths import REPO

pytestmark = pytest.mark.e2e


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(FIXTURE, root)
    return root.resolve()


def flags(tmp_path: Path) -> list[str]:
    return ["--cache-dir", str(tmp_path / "cache"), "--embedder", "none"]


def cli(vault: Path, tmp_path: Path, *args: str) -> Any:
    command, *rest = args
    run = memlsp(command, vault, *rest, "--json", *flags(tmp_path))
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


async def every_tool(client: Client, vault: Path, tmp_path: Path) -> None:
    """Each tool once, as an agent would in a first session, checked against the command line."""

    async def call(tool: str, **arguments: Any) -> Any:
        result = await client.call_tool(tool, arguments)
        text = result.content[0].text  # type: ignore[union-attr]
        assert not result.is_error, text
        return json.loads(text)

    names = [tool.name for tool in (await client.list_tools()).tools]
    assert names == ["search", "read", "links", "related", "recent", "status", "write"]
    # Neither counted as recalled: the second would show one recall more.
    found = await call("search", query="tantivy bm25", limit=5, record=False)
    assert found == cli(vault, tmp_path, "search", "tantivy bm25", "--limit", "5",
                        "--budget-tokens", "20000", "--no-recall")  # fmt: skip
    read = await call("read", path="search/tantivy.md")
    assert read["text"] == (vault / "search" / "tantivy.md").read_text().rstrip("\n")
    graph = await call("links", path="search/tantivy.md")
    assert "search/bm25.md" in {node["id"] for node in graph["nodes"]}
    related = await call("related", path="search/tantivy.md")
    assert "warning" in related  # keyword-only here: it says why there is nothing by meaning
    assert (await call("recent", days=3650))["notes"]
    written = await call("write", path="inbox/from-agent.md", content="# Agent\n\nquokka facts")
    assert written["path"] == "inbox/from-agent.md"
    assert (await call("search", query="quokka"))["results"][0]["path"] == "inbox/from-agent.md"
    assert (vault / "inbox" / "from-agent.md").read_bytes() == b"# Agent\n\nquokka facts"
    refused = await client.call_tool("read", {"path": "../../etc/passwd"})
    assert refused.is_error and "outside the vault" in refused.content[0].text  # type: ignore[union-attr]


async def test_over_stdio_in_the_vaults_folder(vault: Path, tmp_path: Path) -> None:
    """No VAULT given: the vault the folder it was started in belongs to."""
    (vault / ".obsidian").mkdir()
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memlsp", "mcp", "--allow-writes", *flags(tmp_path)],
        env=environment(),
        cwd=vault / "search",
    )
    async with Client(server, read_timeout_seconds=120) as client:
        await every_tool(client, vault, tmp_path)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def http_server(vault: Path, tmp_path: Path, host: str, **env: str) -> Iterator[str]:
    port = free_port()
    command = [sys.executable, "-m", "memlsp", "mcp", str(vault), "--allow-writes"]
    process = subprocess.Popen(
        [*command, *flags(tmp_path), "--http", f"{host}:{port}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(**env),
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.communicate()[1].decode()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server did not listen"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=30)
        assert out == b""  # nothing on stdout, even over HTTP


async def test_over_http(vault: Path, tmp_path: Path) -> None:
    with http_server(vault, tmp_path, "127.0.0.1") as url:
        async with Client(url, read_timeout_seconds=120) as client:
            await every_tool(client, vault, tmp_path)


def test_another_address_than_loopback_needs_a_token(vault: Path, tmp_path: Path) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "memlsp",
            "mcp",
            str(vault),
            "--http",
            "0.0.0.0:8",
            *flags(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment(),
    )
    assert run.returncode == 2
    assert "MEMLSP_MCP_TOKEN" in run.stderr and "Traceback" not in run.stderr


async def test_a_token_is_asked_for_and_checked(vault: Path, tmp_path: Path) -> None:
    token = "t" * 12 + "0123456789abcdef"
    with http_server(vault, tmp_path, "0.0.0.0", MEMLSP_MCP_TOKEN=token) as url:
        async with httpx2.AsyncClient() as plain:
            response = await plain.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert response.status_code == 401
            wrong = await plain.post(
                url, json={}, headers={"Authorization": "Bearer " + "x" * len(token)}
            )
            assert wrong.status_code == 401
        authorised = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
        async with (
            authorised,
            Client(streamable_http_client(url, http_client=authorised)) as client,
        ):
            answer = await client.call_tool("search", {"query": "tantivy"})
            assert not answer.is_error


def test_with_no_vault_it_serves_the_folder_it_was_started_in(vault: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "memlsp", "mcp", *flags(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path / "empty",
        env=environment(),
    )
    assert run.returncode == 2 and "is not a vault" in run.stderr and "memlsp mcp" in run.stderr


def setup_configs() -> list[dict[str, Any]]:
    """The server entries of the set-up section of docs/agents.md, each client's JSON as written."""
    text = (REPO / "docs" / "agents.md").read_text(encoding="utf-8")
    section = text.split("## Set-up in agents' clients", 1)[1].split("\n## ", 1)[0]
    entries = []
    for block in re.findall(r"```json\n(.*?)```", section, re.S):
        config = json.loads(block)
        servers = config.get("mcpServers") or config["servers"]
        entries.append(servers["memlsp"])
    return entries


def test_the_setup_gives_each_client_a_working_entry() -> None:
    entries = setup_configs()
    assert len(entries) == 3  # Claude Code's .mcp.json, Claude Desktop, VS Code (Cursor: as Code's)
    for entry in entries:
        assert entry.get("type", "stdio") == "stdio"
        assert Path(entry["command"]).name == "memlsp" and entry["args"][0] == "mcp"


@pytest.mark.parametrize("entry", range(3))
async def test_each_setup_entry_starts_a_server_that_answers(
    vault: Path, tmp_path: Path, entry: int
) -> None:
    """Started as the client would start it: the entry's command (the `memlsp` installed beside
    this Python) and its arguments, with the vault's path where docs/agents.md has an example's."""
    config = setup_configs()[entry]
    command = shutil.which("memlsp", path=str(Path(sys.executable).parent))
    assert command is not None
    args = [
        str(vault) if "notes" in arg or "workspaceFolder" in arg else arg for arg in config["args"]
    ]
    server = StdioServerParameters(
        command=command, args=[*args, *flags(tmp_path)], env=environment()
    )
    async with Client(server, read_timeout_seconds=120) as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        assert tools == ["search", "read", "links", "related", "recent", "status"]
        result = await client.call_tool("search", {"query": "tantivy"})
        assert not result.is_error
