"""What reaches the MCP server, checked as JSON-RPC before the SDK reads it: each line of its
standard input, and each body posted to it over HTTP.

The SDK drops what it cannot read without a word: a line that is not JSON, and a request whose
`id` is no string or integer (`true`, `1.5`, `null`, an object), which it takes for a
notification and never answers (over HTTP: 202 Accepted, and no answer). JSON-RPC answers both: a Parse error, or an Invalid Request,
with id null since the id cannot be echoed. A request with a usable id that is still not a
request the SDK can read (its `params` a number, say, or a lone surrogate's escape `\\udcff`,
which its JSON parser refuses) gets Invalid Request with its own id, for the same reason:
otherwise the agent waits for an answer that never comes.
"""

from __future__ import annotations

import io
import json
import math
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from memlsp.wire.common import json_kind

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
RequestId = int | str
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class CheckedLines:
    """The lines of `lines` that the SDK can read as they are; an error answer for each other one
    goes to `refusals`."""

    def __init__(
        self, lines: anyio.AsyncFile[str], refusals: MemoryObjectSendStream[SessionMessage]
    ) -> None:
        self.lines = lines
        self.refusals = refusals

    async def __aiter__(self) -> AsyncIterator[str]:
        async with self.refusals:
            async for line in self.lines:
                if not line.strip():
                    continue
                refusal = refusal_of(line)
                if refusal is None:
                    yield line
                else:
                    await self.refusals.send(SessionMessage(refusal))


class CheckedBodies:
    """An ASGI app in front of the SDK's: a posted body that `refusal_of` refuses is answered 400
    with its JSON-RPC error; any other request reaches the app as it came."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        parts, more = [], True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            parts.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(parts)
        refusal = refusal_of(body.decode("utf-8", errors="replace"))
        if refusal is None:
            await self.app(scope, _replay(body, receive), send)
            return
        answer = refusal.model_dump_json(by_alias=True, exclude_unset=True).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(answer))]
        await send({"type": "http.response.start", "status": 400, "headers": headers})
        await send({"type": "http.response.body", "body": answer})


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body once, as it came; then what the client sends next (a disconnect)."""
    sent = False

    async def replayed() -> MutableMapping[str, Any]:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed


def refusal_of(line: str) -> types.JSONRPCError | None:
    """The error that answers `line`, or None when the SDK can take it."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return _error(None, PARSE_ERROR, "the message is not JSON")
    if not isinstance(message, dict):
        return _error(
            None, INVALID_REQUEST, f"a message must be an object, not {json_kind(message)}"
        )
    if "method" not in message:
        if "result" in message or "error" in message:
            return None  # a response to one of ours: not answered, whatever it holds
        return _error(None, INVALID_REQUEST, "a message needs a 'method'")
    if "id" not in message:
        return None  # a notification: never answered, even when malformed
    msg_id = message["id"]
    if not _is_id(msg_id):
        problem = f"'id' must be a string or an integer, not {_id_kind(msg_id)}"
        return _error(None, INVALID_REQUEST, problem)
    try:  # read as the SDK reads it: its JSON parser refuses what json.loads takes (a lone
        # surrogate's escape, "\udcff"), and it would drop the line unanswered
        read = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as error:
        return _error(msg_id, INVALID_REQUEST, _first_problem(error))
    if not isinstance(read, types.JSONRPCRequest):
        return _error(msg_id, INVALID_REQUEST, "not a request the server can read")
    return None


def _is_id(value: Any) -> bool:
    # bool is an int in Python; a float id cannot be echoed by the SDK, which keeps integers only.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _id_kind(value: Any) -> str:
    if isinstance(value, float):
        return "a fraction" if math.isfinite(value) else "NaN or infinity"
    return json_kind(value)


def _first_problem(error: ValidationError) -> str:
    for item in error.errors():
        if item["type"] == "json_invalid":  # JSON that json.loads took, but not the SDK
            return f"the JSON cannot be read: {(item.get('ctx') or {}).get('error') or item['msg']}"
        where = ".".join(str(part) for part in item["loc"][1:])  # [0] is the union's member
        if where:
            return f"'{where}': {item['msg']}"
    return "not a JSON-RPC request"


def _error(msg_id: RequestId | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=msg_id, error=types.ErrorData(code=code, message=message)
    )


def standard_input() -> anyio.AsyncFile[str]:
    """The process's standard input as UTF-8 lines, a bad byte replaced (as the SDK reads it)."""
    return anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
