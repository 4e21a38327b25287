"""A lone surrogate written as a JSON escape (`"\\udcff"`: JavaScript strings may hold one) is
text no UTF-8 file or index can hold. The server reads it as U+FFFD, in every message: a request
is answered as for any other text, and an edit holding one is kept, not lost."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memlsp.wire.common import decode_message
from tests.helpers.lsp_client import StdioClient, initialize_params
from tests.helpers.vault import TWO_NOTES, write_notes

HANG = 30.0  # seconds: a hang guard, not a timing


def test_each_lone_surrogate_is_read_as_a_replacement_character() -> None:
    body = b'{"q": "a\\udcffb", "pair": "\\ud83d\\ude00", "k\\ud800": ["\\uDFFF"]}'
    assert decode_message(body) == {"q": "a\ufffdb", "pair": "\U0001f600", "k\ufffd": ["\ufffd"]}
    assert decode_message(b'{"plain": "\\u00e9"}') == {"plain": "\u00e9"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[StdioClient, Path]]:
    vault = write_notes(tmp_path / "vault", TWO_NOTES)
    client = StdioClient(cwd=tmp_path)
    try:
        client.initialize(initialize_params(vault, cache_dir=str(tmp_path / "cache")))
        yield client, vault
    finally:
        client.kill()


def answer_to(client: StdioClient, body: bytes) -> dict[str, Any]:
    start = len(client.received)
    client.send_frame(body)
    return client.wait_message(lambda r: "method" not in r.message, HANG, start)[1].message


@pytest.mark.e2e  # a server over stdio
def test_requests_and_edits_holding_one_are_answered_and_kept(
    server: tuple[StdioClient, Path],
) -> None:
    client, vault = server
    symbols = answer_to(
        client, b'{"jsonrpc":"2.0","id":1,"method":"workspace/symbol","params":{"query":"\\udcff"}}'
    )
    assert symbols.get("result") == [], symbols
    uri = (vault / "alpha.md").as_uri().encode()
    opened = (
        b'{"textDocument":{"uri":"%s","languageId":"markdown","version":1,"text":"# Alpha\\n"}}'
    )
    client.send_frame(
        b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":%s}' % (opened % uri)
    )
    change = b'{"textDocument":{"uri":"%s","version":2},"contentChanges":[{"text":"# Alpha\\n\\nzorblat \\ud800 kept [[beta]]\\n"}]}'
    client.send_frame(
        b'{"jsonrpc":"2.0","method":"textDocument/didChange","params":%s}' % (change % uri)
    )
    found: list[Any] = []
    deadline = time.monotonic() + HANG
    while not found and time.monotonic() < deadline:  # until the edit is indexed
        found = client.request("memlsp/search", {"query": "zorblat", "mode": "keyword"})["results"]
        time.sleep(0.05)
    assert [hit["path"] for hit in found] == ["alpha.md"], found
    assert "\ufffd" in found[0]["text"], found[0]
    links = client.request("memlsp/links", {"uri": (vault / "beta.md").as_uri()})
    assert [link["source"] for link in links["inlinks"]] == ["alpha.md"], links
    assert "Traceback" not in client.stderr_text, client.stderr_tail()
