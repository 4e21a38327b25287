"""JSON-RPC to `memlsp mcp` as raw lines over stdio and raw bodies over HTTP: every request is answered, a malformed one
with an error (id null when its id cannot be echoed), and the server goes on answering."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from memlsp.agent.jsonrpc import INVALID_REQUEST, PARSE_ERROR, refusal_of
from tests.agent.test_mcp_processes import http_server
from tests.helpers.mcp_stdio import McpProcess
from tests.helpers.vault import TWO_NOTES, write_notes

HANG = 30.0  # seconds: a hang guard, not a timing

# JSON to json.loads, not to the SDK's parser, which dropped the line unanswered.
LONE_SURROGATE = (
    b'{"jsonrpc":"2.0","id":5,"method":"tools/call",'
    b'"params":{"name":"search","arguments":{"query":"a\\udcffb"}}}'
)
MALFORMED = [
    # (the line, the error code, the id it is answered with)
    (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":false,"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":[1],"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":NaN,"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":"p","method":"tools/call","params":5}', INVALID_REQUEST, "p"),
    (b'{"jsonrpc":"1.0","id":"v","method":"tools/list"}', INVALID_REQUEST, "v"),
    (b'{"jsonrpc":"2.0","id":"m","method":7}', INVALID_REQUEST, "m"),
    (b'{"jsonrpc":"2.0","id":3}', INVALID_REQUEST, None),
    (b"[]", INVALID_REQUEST, None),
    (b'[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]', INVALID_REQUEST, None),
    (b"42", INVALID_REQUEST, None),
    (LONE_SURROGATE, INVALID_REQUEST, 5),
    (b"not json", PARSE_ERROR, None),
    (b'{"jsonrpc":"2.0","id":4,"method":', PARSE_ERROR, None),
    (b"\xff\xfe{}", PARSE_ERROR, None),
    (b"[" * 100_000, PARSE_ERROR, None),
]


@pytest.mark.parametrize(("line", "code", "msg_id"), MALFORMED, ids=lambda v: repr(v)[:40])
def test_a_malformed_message_gets_its_error(line: bytes, code: int, msg_id: Any) -> None:
    refusal = refusal_of(line.decode("utf-8", errors="replace"))
    assert refusal is not None
    assert (refusal.error.code, refusal.id) == (code, msg_id)
    assert refusal.error.message and "Traceback" not in refusal.error.message


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":"x","method":"unknown/method","params":{}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","method":"notifications/x","params":5}',  # never answered
        '{"jsonrpc":"2.0","id":"ours","result":{}}',  # a response: never answered
    ],
)
def test_what_the_sdk_reads_is_passed_on(line: str) -> None:
    assert refusal_of(line) is None


@pytest.fixture
def mcp(tmp_path: Path) -> Iterator[McpProcess]:
    vault = write_notes(tmp_path / "vault", TWO_NOTES)
    server = McpProcess(vault, tmp_path / "cache")
    try:
        yield server
    finally:
        server.close()


@pytest.mark.e2e  # a server process
def test_every_malformed_request_is_answered_and_the_server_goes_on(mcp: McpProcess) -> None:
    for line, code, msg_id in MALFORMED:
        mcp.send_line(line.decode("utf-8", errors="surrogateescape"))
        answer = mcp.next_answer(HANG)
        assert answer.get("error", {}).get("code") == code, (line[:60], answer)
        assert "id" in answer and answer["id"] == msg_id, (line[:60], answer)
        listed = mcp.request("tools/list", {}, HANG)
        assert listed["result"]["tools"], (line[:60], listed)
    mcp.close()
    assert mcp.process.returncode == 0
    assert "Traceback" not in mcp.log.read_text()


@pytest.mark.e2e  # a server process
def test_over_http_a_malformed_request_is_answered_400_with_its_error(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", TWO_NOTES)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    with http_server(vault, tmp_path, "127.0.0.1") as url, httpx2.Client(timeout=HANG) as http:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "raw", "version": "1"}
        first = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}
        opened = http.post(url, json=first, headers=headers)
        assert opened.status_code == 200, opened.text
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = "2025-06-18"
        started = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post(url, json=started, headers=headers).status_code == 202
        for line, code, msg_id in MALFORMED:
            answer = http.post(url, content=line, headers=headers)
            assert answer.status_code == 400, (line[:60], answer.text)
            error = answer.json()
            assert (error["error"]["code"], error["id"]) == (code, msg_id), (line[:60], error)
        listed = http.post(
            url, json={"jsonrpc": "2.0", "id": "next", "method": "tools/list"}, headers=headers
        )
        assert listed.status_code == 200 and '"id":"next"' in listed.text, listed.text
