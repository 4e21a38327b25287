"""The one JSON-RPC client for `python -m memlsp --stdio` that the tests and benchmarks share.

It owns the server process and both ends of its pipes. A reader thread frames what the server
writes, keeps every message in arrival order with the time it was read, hands each response to
the request waiting for it, and answers the server's own requests (registrations, progress tokens,
refreshes) with a null result, as a minimal editor would. Anything on stdout that is not a frame
is kept in `bad_output`.

Waiting is for a state, never for "the n-th message": `wait_notification` takes a predicate on the
params, and `next_message` walks the stream in order for the tests that count answers.

Writing goes through `send` (a JSON-RPC message), `send_frame` (a body as given, with a
Content-Length that may lie) or `send_bytes` (anything at all), so protocol tests can damage the
framing on purpose.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

SERVER_COMMAND = (sys.executable, "-m", "memlsp", "--stdio")
REQUEST_TIMEOUT = 60.0  # seconds; only ever reached when something hangs
STDERR_TAIL = 4000  # characters of the server's stderr quoted when something fails

Message = dict[str, Any]


class ResponseError(RuntimeError):
    """The server answered a request with an error."""

    def __init__(self, method: str, error: Mapping[str, Any]) -> None:
        super().__init__(f"{method}: {dict(error)}")
        self.error = dict(error)  # code, message and perhaps data, as the server sent them


class NoAnswer(RuntimeError):
    """Nothing the caller waited for arrived in time (or the server is gone)."""


@dataclass(frozen=True)
class Received:
    at: float  # time.perf_counter() once the whole message had been read
    message: Message

    @property
    def method(self) -> str | None:
        method = self.message.get("method")
        return method if isinstance(method, str) else None

    @property
    def params(self) -> Any:
        return self.message.get("params")


@dataclass(frozen=True)
class Response:
    message: Message  # the whole response: "result" or "error"
    seconds: float  # from sending the request to having read its answer

    @property
    def result(self) -> Any:
        return self.message.get("result")


def initialize_params(
    root: Path,
    *,
    process_id: int | None = None,
    capabilities: Mapping[str, Any] | None = None,
    **options: Any,
) -> dict[str, Any]:
    """`initialize` params for one workspace folder; keyword-only search (`embedder: none`)
    unless `options` say otherwise."""
    uri = root.as_uri()
    return {
        "processId": process_id,
        "rootUri": uri,
        "workspaceFolders": [{"uri": uri, "name": root.name}],
        "capabilities": dict(capabilities or {}),
        "initializationOptions": {"embedder": "none", **options},
    }


class StdioClient:
    """A server process and the client end of its stdin and stdout.

    `stderr` is a file to write the server's stderr to; without one it is kept in memory
    (`stderr`, `stderr_text`). `own_process_group` puts the server in a session of its own, so that
    `kill` takes the helper processes it started with it.
    """

    def __init__(
        self,
        command: Sequence[str] = SERVER_COMMAND,
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        stderr: IO[bytes] | None = None,
        own_process_group: bool = False,
        request_timeout: float = REQUEST_TIMEOUT,
    ) -> None:
        self.started = time.perf_counter()
        self.request_timeout = request_timeout  # what a request waits for its answer by default
        self.process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if stderr is None else stderr,
            cwd=cwd,
            env=None if env is None else dict(env),
            start_new_session=own_process_group,
        )
        self.pid = self.process.pid
        self._own_process_group = own_process_group
        self.received: list[Received] = []  # every message, in the order it was read
        self.bad_output: list[bytes] = []  # lines on stdout that belong to no frame
        self._stderr: list[bytes] = []
        self._arrived = threading.Condition()
        self._write_lock = threading.Lock()
        self._answers: dict[int, Received] = {}
        self._waiting: set[int] = set()
        self._next_id = 0
        self._cursor = 0  # how far `next_message` has walked `received`
        self._reading = True
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()
        if self.process.stderr is not None:
            threading.Thread(target=self._drain, args=(self.process.stderr,), daemon=True).start()

    # -- writing ----------------------------------------------------------------------------

    def send_bytes(self, data: bytes) -> None:
        """Write `data` to the server's stdin as it is: a frame, half of one, or garbage."""
        assert self.process.stdin is not None
        with self._write_lock:
            self.process.stdin.write(data)
            self.process.stdin.flush()

    def send_frame(self, body: bytes, length: int | None = None) -> None:
        """One frame holding `body` as it is (not JSON, say), its Content-Length `length` if
        given (a wrong one, say)."""
        size = len(body) if length is None else length
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % size + body)

    def send(self, message: Mapping[str, Any]) -> None:
        """One JSON-RPC message (`jsonrpc` added), with any id the caller chose."""
        body = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False).encode()
        self.send_frame(body)

    def close_input(self) -> None:
        """End the server's stdin, as an editor that died would."""
        assert self.process.stdin is not None
        with self._write_lock:
            self.process.stdin.close()

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    def call(self, method: str, params: Any = None, timeout: float | None = None) -> Response:
        """Send a request and wait for its response, result or error."""
        timeout = self.request_timeout if timeout is None else timeout
        with self._arrived:
            self._next_id += 1
            number = self._next_id
            self._waiting.add(number)
        sent = time.perf_counter()
        try:
            self.send({"id": number, "method": method, "params": params})
            with self._arrived:
                answered = self._arrived.wait_for(
                    lambda: number in self._answers or not self._reading, timeout
                )
                answer = self._answers.pop(number, None)
        finally:
            with self._arrived:
                self._waiting.discard(number)
        if not answered or answer is None:
            why = "the server is gone" if not self._reading else f"none in {timeout:g} s"
            raise NoAnswer(f"no answer to {method} ({why})\n{self.stderr_tail()}")
        return Response(answer.message, answer.at - sent)

    def request(self, method: str, params: Any = None, timeout: float | None = None) -> Any:
        """The result of a request; an error answer raises ResponseError."""
        answer = self.call(method, params, timeout).message
        if "error" in answer:
            raise ResponseError(method, answer["error"])
        return answer.get("result")

    def timed_request(
        self, method: str, params: Any = None, timeout: float | None = None
    ) -> tuple[Any, float]:
        """The result of a request and the seconds from sending it to having read its answer."""
        answer = self.call(method, params, timeout)
        if "error" in answer.message:
            raise ResponseError(method, answer.message["error"])
        return answer.result, answer.seconds

    # -- reading ----------------------------------------------------------------------------

    def _read(self, stream: IO[bytes]) -> None:
        try:
            while (message := self._read_frame(stream)) is not None:
                self._arrive(Received(time.perf_counter(), message))
        finally:
            with self._arrived:
                self._reading = False
                self._arrived.notify_all()  # the server is gone: wake every waiter

    def _read_frame(self, stream: IO[bytes]) -> Message | None:
        """The next frame's JSON; None at the end of the output. Lines that are not a
        Content-Length header where one is due go to `bad_output`."""
        while True:
            header = stream.readline()
            if not header:
                return None
            if header.startswith(b"Content-Length:"):
                break
            self.bad_output.append(header)
        length = int(header.split(b":", 1)[1])
        while (line := stream.readline()) not in (b"\r\n", b""):
            if not line.startswith(b"Content-Type:"):
                self.bad_output.append(line)
        body = stream.read(length)
        if len(body) < length:
            return None
        message: Message = json.loads(body)
        return message

    def _arrive(self, received: Received) -> None:
        message = received.message
        if "method" in message and "id" in message:
            with contextlib.suppress(OSError, ValueError):  # stdin closed by the test
                self.send({"id": message["id"], "result": None})
        with self._arrived:
            self.received.append(received)
            if "method" not in message and message.get("id") in self._waiting:
                self._answers[message["id"]] = received
            self._arrived.notify_all()

    def _drain(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._stderr.append(line)

    @property
    def stderr(self) -> bytes:
        """What the server wrote to stderr so far (when no file was given for it)."""
        return b"".join(self._stderr)

    @property
    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")

    def stderr_tail(self) -> str:
        return self.stderr_text[-STDERR_TAIL:]

    def wait_message(
        self, wanted: Callable[[Received], bool], timeout: float, start: int = 0
    ) -> tuple[int, Received]:
        """The first message from index `start` of `received` on that `wanted` accepts, waiting
        for it up to `timeout` seconds; with its index. NoAnswer if none comes."""
        deadline = time.monotonic() + timeout
        index = start
        with self._arrived:
            while True:
                while index < len(self.received):
                    if wanted(self.received[index]):
                        return index, self.received[index]
                    index += 1
                left = deadline - time.monotonic()
                if left <= 0 or not self._reading:
                    raise NoAnswer(f"nothing wanted arrived in {timeout:g} s")
                self._arrived.wait(left)

    def next_message(self, wanted: Callable[[Message], bool], timeout: float) -> Message:
        """The next message, in arrival order, that `wanted` accepts; each message is looked at
        once across calls, as if read off the stream."""
        index, received = self.wait_message(lambda r: wanted(r.message), timeout, self._cursor)
        self._cursor = index + 1
        return received.message

    def wait_notification(
        self,
        method: str,
        wanted: Callable[[Any], bool] | None = None,
        *,
        after: float | None = None,
        timeout: float = REQUEST_TIMEOUT,
    ) -> Received:
        """The first `method` notification (read after perf_counter time `after`, if given) whose
        params `wanted` accepts, waiting for it. NoAnswer if none comes in `timeout` seconds."""

        def matches(received: Received) -> bool:
            return (
                received.method == method
                and "id" not in received.message
                and (after is None or received.at > after)
                and (wanted is None or wanted(received.params))
            )

        try:
            return self.wait_message(matches, timeout)[1]
        except NoAnswer:
            why = f"no {method} notification in {timeout:g} s"
            raise NoAnswer(f"{why}\n{self.stderr_tail()}") from None

    def notifications(self, method: str) -> list[Any]:
        """The params of every `method` notification so far, in order."""
        with self._arrived:
            return [r.params for r in self.received if r.method == method and "id" not in r.message]

    def count(self, method: str) -> int:
        return len(self.notifications(method))

    def wait_for(self, method: str, count: int = 1, timeout: float = REQUEST_TIMEOUT) -> bool:
        """Wait until `method` has been notified `count` times in all; False on timeout or if
        the server is gone. For "something changed since", with `count` one past `count()`."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while self._count_locked(method) < count:
                left = deadline - time.monotonic()
                if left <= 0 or not self._reading:
                    return False
                self._arrived.wait(left)
        return True

    def _count_locked(self, method: str) -> int:
        return sum(1 for r in self.received if r.method == method and "id" not in r.message)

    # -- the session ------------------------------------------------------------------------

    def initialize(self, params: Mapping[str, Any], *, wait_indexed: bool = True) -> dict[str, Any]:
        """`initialize` (whose whole response comes back) then `initialized`; and, unless told
        not to, wait for the first `memlsp/indexed`."""
        answer = self.call("initialize", dict(params)).message
        if "error" in answer:
            raise ResponseError("initialize", answer["error"])
        self.notify("initialized", {})
        if wait_indexed:
            self.wait_notification("memlsp/indexed")
        return answer

    # -- the process ------------------------------------------------------------------------

    def exited(self, timeout: float) -> int | None:
        """The exit code once the process ends within `timeout` seconds, else None."""
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self, how: signal.Signals = signal.SIGKILL) -> None:
        """`kill -9` (the server gets no chance to save anything), or another signal, such as the
        SIGTERM an editor sends a server that does not exit in time; then wait for the end."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, how)
            self.process.wait(timeout=REQUEST_TIMEOUT)
        if self._own_process_group:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)  # helpers it started, if any are left

    def shutdown(self, timeout: float = 10.0) -> float:
        """`shutdown` then `exit`: the seconds until the process had ended; NaN (and killed) if
        it did not end cleanly."""
        started = time.perf_counter()
        try:
            self.request("shutdown", None, timeout)
            self.notify("exit", None)
            self.process.wait(timeout=timeout)
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            self.kill()
            return float("nan")
        return time.perf_counter() - started

    def stop(self) -> None:
        """End the server however it goes: cleanly if it still answers, else killed."""
        if self.process.poll() is None:
            self.shutdown()
        self.kill()

    def __enter__(self) -> StdioClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
