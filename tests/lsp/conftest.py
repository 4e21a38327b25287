"""A real LSP client over stdio (pytest-lsp) against `python -m memlsp --stdio` on a vault copy.

Each test gets a fresh copy of `fixtures/vault` and a fresh cache, a client with the recorded
capabilities of VS Code or Neovim, and waits for the server's `memlsp/indexed` notification
instead of sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlparse

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.helpers.vault import FIXTURE_VAULT

CLIENTS = {"vscode": "visual-studio-code", "neovim": "neovim@v0.11.0"}
CHANGED = "memlsp/changed"
NOTICES = ("memlsp/indexed", CHANGED, "memlsp/vectors")  # what the server tells of itself

T = TypeVar("T")


@dataclass
class Session:
    client: LanguageClient
    vault: Path
    events: dict[str, list[Any]] = field(default_factory=dict)
    result: types.InitializeResult | None = None  # the server's answer to `initialize`
    name: str = ""  # the client whose capabilities were sent: a key of CLIENTS

    def uri(self, path: str) -> str:
        return (self.vault / path).as_uri()

    def relative(self, uri: str) -> str:
        """The vault-relative path of a `file:` URI the server sent (percent-decoded)."""
        parsed = urlparse(uri)
        assert parsed.scheme == "file", uri
        return Path(unquote(parsed.path)).relative_to(self.vault).as_posix()

    def doc(self, path: str) -> types.TextDocumentIdentifier:
        return types.TextDocumentIdentifier(uri=self.uri(path))

    def places(self, locations: Any) -> list[tuple[str, int, int, int, int]]:
        """Locations as (vault-relative path, start line, start column, end line, end column)."""
        return [(self.relative(loc.uri), *range_numbers(loc.range)) for loc in (locations or [])]

    # -- positions in the negotiated encoding ------------------------------------------------

    @property
    def encoding(self) -> str:
        """The position encoding the server chose in its InitializeResult (UTF-16 if none)."""
        assert self.result is not None
        chosen = self.result.capabilities.position_encoding
        return str(getattr(chosen, "value", chosen or "utf-16"))

    def units(self, text: str) -> int:
        """The length of `text` in the negotiated encoding's code units."""
        if self.encoding == "utf-8":
            return len(text.encode("utf-8"))
        if self.encoding == "utf-16":
            return len(text.encode("utf-16-le")) // 2
        return len(text)

    def text(self, path: str) -> str:
        return (self.vault / path).read_text(encoding="utf-8")

    def find(
        self, path: str, needle: str, offset: int = 0, text: str | None = None
    ) -> types.Position:
        """The position `offset` characters into `needle` on the only line of the note holding
        it (or, if several do, the only line that is exactly `needle`)."""
        lines = (self.text(path) if text is None else text).splitlines()
        found = [number for number, line in enumerate(lines) if needle in line]
        if len(found) > 1:
            found = [number for number in found if lines[number] == needle]
        assert len(found) == 1, f"{needle!r} is on lines {found} of {path}"
        line = lines[found[0]]
        return types.Position(found[0], self.units(line[: line.index(needle) + offset]))

    def span(self, path: str, needle: str, text: str | None = None) -> types.Range:
        """The range of `needle` on its line, in the negotiated encoding."""
        start = self.find(path, needle, text=text)
        end = types.Position(start.line, start.character + self.units(needle))
        return types.Range(start, end)

    # -- requests and files ------------------------------------------------------------------

    async def request(self, method: str, params: Any) -> Any:
        """A request by name (custom `memlsp/*` ones too); JSON objects come back as dicts."""
        return plain(await self.client.protocol.send_request_async(method, params))

    def write(self, path: str, text: str) -> Path:
        """Write a vault file as another program would (no LSP message)."""
        full = self.vault / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text, encoding="utf-8")
        return full

    # -- waiting for the live index ----------------------------------------------------------

    def mark(self) -> int:
        """How many `memlsp/changed` notifications have arrived so far."""
        return len(self.events.get(CHANGED, []))

    def _heard(self) -> int:
        """How many of the server's own notifications (changed, indexed, vectors) arrived."""
        return sum(len(self.events.get(method, [])) for method in NOTICES)

    async def until(self, check: Callable[[], Awaitable[T]], timeout: float = 10.0) -> T:
        """Ask `check` again after each `memlsp/changed` (or `indexed`, or `vectors`) until it
        answers something truthy."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            heard = self._heard()
            value = await check()
            if value:
                return value
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"no change made the check pass in {timeout} s: {value!r}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._heard_more_than(heard), left)

    async def _heard_more_than(self, heard: int) -> None:
        while self._heard() <= heard:
            await asyncio.sleep(0.01)

    async def wait_until(
        self, method: str, wanted: Callable[[Any], bool], since: int = 0, timeout: float = 30.0
    ) -> Any:
        """The first `method` notification, from the `since`-th on (0: from the start), whose
        params `wanted` accepts; waiting for it. For a state, where `wait_for` counts."""

        async def arrived() -> Any:
            while True:
                for params in self.events.get(method, [])[since:]:
                    if wanted(params):
                        return params
                await asyncio.sleep(0.01)

        try:
            return await asyncio.wait_for(arrived(), timeout)
        except TimeoutError:
            seen = self.events.get(method, [])[since:]
            raise AssertionError(f"no wanted {method} in {timeout} s; arrived: {seen}") from None

    async def symbols(self, query: str) -> list[Any]:
        found = await self.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
        return list(found or [])

    async def search_paths(self, query: str) -> list[str]:
        """The vault-relative paths workspace/symbol gives for `query`, in order, once each."""
        return list(dict.fromkeys(symbol.container_name for symbol in await self.symbols(query)))

    async def finds(self, query: str, path: str) -> bool:
        """Whether workspace/symbol finds `query` in the note at `path`."""
        return path in await self.search_paths(query)

    async def misses(self, query: str, path: str) -> bool:
        return not await self.finds(query, path)

    async def search(self, **params: Any) -> dict[str, Any]:
        """`memlsp/search` with these params; its answer as a dict."""
        answer: dict[str, Any] = await self.request("memlsp/search", params)
        return answer

    async def wait_for(self, method: str, count: int = 1, timeout: float = 30.0) -> list[Any]:
        """Wait until `method` has been received `count` times in all; the messages so far."""

        async def arrived() -> None:
            while len(self.events.get(method, [])) < count:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(arrived(), timeout)
        return self.events[method]

    def open(self, path: str, text: str | None = None, version: int = 1) -> str:
        uri = self.uri(path)
        body = (self.vault / path).read_text(encoding="utf-8") if text is None else text
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="markdown", version=version, text=body)
            )
        )
        return uri

    def change(self, path: str, version: int, *edits: tuple[types.Range | None, str]) -> None:
        """`didChange` with incremental edits (a range and its new text) or a whole text (None)."""
        changes: list[types.TextDocumentContentChangeEvent] = [
            types.TextDocumentContentChangeWholeDocument(text=text)
            if where is None
            else types.TextDocumentContentChangePartial(range=where, text=text)
            for where, text in edits
        ]
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    version=version, uri=self.uri(path)
                ),
                content_changes=changes,
            )
        )

    def close(self, path: str) -> None:
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(self.doc(path)))

    # -- the editor requests, answers as plain values ----------------------------------------

    async def definition(
        self, path: str, position: types.Position
    ) -> list[tuple[str, int, int, int, int]]:
        found = await self.client.text_document_definition_async(
            types.DefinitionParams(self.doc(path), position)
        )
        assert found is None or isinstance(found, list)
        return self.places(found)

    async def references(
        self, path: str, position: types.Position, declaration: bool = False
    ) -> list[tuple[str, int, int, int, int]]:
        found = await self.client.text_document_references_async(
            types.ReferenceParams(
                text_document=self.doc(path),
                position=position,
                context=types.ReferenceContext(include_declaration=declaration),
            )
        )
        return sorted(self.places(found))

    async def hover(self, path: str, position: types.Position) -> str | None:
        found = await self.client.text_document_hover_async(
            types.HoverParams(self.doc(path), position)
        )
        if found is None:
            return None
        assert isinstance(found.contents, types.MarkupContent)
        assert found.contents.kind == types.MarkupKind.Markdown
        return found.contents.value


def range_numbers(value: types.Range) -> tuple[int, int, int, int]:
    return (value.start.line, value.start.character, value.end.line, value.end.character)


def plain(value: Any) -> Any:
    """pygls answers a custom request with namedtuples; turn them back into dicts and lists."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def _recorder(session_events: dict[str, list[Any]], method: str) -> Any:
    def record(_client: LanguageClient, params: Any) -> None:
        session_events.setdefault(method, []).append(params)

    return record


async def start_session(
    lsp_client: LanguageClient,
    tmp_path: Path,
    client_name: str,
    options: dict[str, Any] | None = None,
    files: dict[str, str] | None = None,
) -> Session:
    """`files` are written into the vault copy (replacing fixture notes) before indexing."""
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    session = Session(lsp_client, vault, name=client_name)
    for path, text in (files or {}).items():
        session.write(path, text)
    # progress and logs: the client keeps them
    for method in NOTICES:
        lsp_client.feature(method)(_recorder(session.events, method))
    _accept_registrations(lsp_client, session.events)
    session.result = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(CLIENTS[client_name]),
            root_uri=vault.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=vault.as_uri(), name="vault")],
            initialization_options={
                "cache_dir": str(tmp_path / "cache"),
                "embedder": "none",
                **(options or {}),
            },
        )
    )
    await session.wait_for("memlsp/indexed")
    return session


def _accept_registrations(lsp_client: LanguageClient, events: dict[str, list[Any]]) -> None:
    """Answer `client/registerCapability` and `workspace/codeLens/refresh` as an editor does
    (pytest-lsp's client has no handler for them); both are recorded."""
    for method in (types.CLIENT_REGISTER_CAPABILITY, types.WORKSPACE_CODE_LENS_REFRESH):
        lsp_client.feature(method)(_recorder(events, method))


SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "memlsp", "--stdio"])


@pytest_lsp.fixture(config=SERVER)
async def raw_client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    """The client connected to a fresh server process, not yet initialized."""
    yield
    await finish(lsp_client)


async def finish(client: LanguageClient) -> None:
    """Shut the server down, or else kill it: pygls's `client.stop()` waits for the server
    process to end by itself, which it never does when a test failed before `exit`."""
    server = client._server
    if server is None or server.returncode is not None:
        return
    with contextlib.suppress(Exception):
        await asyncio.wait_for(client.shutdown_session(), 5)
    if server.returncode is None:
        server.kill()
        await server.wait()


@contextlib.asynccontextmanager
async def served(
    tmp_path: Path, client_name: str, options: dict[str, Any] | None = None
) -> AsyncIterator[Session]:
    """A server process of its own for a longer-lived fixture; shut down and gone after."""
    client = await SERVER.start()
    assert isinstance(client, LanguageClient)  # the default client factory makes one
    try:
        yield await start_session(client, tmp_path, client_name, options)
    finally:
        await finish(client)
        await client.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=sorted(CLIENTS))
async def own(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Session]:
    """A session per client for one test module, which may change its vault. Tests using it run in
    the module's event loop: `pytestmark = pytest.mark.asyncio(loop_scope="module")`."""
    folder = tmp_path_factory.mktemp(
        f"{request.module.__name__.rsplit('.', 1)[-1]}-{request.param}"
    )
    async with served(folder, request.param) as session:
        yield session


@pytest_asyncio.fixture(scope="package", loop_scope="package", params=sorted(CLIENTS))
async def shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Session]:
    """One session per client for every test that only reads the fixture vault.

    Tests using it must run in the package's event loop:
    `pytestmark = pytest.mark.asyncio(loop_scope="package")`. Nothing may change its vault.
    """
    async with served(tmp_path_factory.mktemp(f"shared-{request.param}"), request.param) as session:
        yield session
