"""A request's id and the end of the lifecycle, as raw frames to a server process.

- A fractional number is an id JSON-RPC allows (it only advises against it): the request is
  answered, with that id. An id that is no string or number gets InvalidRequest with id null.
- Once `shutdown` has come, even before `initialize`, every request but `exit` (a notification)
  gets InvalidRequest; `initialize` too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.lsp_client import NoAnswer, StdioClient, initialize_params
from tests.helpers.vault import TWO_NOTES, write_notes

INVALID_REQUEST, NOT_INITIALIZED = -32600, -32002
HANG = 15.0  # seconds: a hang guard, not a timing


@pytest.fixture
def wire(tmp_path: Path) -> Iterator[StdioClient]:
    started = StdioClient(cwd=tmp_path)
    try:
        yield started
    finally:
        started.kill()


def vault_params(tmp_path: Path) -> dict[str, Any]:
    vault = write_notes(tmp_path / "vault", TWO_NOTES)
    return initialize_params(vault, cache_dir=str(tmp_path / "cache"))


def initialized(wire: StdioClient, tmp_path: Path) -> Path:
    """The server initialized on a small vault, once it is indexed; alpha.md's path."""
    wire.initialize(vault_params(tmp_path))
    return tmp_path / "vault" / "alpha.md"


def answer_to(wire: StdioClient, body: bytes) -> dict[str, Any]:
    """Send one frame; the next response (sent one at a time, so it is this frame's)."""
    start = len(wire.received)
    wire.send_frame(body)
    try:
        return wire.wait_message(lambda r: "method" not in r.message, HANG, start)[1].message
    except NoAnswer:
        pytest.fail(f"no answer within {HANG} s to {body!r}")


def request(msg_id: Any, method: str, params: Any = None) -> bytes:
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
    return json.dumps(message).encode()


def raw_id(written: str, method: str = "memlsp/status") -> bytes:
    """A request whose id is written as it is (`true`, `NaN`): what json.dumps would not write."""
    return b'{"jsonrpc":"2.0","id":%s,"method":"%s","params":{}}' % (
        written.encode(),
        method.encode(),
    )


def error_code(response: dict[str, Any]) -> int | None:
    return int(response["error"]["code"]) if "error" in response else None


def test_a_fractional_id_is_answered_with_it_and_an_id_of_another_kind_is_invalid(
    wire: StdioClient, tmp_path: Path
) -> None:
    alpha = initialized(wire, tmp_path)
    at = {"textDocument": {"uri": alpha.as_uri()}, "position": {"line": 2, "character": 12}}
    # One of memlsp's methods, and one whose params lsprotocol structures (with the id).
    status = answer_to(wire, request(1.5, "memlsp/status", {}))
    assert status["id"] == 1.5 and "vaults" in status["result"], status
    hover = answer_to(wire, request(-2.25, "textDocument/hover", at))
    assert hover["id"] == -2.25 and "Beta" in hover["result"]["contents"]["value"], hover
    for written in ("true", "false", '{"a":1}', "[]", "[1]", "null", "NaN", "Infinity"):
        refused = answer_to(wire, raw_id(written))
        assert error_code(refused) == INVALID_REQUEST, (written, refused)
        assert "id" in refused and refused["id"] is None, (written, refused)
    # The server goes on answering.
    assert answer_to(wire, request("after", "memlsp/status", {}))["id"] == "after"
    assert b"Traceback" not in wire.stderr, wire.stderr.decode(errors="replace")[-3000:]


def test_after_a_shutdown_before_initialize_only_exit_is_taken(
    wire: StdioClient, tmp_path: Path
) -> None:
    """`shutdown` first: refused as any request before `initialize` is, and from then on every
    request is InvalidRequest, `initialize` among them (it was answered with capabilities)."""
    first = answer_to(wire, request("down", "shutdown"))
    assert (first["id"], error_code(first)) == ("down", NOT_INITIALIZED), first
    params = vault_params(tmp_path)
    for msg_id, method, method_params in (
        ("init", "initialize", params),
        ("status", "memlsp/status", {}),
        ("again", "shutdown", None),
        (3.5, "memlsp/unknown", {}),
    ):
        refused = answer_to(wire, request(msg_id, method, method_params))
        assert (refused["id"], error_code(refused)) == (msg_id, INVALID_REQUEST), refused
    wire.notify("initialized", {})  # dropped: no answer, nothing started
    wire.notify("exit")
    assert wire.exited(timeout=HANG) is not None
    assert b"Traceback" not in wire.stderr, wire.stderr.decode(errors="replace")[-3000:]
