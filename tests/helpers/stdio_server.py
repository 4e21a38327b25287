"""An editor's session with `python -m memlsp --stdio` (on the shared client,
`tests.helpers.lsp_client`), and waiting for the server to have applied every change made so far,
by the editor or on disk."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.helpers.consistency import HANG_GUARD, PROBE_LIMIT
from tests.helpers.lsp_client import StdioClient, initialize_params


class StdioServer(StdioClient):
    """`python -m memlsp --stdio` on one vault, as an editor's session with it: the buffers it has
    open and their versions. The server runs in a process group of its own, so `kill()` takes its
    helper processes (the parse pool of a large first index) with it."""

    def __init__(self, vault: Path, cache_dir: Path, **options: Any) -> None:
        super().__init__(own_process_group=True)
        self.vault = vault.resolve()
        self.cache_dir = cache_dir
        self._options = options
        self._versions: dict[str, int] = {}
        self.buffers: dict[str, str] = {}  # path -> text of each open buffer
        self.sentinels = 0  # how many times `settle` wrote its note

    def uri(self, path: str) -> str:
        return (self.vault / path).as_uri()

    def open_vault(self, wait_indexed: bool = True) -> None:
        """`initialize` on the vault (the server exits if the test process dies), `initialized`,
        and unless told not to, wait for the vault to be indexed."""
        params = initialize_params(
            self.vault, process_id=os.getpid(), cache_dir=str(self.cache_dir), **self._options
        )
        self.initialize(params, wait_indexed=wait_indexed)

    def open(self, path: str, text: str) -> None:
        self._versions[path] = 1
        self.buffers[path] = text
        item = {"uri": self.uri(path), "languageId": "markdown", "version": 1, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": item})

    def change(self, path: str, text: str) -> None:
        self._versions[path] += 1
        self.buffers[path] = text
        document = {"uri": self.uri(path), "version": self._versions[path]}
        self.notify(
            "textDocument/didChange",
            {"textDocument": document, "contentChanges": [{"text": text}]},
        )

    def close(self, path: str) -> None:
        del self.buffers[path], self._versions[path]
        self.notify("textDocument/didClose", {"textDocument": {"uri": self.uri(path)}})

    def status(self) -> dict[str, Any]:
        [vault] = self.request("memlsp/status", {})["vaults"]
        return dict(vault)

    def finds(self, token: str, path: str) -> bool:
        answer = self.request(
            "memlsp/search",
            {"query": token, "limit": PROBE_LIMIT, "expand": False, "mode": "keyword"},
        )
        return any(result["path"] == path for result in answer["results"])

    def until(self, check: Callable[[], bool], what: str, timeout: float = HANG_GUARD) -> None:
        """Ask `check` again after each `memlsp/changed` (or, at the latest, every quarter
        second: a status poll) until it holds."""
        deadline = time.monotonic() + timeout
        while True:
            seen = self.count("memlsp/changed")
            if check():
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not so after {timeout} s\n{self.stderr_tail()}")
            self.wait_for("memlsp/changed", seen + 1, timeout=0.25)


SENTINEL = "sentinel.md"


def settle(server: StdioServer) -> None:
    """Wait until the server has applied every change made so far, by the editor or on disk.

    A request is answered only after every notification sent before it was handled, so the
    buffers' changes are queued by then. Disk changes come through the watcher, in order: a note
    written now is reported after everything written before it. So write that note twice, with a
    new word each time, and wait until a search finds the second word: the batch of changes
    holding the first word has ended by then (the writer takes one batch at a time), unless the
    second was read by a whole-vault scan, which the vault's state shows. Then poll
    `memlsp/status` until the vault is ready and nothing is pending."""
    server.status()
    for _ in range(2):
        server.sentinels += 1
        token = f"sentinelmark{server.sentinels}"
        (server.vault / SENTINEL).write_text(f"# Sentinel\n\n{token}\n", encoding="utf-8")

        def indexed(token: str = token) -> bool:
            return server.finds(token, SENTINEL)

        server.until(indexed, f"{token} indexed")

    def quiet() -> bool:
        status = server.status()
        return bool(status["state"] == "ready" and status["pending_changes"] == 0)

    server.until(quiet, "the vault is ready with nothing pending")
