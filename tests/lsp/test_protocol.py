"""Every request gets exactly one answer, whatever its params and whenever it comes; a frame
whose body is not JSON gets a ParseError; and the server lives on to answer a good hover.

The bare JSON-RPC client (`tests.helpers.lsp_client`) frames each message itself and waits for answers with a
deadline, so a request the server never answers fails the test instead of hanging it.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from memlsp.lsp.main import create_server
from tests.helpers.lsp_client import NoAnswer, StdioClient, initialize_params
from tests.helpers.vault import TWO_NOTES, write_notes

INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32600, -32601, -32602
REQUEST_FAILED = -32803  # LSP's: a valid request the server cannot do, and says why
PARSE_ERROR, NOT_INITIALIZED, CANCELLED = -32700, -32002, -32800
HANG = 15.0  # seconds: a hang guard, not a timing
_numbers = itertools.count(1)


def registered_requests() -> list[str]:
    """The request methods the server handles: its features and pygls's built-in ones."""
    manager = create_server().protocol.fm
    methods = set(manager.features) | set(manager.builtin_features)
    return sorted(method for method in methods if _is_request(method))


def _is_request(method: str) -> bool:
    message_type = types.METHOD_TO_TYPES.get(method, (None,))[0]
    if message_type is None:
        assert method.startswith("memlsp/"), method  # our own methods are all requests
        return True
    return "id" in attrs.fields_dict(message_type)


REQUESTS = registered_requests()
FEATURES = [m for m in REQUESTS if m not in (types.INITIALIZE, types.SHUTDOWN)]
# Absent, null or empty-array params are fine (Neovim encodes an empty Lua table `{}` as `[]`).
TAKES_NO_PARAMS = {"memlsp/status", "memlsp/reindex"}
AT_A_POSITION = [
    types.TEXT_DOCUMENT_HOVER,
    types.TEXT_DOCUMENT_DEFINITION,
    types.TEXT_DOCUMENT_REFERENCES,
    types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY,
    types.TEXT_DOCUMENT_COMPLETION,
    types.TEXT_DOCUMENT_PREPARE_RENAME,
]


@dataclass(frozen=True)
class Vault:
    """small_vault: alpha.md is "# Alpha", "", "Links to [[beta]]."."""

    root: Path

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    def item(self, name: str) -> dict[str, Any]:
        where = {"line": 0, "character": 0}
        span = {"start": where, "end": where}
        return {
            "name": name,
            "kind": 17,
            "uri": self.uri(name),
            "range": span,
            "selectionRange": span,
        }

    def at(self, line: int, character: int) -> dict[str, Any]:
        return {
            "textDocument": {"uri": self.uri("alpha.md")},
            "position": {"line": line, "character": character},
        }

    def good(self, method: str) -> Any:
        """Params right for `method`: on `[[beta]]` in alpha.md."""
        at = self.at(2, 12)
        return {
            types.TEXT_DOCUMENT_HOVER: at,
            types.TEXT_DOCUMENT_DEFINITION: at,
            types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY: at,
            types.TEXT_DOCUMENT_COMPLETION: at,
            types.TEXT_DOCUMENT_PREPARE_RENAME: at,
            types.TEXT_DOCUMENT_RENAME: {**at, "newName": "gamma"},
            types.WORKSPACE_WILL_RENAME_FILES: {
                "files": [{"oldUri": self.uri("beta.md"), "newUri": self.uri("sub/beta.md")}]
            },
            types.TEXT_DOCUMENT_CODE_ACTION: {
                "textDocument": at["textDocument"],
                "range": {"start": at["position"], "end": at["position"]},
                "context": {"diagnostics": []},
            },
            types.TEXT_DOCUMENT_REFERENCES: {**at, "context": {"includeDeclaration": True}},
            types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: {"textDocument": at["textDocument"]},
            types.TEXT_DOCUMENT_DOCUMENT_LINK: {"textDocument": at["textDocument"]},
            types.TEXT_DOCUMENT_CODE_LENS: {"textDocument": at["textDocument"]},
            types.CALL_HIERARCHY_INCOMING_CALLS: {"item": self.item("beta.md")},
            types.CALL_HIERARCHY_OUTGOING_CALLS: {"item": self.item("alpha.md")},
            types.WORKSPACE_SYMBOL: {"query": "second"},
            types.WORKSPACE_EXECUTE_COMMAND: {"command": "memlsp.none"},
            types.SHUTDOWN: None,
            "memlsp/search": {"query": "second"},
            "memlsp/links": {"uri": self.uri("alpha.md")},
            "memlsp/related": {"uri": self.uri("alpha.md"), "limit": 5},
            "memlsp/mentions": {"uri": self.uri("alpha.md")},
            "memlsp/graph": {"uri": self.uri("alpha.md"), "depth": 2, "meaning": 3},
            "memlsp/status": {},
            "memlsp/reindex": {},
        }[method]

    def bad(self, method: str) -> list[Any]:
        """Params that do not fit `method`: not an object, fields missing or of another type,
        positions negative or past 2³¹ − 1."""
        good = self.good(method)
        kinds: list[Any] = [[1], 42, -1.5, "str", True]
        if method not in TAKES_NO_PARAMS:
            kinds += [None, {}, []]
        if "position" in good:
            kinds.append({key: value for key, value in good.items() if key != "position"})
            for position in (
                {"line": -1, "character": 0},
                {"line": 0, "character": -1},
                {"line": 2**31, "character": 0},
                {"line": 0, "character": 2**31},
                {"line": -(2**63), "character": 2**64},
                {"line": 1.5, "character": 0},
                {"line": "2", "character": 0},
                {"line": True, "character": 0},
                {"line": 2},
                None,
                [2, 12],
            ):
                kinds.append({**good, "position": position})
        if "textDocument" in good:
            kinds += [{**good, "textDocument": value} for value in (42, {}, {"uri": 5}, None)]
        if "item" in good:
            negative = {**good["item"], "range": {"start": {"line": -1, "character": 0}}}
            kinds += [{"item": 42}, {"item": {**good["item"], "uri": None}}, {"item": negative}]
        by_method: dict[str, list[Any]] = {
            types.TEXT_DOCUMENT_REFERENCES: [
                {**good, "context": None},
                {**good, "context": {"includeDeclaration": "no"}},
            ],
            types.WORKSPACE_SYMBOL: [{"query": None}, {"query": 5}, {"query": ["a"]}],
            types.WORKSPACE_EXECUTE_COMMAND: [{"command": 5}],
            "memlsp/search": [
                {"query": 5},
                {"query": "x", "limit": "ten"},
                {"query": "x", "limit": 0},
                {"query": "x", "expand": "yes"},
                {"query": "x", "mode": "fuzzy"},
                {"query": "x", "start_date": "yesterday"},
                {"query": "x", "min_score": []},
            ],
            "memlsp/links": [{"uri": 5}, {"uri": None}],
            "memlsp/related": [{"uri": 5}, {"uri": self.uri("alpha.md"), "limit": "ten"}],
            "memlsp/mentions": [{"uri": 5}, {"uri": None}],
            "memlsp/graph": [
                {"uri": 5},
                {"uri": self.uri("alpha.md"), "depth": 6},
                {"uri": self.uri("alpha.md"), "direction": "up"},
                {"uri": self.uri("alpha.md"), "meaning": "five"},
                {"uri": self.uri("alpha.md"), "max_per_node": 0},
            ],
        }
        return kinds + by_method.get(method, [])


# -- a client that counts answers -----------------------------------------------------------


def answers(
    client: StdioClient, ids: list[Any], timeout: float = HANG
) -> dict[Any, dict[str, Any]]:
    """The response to each of `ids`, waited for until each has one and then until the answer to
    a request sent after them all, so that a second answer to any of them is seen."""
    got: dict[Any, list[dict[str, Any]]] = {}
    waiting = set(ids)

    def record(message: dict[str, Any]) -> bool:
        if "id" in message and "method" not in message:
            got.setdefault(message["id"], []).append(message)
            waiting.discard(message["id"])
        return not waiting

    for last in (False, True):
        if last:
            barrier = f"barrier-{next(_numbers)}"
            waiting = {barrier}
            client.send({"id": barrier, "method": "memlsp/status", "params": {}})
        if waiting:
            try:
                client.next_message(record, timeout)
            except NoAnswer:
                pytest.fail(f"no answer within {timeout} s to {sorted(map(repr, waiting))}")
    twice = {key: value for key, value in got.items() if len(value) > 1}
    assert not twice, f"answered more than once: {twice}"
    return {key: value[0] for key, value in got.items() if key in ids}


def call_all(
    client: StdioClient, calls: list[tuple[str, Any]]
) -> list[tuple[str, Any, dict[str, Any]]]:
    """Send each (method, params) as a request at once; each with its one response."""
    sent = {}
    for method, params in calls:
        number = f"t{next(_numbers)}"
        client.send({"id": number, "method": method, "params": params})
        sent[number] = (method, params)
    got = answers(client, list(sent))
    return [(*sent[number], got[number]) for number in sent]


def code(response: dict[str, Any]) -> int | None:
    """The error code of a response, None for a result."""
    if "error" in response:
        error = response["error"]
        assert isinstance(error["code"], int) and isinstance(error["message"], str), response
        return int(error["code"])
    assert "result" in response, response
    return None


def wrong(
    answered: list[tuple[str, Any, dict[str, Any]]], expected: int | None
) -> list[tuple[str, Any, Any]]:
    """The calls answered otherwise than with `expected` (an error code, or None: a result)."""
    return [
        (method, params, response.get("error", "a result"))
        for method, params, response in answered
        if code(response) != expected
    ]


def hover_works(client: StdioClient, vault: Vault) -> None:
    answer = client.request(types.TEXT_DOCUMENT_HOVER, vault.good(types.TEXT_DOCUMENT_HOVER), HANG)
    assert "Beta" in answer["contents"]["value"], answer


def no_tracebacks(client: StdioClient) -> None:
    """A refused message is told in one log line, not with a traceback."""
    assert b"Traceback" not in client.stderr, client.stderr.decode(errors="replace")[-3000:]


# -- servers --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Served:
    client: StdioClient
    vault: Vault
    capabilities: dict[str, Any]


def start(tmp_path: Path) -> tuple[StdioClient, Vault]:
    return StdioClient(cwd=tmp_path), Vault(write_notes(tmp_path / "vault", TWO_NOTES))


def initialize(client: StdioClient, vault: Vault, tmp_path: Path) -> dict[str, Any]:
    """`initialize` and `initialized` with `embedder: none`; once the vault is indexed, the
    server's capabilities."""
    answer = client.initialize(initialize_params(vault.root, cache_dir=str(tmp_path / "cache")))
    capabilities: dict[str, Any] = answer["result"]["capabilities"]
    return capabilities


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One initialized server for the tests that leave its vault as it is."""
    tmp_path = tmp_path_factory.mktemp("protocol")
    client, vault = start(tmp_path)
    try:
        yield Served(client, vault, initialize(client, vault, tmp_path))
    finally:
        client.kill()


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[tuple[StdioClient, Vault]]:
    """A server of its own, not initialized."""
    client, vault = start(tmp_path)
    try:
        yield client, vault
    finally:
        client.kill()


# -- bad params -----------------------------------------------------------------------------


def test_bad_params_are_answered_invalid_params(served: Served) -> None:
    """Each request the server handles (what `initialize` advertises is among them), first with
    good params, then with each kind of bad ones."""
    advertised = {
        "hoverProvider": [types.TEXT_DOCUMENT_HOVER],
        "definitionProvider": [types.TEXT_DOCUMENT_DEFINITION],
        "referencesProvider": [types.TEXT_DOCUMENT_REFERENCES],
        "documentSymbolProvider": [types.TEXT_DOCUMENT_DOCUMENT_SYMBOL],
        "documentLinkProvider": [types.TEXT_DOCUMENT_DOCUMENT_LINK],
        "workspaceSymbolProvider": [types.WORKSPACE_SYMBOL],
        "executeCommandProvider": [types.WORKSPACE_EXECUTE_COMMAND],
        "callHierarchyProvider": [
            types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY,
            types.CALL_HIERARCHY_INCOMING_CALLS,
            types.CALL_HIERARCHY_OUTGOING_CALLS,
        ],
    }
    assert set(advertised) <= set(served.capabilities)
    assert {m for methods in advertised.values() for m in methods} <= set(FEATURES)
    assert {f"memlsp/{name}" for name in ("search", "links", "status", "reindex")} <= set(FEATURES)
    # Good params get a result; the one command-less command gets InvalidParams, and renaming a
    # note RequestFailed: this client announced no way to rename a file.
    answered = call_all(served.client, [(m, served.vault.good(m)) for m in FEATURES])
    assert {m: code(r) for m, _, r in answered if code(r) is not None} == {
        types.WORKSPACE_EXECUTE_COMMAND: INVALID_PARAMS,
        types.TEXT_DOCUMENT_RENAME: REQUEST_FAILED,
    }

    calls = [(method, params) for method in FEATURES for params in served.vault.bad(method)]
    assert len(calls) > 150
    answered = call_all(served.client, calls)
    assert wrong(answered, INVALID_PARAMS) == []
    unnamed = [(m, r["error"]["message"]) for m, _, r in answered if m not in r["error"]["message"]]
    assert unnamed == []  # each message names the method
    hover_works(served.client, served.vault)
    no_tracebacks(served.client)


def test_positions_out_of_range(served: Served) -> None:
    """A position LSP cannot have (negative, past 2³¹ − 1) is InvalidParams; one it can have but
    past the note's end gets a normal answer, empty past the last line; alike for a note open in
    the editor (its buffer) and one read from disk."""
    vault = served.vault
    impossible = [(-1, 0), (0, -1), (2**31, 0), (0, 2**31), (-(2**31), 2**32)]
    calls = [
        (method, {**vault.good(method), **vault.at(line, character)})
        for method in AT_A_POSITION
        for line, character in impossible
    ]
    assert wrong(call_all(served.client, calls), INVALID_PARAMS) == []
    past_the_last_line = [(4, 0), (10_000, 0), (2**31 - 1, 0), (2**31 - 1, 2**31 - 1)]
    past_a_line_end = [(0, 10**6), (2, 2**31 - 1), (1, 50), (3, 7)]
    for is_open in (False, True):
        if is_open:
            text = (vault.root / "alpha.md").read_text(encoding="utf-8")
            served.client.notify(
                "textDocument/didOpen",
                {
                    "textDocument": {
                        "uri": vault.uri("alpha.md"),
                        "languageId": "markdown",
                        "version": 1,
                        "text": text,
                    }
                },
            )
        calls = []
        for method in AT_A_POSITION:
            for line, character in past_the_last_line + past_a_line_end:
                calls.append((method, {**vault.good(method), **vault.at(line, character)}))
        answered = call_all(served.client, calls)
        assert wrong(answered, None) == []
        past_end = {(line, character) for line, character in past_the_last_line}
        not_empty = [
            (method, params["position"], response["result"])
            for method, params, response in answered
            if (params["position"]["line"], params["position"]["character"]) in past_end
            and response["result"] not in (None, [])
        ]
        assert not_empty == []
    far = {"line": 2**31 - 1, "character": 2**31 - 1}
    for method in (types.CALL_HIERARCHY_INCOMING_CALLS, types.CALL_HIERARCHY_OUTGOING_CALLS):
        item = {**vault.good(method)["item"], "range": {"start": far, "end": far}}
        item["selectionRange"] = item["range"]
        [(_, _, response)] = call_all(served.client, [(method, {"item": item})])
        assert code(response) is None
    hover_works(served.client, vault)


def test_notifications_with_bad_params_are_dropped_quietly(served: Served) -> None:
    """No answer to a notification (none is allowed), one log line, and the server goes on."""
    for method, params in [
        ("textDocument/didOpen", None),
        ("textDocument/didOpen", {"textDocument": {"uri": 5}}),
        ("textDocument/didChange", []),
        ("textDocument/didClose", 42),
        ("$/cancelRequest", {}),
        ("$/cancelRequest", {"id": [1]}),
        ("workspace/didChangeWatchedFiles", {"changes": "all"}),
        ("textDocument/hover", served.vault.good(types.TEXT_DOCUMENT_HOVER)),  # a request
    ]:
        served.client.send({"method": method, "params": params})
    answers(served.client, [])  # the barrier's answer comes, and nothing else
    hover_works(served.client, served.vault)
    no_tracebacks(served.client)


# -- frames that are not requests -----------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected", "answer_id"),
    [
        (
            b'{"jsonrpc":"2.0","id":1,"method":"memlsp/status","params":{"q":"\xff"}}',
            PARSE_ERROR,
            None,
        ),
        (b'{"jsonrpc":"2.0","id":1,"method":"memlsp/sta', PARSE_ERROR, None),
        (b"   ", PARSE_ERROR, None),
        (b"[" * 100_000 + b"]" * 100_000, PARSE_ERROR, None),
        (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, PARSE_ERROR, None),
        (b"42", INVALID_REQUEST, None),
        (b"[]", INVALID_REQUEST, None),
        (b'[{"jsonrpc":"2.0","id":"in-a-batch","method":"memlsp/status"}]', INVALID_REQUEST, None),
        (b"null", INVALID_REQUEST, None),
        (b'"memlsp/status"', INVALID_REQUEST, None),
        (b"{}", INVALID_REQUEST, None),
        (b'{"jsonrpc":"2.0","id":"no-method"}', INVALID_REQUEST, "no-method"),
        (b'{"jsonrpc":"2.0","id":"number","method":5}', INVALID_REQUEST, "number"),
        (b'{"id":"no-version","method":"memlsp/status"}', INVALID_REQUEST, "no-version"),
        (b'{"jsonrpc":"1.0","id":"v1","method":"memlsp/status"}', INVALID_REQUEST, "v1"),
        (b'{"jsonrpc":"2.0","id":{"a":1},"method":"memlsp/status"}', INVALID_REQUEST, None),
        (b'{"jsonrpc":"2.0","id":null,"method":"memlsp/status"}', INVALID_REQUEST, None),
        (
            b'{"jsonrpc":"2.0","id":"unknown","method":"memlsp/unknown"}',
            METHOD_NOT_FOUND,
            "unknown",
        ),
        (
            b'{"jsonrpc":"2.0","id":"no-such","method":"textDocument/formatting"}',
            METHOD_NOT_FOUND,
            "no-such",
        ),
    ],
    ids=lambda value: value[:30].decode("utf-8", "replace") if isinstance(value, bytes) else None,
)
def test_a_frame_that_is_not_a_request_is_answered(
    served: Served, body: bytes, expected: int, answer_id: Any
) -> None:
    """One answer (id null when the frame's id cannot be known), then the next frame is read."""
    served.client.send_frame(body)
    hover = f"after-{next(_numbers)}"
    served.client.send(
        {
            "id": hover,
            "method": "textDocument/hover",
            "params": served.vault.good("textDocument/hover"),
        }
    )
    got = answers(served.client, [answer_id, hover])
    assert code(got[answer_id]) == expected, got[answer_id]
    assert "Beta" in got[hover]["result"]["contents"]["value"]
    no_tracebacks(served.client)


def _status(msg_id: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "memlsp/status"}).encode()


def _framed(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


# (damage, the ids among its requests that must be answered, how many ParseErrors come)
DAMAGE = {
    "Content-Length too short": (_framed(_status("cut"), len(_status("cut")) - 10), [], 1),
    # The body takes the next frame's header: that frame is lost, the one after it is read.
    "Content-Length too long": (
        _framed(_status("long"), len(_status("long")) + 20) + _framed(_status("eaten")),
        [],
        1,
    ),
    "no Content-Length": (b"Content-Type: x\r\n\r\n" + _status("none"), [], 0),
    "Content-Length not a number": (b"Content-Length: ten\r\n\r\n" + _status("ten"), [], 0),
    "Content-Length negative": (b"Content-Length: -5\r\n\r\n" + _status("negative"), [], 0),
    "garbage before a header, no newline": (b"\x00\xffgarbage" + _framed(_status("g")), ["g"], 0),
    "LF line ends": (
        b"Content-Length: %d\n\n" % len(_status("lf")) + _status("lf"),
        ["lf"],
        0,
    ),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_the_stream_resynchronises_after_damaged_framing(served: Served, damage: str) -> None:
    """After a damaged frame, the next good frame is read (and answered): no frame is lost that
    the damage did not take with it."""
    data, answered, parse_errors = DAMAGE[damage]
    served.client.send_bytes(data)
    hover = f"after-{next(_numbers)}"
    served.client.send(
        {
            "id": hover,
            "method": "textDocument/hover",
            "params": served.vault.good("textDocument/hover"),
        }
    )
    ids: list[Any] = [hover, *answered] + ([None] if parse_errors else [])
    got = answers(served.client, ids)
    assert "Beta" in got[hover]["result"]["contents"]["value"]
    for msg_id in answered:
        assert "result" in got[msg_id], got[msg_id]
    if parse_errors:
        assert code(got[None]) == PARSE_ERROR


def test_a_huge_content_length_then_the_end_of_input_ends_the_process(
    fresh: tuple[StdioClient, Vault], tmp_path: Path
) -> None:
    client, vault = fresh
    initialize(client, vault, tmp_path)
    client.send_bytes(b"Content-Length: 1000000000000\r\n\r\n{")
    client.close_input()
    assert client.exited(timeout=HANG) == 1  # no `shutdown` came
    no_tracebacks(client)


# -- the lifecycle --------------------------------------------------------------------------


def test_requests_before_initialize_are_refused_then_initialize_works(
    fresh: tuple[StdioClient, Vault], tmp_path: Path
) -> None:
    client, vault = fresh
    # Not `shutdown`: after it only `exit` is taken (test_ids_and_shutdown.py).
    calls = [(method, vault.good(method)) for method in FEATURES]
    calls += [("memlsp/unknown", {}), (types.TEXT_DOCUMENT_HOVER, None)]
    assert wrong(call_all(client, calls), NOT_INITIALIZED) == []
    # Notifications before `initialize` are dropped: `initialized` has no effect yet.
    client.notify("initialized", {})
    client.notify("workspace/didChangeConfiguration", {"settings": {"embedder": "none"}})
    answers(client, [])
    # An `initialize` with bad params is refused and can be sent again.
    bad: list[Any] = [None, [], {"capabilities": 5}, {"capabilities": {}, "processId": "me"}]
    assert (
        wrong(call_all(client, [(types.INITIALIZE, params) for params in bad]), INVALID_PARAMS)
        == []
    )
    initialize(client, vault, tmp_path)
    hover_works(client, vault)
    [(_, _, again)] = call_all(client, [(types.INITIALIZE, {"capabilities": {}})])
    assert code(again) == INVALID_REQUEST  # once only
    no_tracebacks(client)


def test_exit_before_initialize_ends_the_process_with_an_error_code(
    fresh: tuple[StdioClient, Vault],
) -> None:
    client, _ = fresh
    [(_, _, answer)] = call_all(client, [("memlsp/status", {})])
    assert code(answer) == NOT_INITIALIZED
    client.notify("exit")
    assert client.exited(timeout=HANG) == 1


def test_requests_after_shutdown_are_invalid_and_exit_still_exits(
    fresh: tuple[StdioClient, Vault], tmp_path: Path
) -> None:
    client, vault = fresh
    initialize(client, vault, tmp_path)
    assert client.request(types.SHUTDOWN, None, HANG) is None
    calls = [(method, vault.good(method)) for method in FEATURES]
    calls += [
        (types.SHUTDOWN, None),
        (types.INITIALIZE, {"capabilities": {}}),
        ("memlsp/unknown", {}),
        (types.TEXT_DOCUMENT_HOVER, {"position": -1}),
    ]
    assert wrong(call_all(client, calls), INVALID_REQUEST) == []
    client.notify("textDocument/didOpen", None)  # dropped, no answer
    client.notify("exit", {"unexpected": "params"})  # still exits
    assert client.exited(timeout=HANG) == 0
    no_tracebacks(client)


def test_initialize_after_an_early_shutdown_is_invalid(
    fresh: tuple[StdioClient, Vault], tmp_path: Path
) -> None:
    """`shutdown` right after `initialize`, before `initialized`."""
    client, vault = fresh
    options = {"embedder": "none", "cache_dir": str(tmp_path / "cache")}
    init: dict[str, Any] = {"processId": None, "capabilities": {}, "rootUri": vault.root.as_uri()}
    init["initializationOptions"] = options
    assert "result" in client.call(types.INITIALIZE, init, HANG).message
    assert client.request(types.SHUTDOWN, None, HANG) is None
    [(_, _, again)] = call_all(client, [(types.INITIALIZE, init)])
    assert code(again) == INVALID_REQUEST
    client.notify("exit")
    assert client.exited(timeout=HANG) == 0


# -- a fuzz ---------------------------------------------------------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
UINT = st.integers(0, 4) | st.integers(0, 2**31 - 1)
NUMBER = UINT | st.sampled_from([-1, 2**31, -(2**31), 10**20, 1.5]) | JSON
FUZZED_NOTIFICATIONS = ["$/cancelRequest", "$/setTrace", "textDocument/didClose"]


def well_typed(vault: Vault) -> dict[str, st.SearchStrategy[Any]]:
    """Params of the right shape and types with random values, by method: what gets past the
    checks to the handlers."""
    uri = st.sampled_from(
        [
            vault.uri("alpha.md"),
            vault.uri("beta.md"),
            vault.uri("nowhere.md"),
            vault.uri("../outside.md"),
            vault.root.as_uri(),
            "file:///",
            "file:///%ZZ",
            "untitled:x",
            "",
        ]
    ) | st.text(max_size=16)
    position = st.fixed_dictionaries({"line": UINT, "character": UINT})
    document = st.fixed_dictionaries({"textDocument": st.fixed_dictionaries({"uri": uri})})
    at = st.fixed_dictionaries(
        {"textDocument": st.fixed_dictionaries({"uri": uri}), "position": position}
    )
    span = st.fixed_dictionaries({"start": position, "end": position})
    item = st.fixed_dictionaries(
        {
            "name": st.text(max_size=8),
            "kind": st.integers(1, 26),
            "uri": uri,
            "range": span,
            "selectionRange": span,
        }
    )
    date = st.sampled_from(["2024-03-01", "2024-13-45", "", "2024"]) | st.text(max_size=10)
    # Half the searches are well formed, so that some are answered whatever the draws: random
    # values of every field are nearly always refused.
    answerable = st.fixed_dictionaries(
        {"query": st.sampled_from(["bm25", "search ranking", "向量检索", "notes"])},
        optional={"limit": st.integers(1, 50), "mode": st.sampled_from(["hybrid", "keyword"])},
    )
    search = answerable | st.fixed_dictionaries(
        {"query": st.text(max_size=20)},
        optional={
            "limit": st.integers(-2, 10**6) | st.integers(2**31, 2**70),
            "min_score": st.floats(-1e9, 1e9) | st.integers(),
            "mode": st.sampled_from(["hybrid", "keyword", "vector", "x"]),
            "expand": st.booleans(),
            "budget_tokens": st.integers(-5, 10**9),
            "start_date": date,
            "end_date": date,
            "paths": st.text(max_size=8) | st.lists(st.text(max_size=8), max_size=3),
            "tags": st.text(max_size=8) | st.lists(st.text(max_size=8), max_size=3),
        },
    )
    anything = st.dictionaries(st.text(max_size=8), JSON, max_size=3)
    return {
        types.TEXT_DOCUMENT_HOVER: at,
        types.TEXT_DOCUMENT_DEFINITION: at,
        types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY: at,
        types.TEXT_DOCUMENT_COMPLETION: at,
        types.TEXT_DOCUMENT_PREPARE_RENAME: at,
        types.TEXT_DOCUMENT_RENAME: st.builds(
            lambda where, name: {**where, "newName": name}, at, st.text(max_size=12)
        ),
        types.WORKSPACE_WILL_RENAME_FILES: st.fixed_dictionaries(
            {"files": st.lists(st.fixed_dictionaries({"oldUri": uri, "newUri": uri}), max_size=3)}
        ),
        types.TEXT_DOCUMENT_CODE_ACTION: st.fixed_dictionaries(
            {
                "textDocument": st.fixed_dictionaries({"uri": uri}),
                "range": span,
                "context": st.fixed_dictionaries({"diagnostics": st.just([])}),
            }
        ),
        types.TEXT_DOCUMENT_REFERENCES: st.builds(
            lambda where, declaration: {**where, "context": {"includeDeclaration": declaration}},
            at,
            st.booleans(),
        ),
        types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: document,
        types.TEXT_DOCUMENT_DOCUMENT_LINK: document,
        types.TEXT_DOCUMENT_CODE_LENS: document,
        types.CALL_HIERARCHY_INCOMING_CALLS: st.fixed_dictionaries({"item": item}),
        types.CALL_HIERARCHY_OUTGOING_CALLS: st.fixed_dictionaries({"item": item}),
        types.WORKSPACE_SYMBOL: st.fixed_dictionaries({"query": st.text(max_size=20)}),
        types.WORKSPACE_EXECUTE_COMMAND: st.fixed_dictionaries(
            {"command": st.text(max_size=8)}, optional={"arguments": st.lists(JSON, max_size=3)}
        ),
        "memlsp/search": search,
        "memlsp/links": st.fixed_dictionaries({"uri": uri}),
        "memlsp/related": st.fixed_dictionaries(
            {"uri": uri}, optional={"limit": st.integers(-5, 200)}
        ),
        "memlsp/mentions": st.fixed_dictionaries({"uri": uri}),
        "memlsp/graph": st.fixed_dictionaries(
            {"uri": uri},
            optional={
                "depth": st.integers(-1, 5),
                "direction": st.sampled_from(["both", "out", "in", "up"]),
                "meaning": st.integers(-1, 120),
                "max_per_node": st.integers(-1, 3000),
            },
        ),
        "memlsp/status": anything,
        "memlsp/reindex": anything,
    }


def test_fuzz_every_request_is_answered_once(
    fresh: tuple[StdioClient, Vault], tmp_path: Path
) -> None:
    """Random params for random methods, several at once: well-typed ones with random values,
    near misses and random JSON. Each request is answered once, with a result or an error it may
    give for params (never InternalError), and the server stays alive."""
    client, vault = fresh
    initialize(client, vault, tmp_path)
    shaped = well_typed(vault)
    assert set(shaped) == set(FEATURES)
    near_miss = st.fixed_dictionaries(
        {"textDocument": st.fixed_dictionaries({"uri": JSON}) | JSON},
        optional={"position": st.fixed_dictionaries({"line": NUMBER, "character": NUMBER}) | JSON},
    )
    methods = [*FEATURES, types.INITIALIZE, "memlsp/unknown", "textDocument/formatting"]
    call = st.sampled_from(methods).flatmap(
        lambda method: st.tuples(
            st.just(method), st.one_of(shaped.get(method, JSON), near_miss, JSON)
        )
    )
    notification = st.tuples(st.sampled_from(FUZZED_NOTIFICATIONS), JSON)
    # RequestFailed: what cannot be renamed says why (a name taken, nothing at the cursor)
    allowed = {None, INVALID_PARAMS, METHOD_NOT_FOUND, CANCELLED, REQUEST_FAILED}
    seen: set[tuple[str, int | None]] = set()

    @settings(
        max_examples=400,
        deadline=None,
        database=None,
        # The same draws each run: with random ones, now and then no draw for some method got
        # past the checks, and the coverage check below failed by chance, not for a reason.
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.lists(call, min_size=1, max_size=6), st.lists(notification, max_size=2))
    def batch(calls: list[tuple[str, Any]], notifications: list[tuple[str, Any]]) -> None:
        for method, params in notifications:
            client.notify(method, params)
        for method, params, response in call_all(client, calls):
            expected = allowed | ({INVALID_REQUEST} if method == types.INITIALIZE else set())
            assert code(response) in expected, (method, params, response)
            seen.add((method, code(response)))
        assert client.process.poll() is None

    batch()
    # The fuzz reached the handlers: most methods answered with a result at least once. The
    # server registers no command, so workspace/executeCommand refuses every one (the `served`
    # tests check that): it cannot count, or it takes one of the two misses allowed by chance.
    answerable = set(FEATURES) - {types.WORKSPACE_EXECUTE_COMMAND}
    answered = {method for method, outcome in seen if outcome is None} & answerable
    missed = {
        method: sorted(str(outcome) for name, outcome in seen if name == method)
        for method in sorted(answerable - answered)
    }
    assert len(answered) >= len(answerable) - 2, missed  # each with the error codes it got
    hover_works(client, vault)
    no_tracebacks(client)
