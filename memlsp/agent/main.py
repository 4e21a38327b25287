"""`memlsp mcp [VAULT] [--http HOST:PORT] [--allow-writes]`: serve the tools over stdio, or over
streamable HTTP (loopback only, unless the user names another address and sets a token)."""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import sys
from pathlib import Path

import anyio

from memlsp.agent.jsonrpc import App, CheckedBodies, Receive, Scope, Send
from memlsp.agent.server import MemoryServer
from memlsp.agent.source import VaultSource
from memlsp.agent.tools import Memory
from memlsp.settings.table import Settings
from memlsp.vault.roots import marked_root

log = logging.getLogger(__name__)

TOKEN_VARIABLE = "MEMLSP_MCP_TOKEN"
MIN_TOKEN_LENGTH = 24


class CannotServe(Exception):
    """What stops the server from starting, in one sentence."""


def vault_here(folder: Path) -> Path:
    """The vault the folder a server was started in belongs to: the nearest marked one (a folder
    with `.obsidian` or `.memlsp.toml`), else the folder itself when it holds notes."""
    root = marked_root(folder)
    if root is not None:
        return root
    folder = folder.resolve()
    if folder != Path.home().resolve() and folder != Path(folder.anchor) and _has_notes(folder):
        return folder
    raise CannotServe(
        f"{folder} is not a vault (no .obsidian or .memlsp.toml, no notes): "
        "name one, as in `memlsp mcp PATH/TO/VAULT`"
    )


def _has_notes(folder: Path) -> bool:
    try:
        return any(entry.name.lower().endswith(".md") for entry in os.scandir(folder))
    except OSError:
        return False


def serve(root: Path, settings: Settings, *, http: str | None, allow_writes: bool) -> int:
    address = None if http is None else _address(http)
    token = os.environ.get(TOKEN_VARIABLE) or None
    if address is not None and not _loopback(address[0]) and token is None:
        raise CannotServe(
            f"{address[0]} is reachable from other machines: set {TOKEN_VARIABLE} to a secret "
            f"of {MIN_TOKEN_LENGTH}+ characters, which clients send as 'Authorization: Bearer …'"
        )
    if token is not None and len(token) < MIN_TOKEN_LENGTH:
        raise CannotServe(f"{TOKEN_VARIABLE} is too short: use {MIN_TOKEN_LENGTH}+ characters")
    # As the language server: a request thread gets the interpreter back from a busy embedding
    # thread within 1 ms, not 5, when this process has the vault open itself.
    sys.setswitchinterval(0.001)
    source = VaultSource(root, settings)
    source.start()
    server = MemoryServer(Memory(source, allow_writes=allow_writes))
    try:
        if address is None:
            anyio.run(server.run_stdio_async)
        else:
            anyio.run(_serve_http, server, address[0], address[1], token)
    except KeyboardInterrupt:
        pass
    finally:
        source.close()
    return 0


async def _serve_http(server: MemoryServer, host: str, port: int, token: str | None) -> None:
    import uvicorn

    app: App = CheckedBodies(server.streamable_http_app(host=host))
    if token is not None:
        app = BearerToken(app, token)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    sys.stderr.write(f"memlsp mcp: serving on http://{_url_host(host)}:{port}/mcp\n")
    await uvicorn.Server(config).serve()


def _address(text: str) -> tuple[str, int]:
    host, separator, port = text.rpartition(":")
    host = host.strip("[]")
    if not separator or not port.isdigit() or not 0 < int(port) < 65536:
        raise CannotServe(f"--http takes HOST:PORT, as in 127.0.0.1:8765, not {text!r}")
    return host or "127.0.0.1", int(port)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class BearerToken:
    """Only requests carrying `Authorization: Bearer TOKEN` reach the app."""

    def __init__(self, app: App, token: str) -> None:
        self.app = app
        self.expected = b"Bearer " + token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = b""
            for name, value in scope.get("headers", ()):
                if name.lower() == b"authorization":
                    given = value
            if not hmac.compare_digest(given, self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"www-authenticate", b"Bearer"),
                            (b"content-type", b"text/plain; charset=utf-8"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b"a bearer token is needed\n"})
                return
        await self.app(scope, receive, send)
