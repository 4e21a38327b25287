"""`memlsp --stdio` / `memlsp --tcp HOST:PORT`: build the server and run it.

The read loop is ours rather than pygls's (`start_io` / `start_tcp` run `pygls.io_.run_async`): a
body that is not JSON goes to the protocol, which answers it, where pygls's loop only logs it;
and a frame is found again after damaged framing, where pygls's loses every later frame.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
from collections.abc import Awaitable, Callable

from pygls.io_ import StdinAsyncReader, StdoutWriter

from memlsp import wire
from memlsp.commands.status import announce_process
from memlsp.lsp.features import register_all
from memlsp.lsp.protocol import MemlspProtocol
from memlsp.lsp.server import MemlspServer

log = logging.getLogger(__name__)

# Anywhere up to a line's end: after a body shorter than its Content-Length said, the rest of the
# body and the next header share a line (pygls looks for the header alone on its line only, and
# from then on every body shares a line with the header after it). LF alone ends a line too.
_CONTENT_LENGTH = re.compile(rb"Content-Length: (\d+)\r?\n\Z")
_CHUNK = 1 << 20  # bytes of a body read at once

SWITCH_INTERVAL = 0.001


def _late_cancel(record: logging.LogRecord) -> bool:
    """pygls warns when a client cancels a request whose answer is already sent: a race that
    every editor causes in normal use (VS Code cancels code actions as the cursor moves), so it
    is logged as information, not shown as a problem."""
    if record.levelno == logging.WARNING and record.getMessage().startswith(
        "Cancel notification for unknown message id"
    ):
        record.levelno, record.levelname = logging.INFO, "INFO"
        return logging.getLogger().isEnabledFor(logging.INFO)
    return True


def create_server() -> MemlspServer:
    server = MemlspServer()
    register_all(server)
    return server


def serve(tcp: str | None = None, verbose: bool = False) -> int:
    # stdout is the protocol: every log line goes to stderr (and to the client as logMessage).
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="memlsp: %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    # A request thread that gives up the interpreter's lock (each tantivy or Chroma call does)
    # waits up to the switch interval to get it back from a busy embedding thread: 5 ms by
    # default, paid many times per request. 1 ms keeps that wait short.
    sys.setswitchinterval(SWITCH_INTERVAL)
    logging.getLogger("pygls.protocol.json_rpc").addFilter(_late_cancel)
    announce_process("language server")  # its status reports name it
    server = create_server()
    try:
        if tcp:
            host, _, port = tcp.rpartition(":")
            _serve_tcp(server, host or "127.0.0.1", int(port))
        else:
            _serve_stdio(server)
    finally:
        server.stop()
    # As the LSP asks: 0 after `shutdown`, 1 when the client left without it (pygls swallows
    # the exit code it would give).
    return 0 if server.shutdown_requested else 1


def _protocol(server: MemlspServer) -> MemlspProtocol:
    protocol = server.protocol
    assert isinstance(protocol, MemlspProtocol)
    return protocol


def _serve_stdio(server: MemlspServer) -> None:
    """What pygls's `start_io` does, with the read loop below."""
    protocol = _protocol(server)
    protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    reader = StdinAsyncReader(sys.stdin.buffer, server.thread_pool)
    try:
        asyncio.run(_read(reader.readline, reader.readexactly, protocol))
    except BrokenPipeError:
        log.error("the connection to the client is lost")
    except (KeyboardInterrupt, SystemExit):
        pass  # `exit` ends the process this way
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]


def _serve_tcp(server: MemlspServer, host: str, port: int) -> None:
    """What pygls's `start_tcp` does, with the read loop below: one client, and the server ends
    when it leaves."""
    protocol = _protocol(server)

    async def listen() -> None:
        gone = asyncio.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            protocol.set_writer(writer)
            try:
                await _read(reader.readline, reader.readexactly, protocol)
            except asyncio.IncompleteReadError:
                pass  # the client left in the middle of a frame
            except SystemExit:
                pass  # `exit`; raised in this callback, asyncio would log it as a crash
            finally:
                gone.set()

        listener = await asyncio.start_server(connection, host, port)
        log.info("listening on %s:%d", host, port)
        async with listener:
            await gone.wait()

    try:
        asyncio.run(listen())
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]


async def _read(
    readline: Callable[[], Awaitable[bytes]],
    read: Callable[[int], Awaitable[bytes]],
    protocol: MemlspProtocol,
) -> None:
    """Frames until the input ends (or `exit`): header lines up to an empty one, then the body,
    as JSON to the protocol. The first Content-Length of a frame counts; lines that are not
    headers are skipped, which is how a stream finds its next frame after damage."""
    length = 0
    while True:
        try:
            line = await readline()
        except ValueError:  # longer than a TCP stream's buffer, so no header: skipped
            continue
        if not line:
            return
        if not length and (found := _CONTENT_LENGTH.search(line)):
            length = int(found.group(1))
        elif length and not line.strip():
            body = await _body(read, length)
            length = 0
            if body is None:
                return
            try:
                message = wire.decode_message(body)
            except Exception as error:  # not UTF-8, not JSON, nested too deeply
                protocol.unreadable(error)
            else:
                protocol.handle_message(message)


async def _body(read: Callable[[int], Awaitable[bytes]], length: int) -> bytes | None:
    """`length` bytes, or None if the input ends first. Read a chunk at a time: a Content-Length
    of 10¹² would otherwise be one allocation of that size (a MemoryError, not an exit)."""
    chunks = []
    while length > 0:
        chunk = await read(min(length, _CHUNK))
        if not chunk:
            return None
        chunks.append(chunk)
        length -= len(chunk)
    return b"".join(chunks)
