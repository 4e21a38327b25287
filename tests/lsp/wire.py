"""A bare JSON-RPC client over the server's stdin/stdout, for the tests that own the process:
how it exits, and what it writes to stdout (nothing but protocol frames)."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

COMMAND = [sys.executable, "-m", "memlsp", "--stdio"]


class Wire:
    def __init__(self, cwd: Path | None = None) -> None:
        self.process = subprocess.Popen(
            COMMAND,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.bad_output: list[bytes] = []  # anything on stdout that is not a frame
        self.stderr = b""
        self._next_id = 0
        assert self.process.stdout is not None and self.process.stderr is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.process.stderr,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            header = stream.readline()
            if not header:
                return
            if not header.startswith(b"Content-Length:"):
                self.bad_output.append(header)
                continue
            length = int(header.split(b":", 1)[1])
            while (line := stream.readline()) not in (b"\r\n", b""):
                if not line.startswith(b"Content-Type:"):
                    self.bad_output.append(line)
            self.messages.put(json.loads(stream.read(length)))

    def _drain(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.stderr += line

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def send_raw(self, body: bytes, length: int | None = None) -> None:
        """One frame with `body` as it is (not JSON, say), its Content-Length `length` if given."""
        size = len(body) if length is None else length
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % size + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any = None, timeout: float = 10.0) -> dict[str, Any]:
        """Send a request; its response (with "result" or "error")."""
        self._next_id += 1
        number = self._next_id
        self.send({"id": number, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == number and "method" not in m, timeout)

    def wait(self, wanted: Any, timeout: float = 10.0) -> dict[str, Any]:
        """The next message `wanted(message)` accepts; requests from the server get a null
        answer meanwhile, as a minimal editor would give."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.messages.get(timeout=max(deadline - time.monotonic(), 0.001))
            if "method" in message and "id" in message:
                self.send({"id": message["id"], "result": None})
            if wanted(message):
                return message

    def initialize(self, vault: Path, process_id: int | None, **options: Any) -> dict[str, Any]:
        answer = self.request(
            "initialize",
            {
                "processId": process_id,
                "rootUri": vault.as_uri(),
                "workspaceFolders": [{"uri": vault.as_uri(), "name": vault.name}],
                "capabilities": {},
                "initializationOptions": {"embedder": "none", **options},
            },
        )
        self.notify("initialized", {})
        self.wait(lambda m: m.get("method") == "memlsp/indexed")
        return answer

    def exited(self, timeout: float) -> int | None:
        """The exit code once the process ends within `timeout` seconds, else None."""
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def small_vault(root: Path) -> Path:
    """Two notes in English: indexed in a blink, without loading the Chinese segmenter."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "alpha.md").write_text("# Alpha\n\nLinks to [[beta]].\n", encoding="utf-8")
    (root / "beta.md").write_text("# Beta\n\nThe second note.\n", encoding="utf-8")
    return root
