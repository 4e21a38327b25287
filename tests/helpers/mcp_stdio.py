"""`memlsp mcp` over stdio as a process the test owns, spoken to in JSON-RPC line by line: for what
the `mcp` SDK's client never sends (NaN, Infinity, a lone surrogate's escape) and for a server a
test kills in the middle of a call, which the SDK's client would take down with it."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from mcp_types import LATEST_PROTOCOL_VERSION

from tests.helpers.cli import environment

START_SECONDS = 120.0  # a first start indexes the vault (a note of several MiB takes a while)


class McpProcess:
    """`python -m memlsp mcp VAULT FLAGS...`, initialized, its answers read by a thread."""

    def __init__(self, vault: Path, cache: Path, *flags: str) -> None:
        self.log = cache.parent / "logs" / f"{cache.name}-mcp-stderr.log"  # beside the cache
        self.log.parent.mkdir(exist_ok=True)
        command = [sys.executable, "-m", "memlsp", "mcp", str(vault), *flags]
        command += ["--cache-dir", str(cache), "--embedder", "none"]
        with open(self.log, "ab") as stderr:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=environment(),
            )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.request("initialize", {
            "protocolVersion": LATEST_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "0"},
        }, timeout=START_SECONDS)  # fmt: skip
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.decode("utf-8", errors="replace"))
        self._lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        self.send_line(json.dumps(message, ensure_ascii=False))

    def send_line(self, line: str) -> None:
        """One line as it is, which need not be JSON the SDK's client could write."""
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode("utf-8", errors="surrogatepass") + b"\n")
        self.process.stdin.flush()

    def ask(self, method: str, params: dict[str, Any]) -> int:
        """Send a request without waiting for its answer; its id."""
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id

    def answer(self, request_id: int, timeout: float) -> dict[str, Any]:
        """The answer to `request_id` (other lines, notifications and late answers, skipped)."""
        while True:
            line = self._lines.get(timeout=timeout)
            if line is None:
                raise EOFError(f"memlsp mcp ended; its stderr: {self.log.read_text()[-2000:]}")
            message = json.loads(line)
            if message.get("id") == request_id:
                return dict(message)

    def next_answer(self, timeout: float) -> dict[str, Any]:
        """The next line the server writes, whatever its id (null for a line it could not read)."""
        line = self._lines.get(timeout=timeout)
        if line is None:
            raise EOFError(f"memlsp mcp ended; its stderr: {self.log.read_text()[-2000:]}")
        return dict(json.loads(line))

    def request(self, method: str, params: dict[str, Any], timeout: float = 60.0) -> Any:
        return self.answer(self.ask(method, params), timeout)

    def call(self, tool: str, arguments: Any, timeout: float = 60.0) -> dict[str, Any]:
        """A tool's result: `content` and `isError`."""
        answer = self.request("tools/call", {"name": tool, "arguments": arguments}, timeout)
        assert "result" in answer, answer
        return dict(answer["result"])

    def kill(self) -> None:
        """SIGKILL: no handler, no `finally`, no flush runs in the server."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()  # end of input: the server stops as a client's exit asks
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.process.stdout is not None:
            self.process.stdout.close()
