"""The language server: what its handlers share, and how they reach a note of a vault.

Feature handlers live in `lsp/features/`. The parts they share each have a module: the open vaults
and routing (`vaults.py`), the client's settings (`client_settings.py`), a vault's news fanned out
to the client (`vault_events.py`: progress in `progress.py`, diagnostics in `diagnostics.py`,
`memlsp/changed`, code lenses, the command line's socket through `daemon/host.py`) and the watch on
the editor's process (`watchdog.py`). Those parts talk to the client through a narrow port this
server builds (`client_port.py`), never through the server itself. A request about a note reads
one snapshot of its vault, taken when it begins (`context.py`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.progress import Progress
from pygls.workspace import TextDocument

from memlsp import __version__
from memlsp.daemon.host import SocketHost
from memlsp.engine.snapshot import Snapshot
from memlsp.live.vault import LiveVault
from memlsp.lsp import convert
from memlsp.lsp.client_port import ClientPort
from memlsp.lsp.client_settings import ClientSettings
from memlsp.lsp.context import CursorRequest, NoteRequest
from memlsp.lsp.diagnostics import Publisher
from memlsp.lsp.protocol import MemlspProtocol
from memlsp.lsp.vault_events import VaultEvents
from memlsp.lsp.vaults import Vaults
from memlsp.sync.activity import Activity

log = logging.getLogger(__name__)
CATCH_UP_SECONDS = 2.0  # the longest an edit request waits for the index to take a keystroke

T = TypeVar("T")


class MemlspServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("memlsp", __version__, protocol_cls=MemlspProtocol)
        self.client_settings = ClientSettings()
        self.shutdown_requested = False  # `exit` before `shutdown` is an error exit
        self._loop: asyncio.AbstractEventLoop | None = None
        self.activity = Activity()  # requests in flight: what embedding steps aside for
        port = self._port()
        self.diagnostics = Publisher(port)
        self.sockets = SocketHost()
        self.events = VaultEvents(
            port,
            self.diagnostics,
            self.sockets,
            still_open=lambda vault: self.vaults.get(vault.root) is vault,
        )
        self.vaults = Vaults(
            self.events,
            self.activity,
            tell=self.tell,
            warn=lambda text: self.tell(text, types.MessageType.Warning),
            say=self.say,
            opened=self._feed_open_documents,
            closed=self.sockets.close_vault,
        )

    def _port(self) -> ClientPort:
        """What the parts that talk to the client on their own may ask of it."""
        return ClientPort(
            on_loop=self.from_thread,
            notify=lambda method, params: self.protocol.notify(method, params),
            log=self.tell,
            progress=self._progress,
            publish_diagnostics=self.text_document_publish_diagnostics,
            refresh_lenses=self.refresh_code_lenses,
            document=self.document,
            open_uris=lambda: list(self.workspace.text_documents),
            note_at=lambda uri: self.vaults.route(uri),
            encoding=lambda: self.encoding,
        )

    def _progress(self) -> Progress | None:
        window = self.client_capabilities.window
        return self.work_done_progress if window and window.work_done_progress else None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop the client is talked to on, from any thread."""
        self._loop = loop

    def shut_down(self) -> None:
        self.shutdown_requested = True
        self.stop()

    def stop(self) -> None:
        self.vaults.close_all()

    # -- settings ------------------------------------------------------------------------------

    def initial_settings(self, options: Any) -> None:
        for problem in self.client_settings.initialize(options):
            self.tell(f"memlsp: {problem}", types.MessageType.Warning)

    def changed_settings(self, options: Any) -> None:
        """The client's new settings: vaults reopen or take them, and their problems are shown
        again under the new levels."""
        for problem in self.client_settings.change(options):
            self.tell(f"memlsp: {problem}", types.MessageType.Warning)
        for vault in self.vaults.use_settings(self.client_settings.current):
            self.events.settings_changed(vault)

    def open_folder(self, folder: Path) -> None:
        self.vaults.open_folder(folder, self.client_settings.current)

    def open_lone_note(self, uri: str) -> None:
        self.vaults.open_lone_note(uri, self.client_settings.current)

    # -- documents -----------------------------------------------------------------------------

    @property
    def encoding(self) -> str:
        return convert.encoding_name(self.workspace.position_encoding)

    def document(self, uri: str) -> TextDocument | None:
        """The open document at `uri`; pygls keys documents by the percent-decoded URI, so a
        note named `向量检索.md` or `query understanding.md` is found however it was spelled."""
        document: TextDocument | None = self.workspace.text_documents.get(unquote(uri))
        return document

    def document_version(self, uri: str) -> int | None:
        """The version of the document open at `uri`; None when it is not open (a file on disk)."""
        document = self.document(uri)
        return document.version if document is not None else None

    def open_documents(self, vault: LiveVault) -> list[str]:
        """The URIs of the open documents in `vault`."""
        return [
            uri
            for uri in list(self.workspace.text_documents)
            if (found := self.vaults.route(uri)) is not None and found[0] is vault
        ]

    def _feed_open_documents(self, vault: LiveVault) -> None:
        """A vault that opens takes the notes already open in the editor as they are there."""
        for uri, document in list(self.workspace.text_documents.items()):
            found = self.vaults.route(uri)
            if found is not None and found[0] is vault:
                vault.buffer_changed(found[1], document.source)

    async def caught_up(self, uris: Sequence[str], timeout: float = CATCH_UP_SECONDS) -> None:
        """Wait (a little) until the index has taken the open buffers at `uris` as they are now:
        an edit is worked out on the indexed text, and a keystroke is indexed after a pause."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline and not all(self._indexed_as_open(uri) for uri in uris):
            await asyncio.sleep(0.01)

    def _indexed_as_open(self, uri: str) -> bool:
        document, found = self.document(uri), self.vaults.route(uri)
        snapshot = found[0].read() if found is not None else None
        if document is None or found is None or snapshot is None:
            return True
        return snapshot.buffers.get(found[1]) == document.source

    # -- reading a vault -----------------------------------------------------------------------

    def read(self, vault: LiveVault) -> Snapshot | None:
        """The snapshot a request about `vault` answers from (None until its index is open);
        the user is told once when answers may be incomplete."""
        self.vaults.warn_if_incomplete(vault)
        return vault.read()

    async def in_note(self, uri: str, work: Callable[[NoteRequest], T], nothing: T) -> T:
        """Run `work` on a thread, on one snapshot of the vault, for a note of an open vault."""
        found = self.vaults.route(uri)
        if found is None:
            return nothing
        vault, path = found
        self.vaults.warn_if_incomplete(vault)
        document = self.document(uri)
        buffer = document.lines if document is not None else None  # now, on the event loop

        def answer() -> T:
            snapshot = vault.read()  # on the thread: a read-only vault looks at the disk
            return nothing if snapshot is None else work(NoteRequest(snapshot, path, buffer))

        return await self.run(answer)

    async def at_cursor(
        self, uri: str, position: types.Position, work: Callable[[CursorRequest], T], nothing: T
    ) -> T:
        """Like `in_note`, at a client position converted to a code-point column."""

        def at(note: NoteRequest) -> T:
            lines = note.lines()  # read once: it may come from disk
            if position.line > len(lines):
                return nothing  # after the last line; past a line's end is the line's end
            text = lines[position.line] if position.line < len(lines) else ""
            encoding = self.workspace.position_encoding
            column = convert.column_of(text, position.character, encoding)
            # The lines the column was found on are the request's: read again, a file may differ.
            return work(CursorRequest(note.snapshot, note.path, lines, position.line, column))

        return await self.in_note(uri, at, nothing)

    async def run(self, work: Callable[[], T]) -> T:
        """Run engine work on a thread: the event loop keeps reading messages (and cancels).
        Background embedding waits while it runs."""

        def busy() -> T:
            with self.activity.busy():
                return work()

        return await asyncio.to_thread(busy)

    # -- talking to the client from any thread -------------------------------------------------

    def from_thread(self, action: Callable[[], None]) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(action)

    def refresh_code_lenses(self) -> None:
        """Ask the client to ask for code lenses again, if it can be asked (VS Code can)."""
        workspace = self.client_capabilities.workspace
        lens = workspace.code_lens if workspace else None
        if lens is not None and lens.refresh_support:
            self.protocol.send_request(types.WORKSPACE_CODE_LENS_REFRESH, None)

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """A line for the client's log (`window/logMessage`)."""
        log.info("%s", message)
        self.from_thread(
            lambda: self.window_log_message(types.LogMessageParams(type=kind, message=message))
        )

    def say(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """What the user must see (`window/showMessage`): a decision they did not make."""
        log.info("%s", message)
        self.from_thread(
            lambda: self.window_show_message(types.ShowMessageParams(type=kind, message=message))
        )
