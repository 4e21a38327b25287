"""`memlsp --stdio` / `memlsp --tcp HOST:PORT`: build the server and run it."""

from __future__ import annotations

import logging
import sys

from memlsp.lsp.features import register_all
from memlsp.lsp.server import MemlspServer


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
            server.start_tcp(host or "127.0.0.1", int(port))
        else:
            server.start_io()
    finally:
        server.stop()
    # As the LSP asks: 0 after `shutdown`, 1 when the client left without it (pygls swallows
    # the exit code it would give).
    return 0 if server.shutdown_requested else 1
