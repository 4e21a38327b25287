"""`memlsp --stdio` / `memlsp --tcp HOST:PORT`: build the server and run it.

The read loop is pygls's own (`run_async`: its framing, and how it finds the next frame after a
damaged one), started here rather than by `start_io` / `start_tcp` so that its error handler is
the protocol's: pygls's would only log a frame whose body is not JSON, and leave a request
unanswered.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading

from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async

from memlsp.lsp.features import register_all
from memlsp.lsp.protocol import MemlspProtocol
from memlsp.lsp.server import MemlspServer

log = logging.getLogger(__name__)

# pygls's loop logs a traceback for each body it cannot parse; the protocol logs one line instead.
_READ_LOOP = logging.getLogger(f"{__name__}.read_loop")
_READ_LOOP.setLevel(logging.CRITICAL)


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
    """What pygls's `start_io` does, with the protocol's error handler."""
    protocol = _protocol(server)
    protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    reader = StdinAsyncReader(sys.stdin.buffer, server.thread_pool)
    stop = threading.Event()
    try:
        asyncio.run(
            run_async(
                stop_event=stop,
                reader=reader,
                protocol=protocol,
                logger=_READ_LOOP,
                error_handler=protocol.unreadable,
            )
        )
    except BrokenPipeError:
        log.error("the connection to the client is lost")
    except (KeyboardInterrupt, SystemExit):
        pass  # `exit` ends the process this way
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]


def _serve_tcp(server: MemlspServer, host: str, port: int) -> None:
    """What pygls's `start_tcp` does, with the protocol's error handler: one client, and the
    server ends when it leaves."""
    protocol = _protocol(server)
    stop = threading.Event()

    async def listen() -> None:
        gone = asyncio.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            protocol.set_writer(writer)
            try:
                await run_async(
                    stop_event=stop,
                    reader=reader,
                    protocol=protocol,
                    logger=_READ_LOOP,
                    error_handler=protocol.unreadable,
                )
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
