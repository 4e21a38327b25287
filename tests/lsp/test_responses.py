"""How the language server writes the answer to a request (memlsp/lsp/protocol.py): memlsp's own
answers, JSON already, are written as they are, the same bytes cattrs would have made of them, and
anything else as pygls writes it. In process: no server is started."""

from __future__ import annotations

import json
from typing import Any

import pytest
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.protocol.json_rpc import JsonRPCResponseMessage

from memlsp import wire
from memlsp.lsp.server import MemlspServer
from memlsp.queries.graph_walk import neighbourhood
from tests.helpers.memory_vault import memory_view

LOCATION = types.Location("file:///v/a.md", types.Range(types.Position(0, 1), types.Position(2, 3)))


def _graph() -> wire.GraphJson:
    graph = memory_view({"a.md": "# A\n\n[[b]] [[nowhere]]\n", "b.md": "# B\n"}).graph
    return wire.graph_json(neighbourhood(graph, "a.md"), lambda path: f"file:///v/{path}")


@pytest.mark.parametrize(
    "result",
    [
        _graph(),  # memlsp's own: JSON through and through
        [LOCATION, {"kind": types.SymbolKind.File, "none": None, "text": '中文 "q"'}],
        {"nested": {"location": LOCATION}, "numbers": [1, 2.5, -3]},
        [],
        {},
        None,
        "text",
    ],
    ids=[
        "graph",
        "objects-in-a-list",
        "object-in-a-dict",
        "empty-list",
        "empty-dict",
        "null",
        "str",
    ],
)
def test_an_answer_is_written_as_cattrs_would_write_it(result: Any) -> None:
    protocol = MemlspServer().protocol
    message = JsonRPCResponseMessage(id=7, jsonrpc="2.0", result=result)
    written = json.dumps(message, default=protocol._serialize_message)
    assert json.loads(written) == default_converter().unstructure(message)


class _Counting:
    """A converter that records what it is asked to unstructure."""

    def __init__(self, converter: Any) -> None:
        self.converter = converter
        self.walked: list[Any] = []

    def unstructure(self, obj: Any, unstructure_as: Any = None) -> Any:
        self.walked.append(obj)
        return self.converter.unstructure(obj, unstructure_as)


def test_a_json_answer_is_not_walked_by_cattrs(monkeypatch: pytest.MonkeyPatch) -> None:
    protocol = MemlspServer().protocol
    counting = _Counting(protocol._converter)
    monkeypatch.setattr(protocol, "_converter", counting)

    def write(result: Any) -> None:
        message = JsonRPCResponseMessage(id=1, jsonrpc="2.0", result=result)
        json.dumps(message, default=protocol._serialize_message)

    write(_graph())
    assert counting.walked == []
    write([LOCATION])
    assert counting.walked == [LOCATION]  # an lsprotocol object in it, as pygls writes it
