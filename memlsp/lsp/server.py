"""The language server: vaults per workspace folder, documents routed to them, the lifecycle.

Feature handlers live in `lsp/features/`; this module holds the state they share and the plumbing
that keeps the index live (document sync, file events, progress, settings, exit).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from memlsp import __version__, cli, daemon, wire
from memlsp.config import (
    Settings,
    chosen_part,
    load_vault_settings,
    settings_from,
    user_settings,
)
from memlsp.engine import Engine
from memlsp.index.semantic import VectorStatus
from memlsp.live import Listener, LiveVault, notes_done, sections_done
from memlsp.lsp import convert
from memlsp.lsp.diagnostics import Publisher
from memlsp.lsp.protocol import MemlspProtocol
from memlsp.model import IndexSummary
from memlsp.sync.activity import Activity
from memlsp.vault.roots import VAULT_MARKERS, vault_of_lone_note, vault_root
from memlsp.vault.view import VaultView

log = logging.getLogger(__name__)
CATCH_UP_SECONDS = 2.0  # the longest an edit request waits for the index to take a keystroke

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Note:
    """The note a request is about, in the vault that holds it (as the request's view sees it)."""

    view: VaultView
    root: Path
    path: str
    # The open buffer's lines as they were when the request came: the position is in that
    # version, and the client may send more edits while the request runs on a thread.
    buffer: Sequence[str] | None

    def lines(self) -> list[str]:
        """The note's lines as the request sees them (its buffer, else the file), no line ends."""
        lines = (
            self.buffer
            if self.buffer is not None
            else (self.view.read(self.path) or "").splitlines()
        )
        return [line.rstrip("\r\n") for line in lines]


@dataclass(frozen=True, slots=True)
class Cursor(Note):
    """A request's position in a note: 0-based line, code-point column."""

    line: int
    column: int


class MemlspServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("memlsp", __version__, protocol_cls=MemlspProtocol)
        self.vaults: dict[Path, LiveVault] = {}
        self.settings = Settings()
        self.base_settings = Settings()  # from `initializationOptions`
        self.shutdown_requested = False  # `exit` before `shutdown` is an error exit
        self.loop: asyncio.AbstractEventLoop | None = None
        self.listener = _ProgressListener(self)
        self.diagnostics = Publisher(self)
        self.activity = Activity()  # requests in flight: what embedding steps aside for
        self.folder_roots: dict[Path, Path] = {}  # workspace folder -> the vault it belongs to
        self.lone_notes = False  # no workspace folder given: each opened note opens its vault
        self.told_incomplete: set[Path] = set()  # vaults whose early answers were said partial
        self.sockets: dict[Path, daemon.VaultSocket] = {}  # where the CLI asks each vault

    # -- where a document belongs ------------------------------------------------------------

    @property
    def encoding(self) -> str:
        return convert.encoding_name(self.workspace.position_encoding)

    def vault_for(self, uri: str) -> tuple[LiveVault, str] | None:
        """The vault holding a document, and the document's vault-relative path."""
        path = convert.path_of(uri)
        if path is None:
            return None
        for root in sorted(self.vaults, key=lambda r: len(r.parts), reverse=True):
            if path.is_relative_to(root):
                return self.vaults[root], path.relative_to(root).as_posix()
        return None

    def engine_for(self, uri: str) -> tuple[Engine, str, Path] | None:
        found = self.vault_for(uri)
        if found is None:
            return None
        vault, path = found
        self.answering_from(vault)
        if vault.engine is None:
            return None
        return vault.engine, path, vault.root

    def answering_from(self, vault: LiveVault) -> None:
        """A request answered while the vault is still opening may miss notes: say so, once per
        vault, rather than let an empty answer look like the truth."""
        why = vault.incomplete()
        if why and vault.root not in self.told_incomplete:
            self.told_incomplete.add(vault.root)
            self.tell(f"memlsp: {why}", types.MessageType.Warning)

    def document(self, uri: str) -> TextDocument | None:
        """The open document at `uri`; pygls keys documents by the percent-decoded URI, so a
        note named `向量检索.md` or `query understanding.md` is found however it was spelled."""
        document: TextDocument | None = self.workspace.text_documents.get(unquote(uri))
        return document

    def document_version(self, uri: str) -> int | None:
        """The version of the document open at `uri`; None when it is not open (a file on disk)."""
        document = self.document(uri)
        return document.version if document is not None else None

    async def caught_up(self, uris: Sequence[str], timeout: float = CATCH_UP_SECONDS) -> None:
        """Wait (a little) until the index has taken the open buffers at `uris` as they are now:
        an edit is worked out on the indexed text, and a keystroke is indexed after a pause."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline and not all(self._indexed_as_open(uri) for uri in uris):
            await asyncio.sleep(0.01)

    def _indexed_as_open(self, uri: str) -> bool:
        document, found = self.document(uri), self.vault_for(uri)
        engine = found[0].engine if found is not None else None
        if document is None or found is None or engine is None:
            return True
        return engine.view().read(found[1]) == document.source

    def open_documents(self, vault: LiveVault) -> list[str]:
        """The URIs of the open documents in `vault`."""
        return [
            uri
            for uri in list(self.workspace.text_documents)
            if (found := self.vault_for(uri)) is not None and found[0] is vault
        ]

    async def in_note(self, uri: str, work: Callable[[Note], T], nothing: T) -> T:
        """Run `work` on a thread, on a view of the vault, for a note of an indexed vault."""
        found = self.engine_for(uri)
        if found is None:
            return nothing
        engine, path, root = found
        document = self.document(uri)
        buffer = document.lines if document is not None else None  # now, on the event loop
        return await self.run(lambda: work(Note(engine.view(), root, path, buffer)))

    async def at_cursor(
        self, uri: str, position: types.Position, work: Callable[[Cursor], T], nothing: T
    ) -> T:
        """Like `in_note`, at a client position converted to a code-point column."""

        def at(note: Note) -> T:
            lines = note.lines()  # read once: it may come from disk
            if position.line > len(lines):
                return nothing  # after the last line; past a line's end is the line's end
            text = lines[position.line] if position.line < len(lines) else ""
            encoding = self.workspace.position_encoding
            column = convert.column_of(text, position.character, encoding)
            cursor = Cursor(note.view, note.root, note.path, note.buffer, position.line, column)
            return work(cursor)

        return await self.in_note(uri, at, nothing)

    # -- vaults ------------------------------------------------------------------------------

    def open_folder(self, folder: Path) -> None:
        """Open the vault a workspace folder belongs to (the folder itself, or the nearest folder
        above it that is marked as a vault)."""
        folder = folder.resolve()
        if not folder.is_dir():
            self.tell(f"memlsp: workspace folder {folder} does not exist; not indexed")
            return
        root = vault_root(folder)
        if root is None:
            self.say(
                f"memlsp: not indexing {folder}: it is the home folder or the filesystem root, "
                "with no .obsidian or .memlsp.toml. Each note you open will open its own vault "
                "(the nearest folder marked with one of those, else the note's folder)."
            )
            self.lone_notes = True
            return
        self.folder_roots[folder] = root
        if root != folder and root not in self.vaults:
            self.tell(f"memlsp: {folder} is inside the vault {root} (it has {_marker(root)})")
        self.open_vault(root)

    def close_folder(self, folder: Path) -> None:
        """A workspace folder went away: its vault closes unless another folder still uses it."""
        root = self.folder_roots.pop(folder.resolve(), None)
        if root is not None and root not in self.folder_roots.values():
            self.close_vault(root)

    def open_lone_note(self, uri: str) -> None:
        """The client named no folder (a single file opened): the note's vault opens, and the
        user is told which folder that is, since nobody chose it."""
        path = convert.path_of(uri)
        if path is None or self.vault_for(uri) is not None:
            return
        root = vault_of_lone_note(path)
        if root is None:
            self.say(
                f"memlsp: {path.name} is not inside a vault (no .obsidian or .memlsp.toml above "
                "it) and its folder is too wide to index; open the vault's folder as the "
                "workspace instead."
            )
            return
        marker = _marker(root)
        why = f"it has {marker}" if marker else "the note's folder"
        self.say(f"memlsp: the editor named no workspace folder; indexing {root} ({why}).")
        self.open_vault(root)

    def open_vault(self, root: Path) -> None:
        root = root.resolve()
        if root in self.vaults:
            return
        settings, problems = load_vault_settings(root, self.settings)
        for problem in problems:
            self.tell(f"memlsp: {problem}", types.MessageType.Warning)
        vault = LiveVault(
            root, settings, self.listener, watch=settings.watch, activity=self.activity
        )
        self.vaults[root] = vault
        vault.start()
        for uri, document in list(self.workspace.text_documents.items()):
            path = convert.path_of(uri)
            if path is not None and path.is_relative_to(root):  # already open in the editor
                vault.buffer_changed(path.relative_to(root).as_posix(), document.source)

    def reopen_changed_vaults(self) -> None:
        """Vaults whose settings changed start again with them (a warm start, about a second);
        settings read per request only are changed in place."""
        for root, vault in list(self.vaults.items()):
            settings, _ = load_vault_settings(root, self.settings)
            if _restart_key(settings) != _restart_key(vault.settings):
                self.close_vault(root)
                self.open_vault(root)
            elif settings != vault.settings:
                vault.use_settings(settings)
                self.diagnostics.vault_changed(vault)

    def close_vault(self, root: Path) -> None:
        vault = self.vaults.pop(root.resolve(), None)
        if vault is not None:
            vault.stop()
        # Only now: the vault's writer thread, which opens its socket, has stopped.
        answering = self.sockets.pop(root.resolve(), None)
        if answering is not None:
            answering.close()

    def answer_on_socket(self, vault: LiveVault) -> None:
        """Answer the command line's searches of this vault on its socket, once its index is
        open, unless another process does (tried again at each full rescan, such as after
        taking over from the process that wrote the index)."""
        engine = vault.engine
        if vault.root in self.sockets or engine is None or not daemon.supported():
            return
        path = daemon.socket_path(engine.cache_dir)
        if path is None or self.vaults.get(vault.root) is not vault:
            return
        answering = daemon.VaultSocket(path, partial(cli.answer, vault))
        try:
            if answering.open():
                self.sockets[vault.root] = answering
        except OSError as error:
            log.warning("%s: cannot answer on %s: %s", vault.root, path, error)

    def stop(self) -> None:
        for root in list(self.vaults):
            self.close_vault(root)

    # -- talking to the client from any thread -----------------------------------------------

    def from_thread(self, action: Callable[[], None]) -> None:
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(action)

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

    async def run(self, work: Callable[[], T]) -> T:
        """Run engine work on a thread: the event loop keeps reading messages (and cancels).
        Background embedding waits while it runs."""

        def busy() -> T:
            with self.activity.busy():
                return work()

        return await asyncio.to_thread(busy)


class _ProgressBar:
    """One run of `$/progress` with a token of its own: pygls never forgets a token, so reusing
    one fails from the second run on. The token is created before `begin`; a report sent before
    the client answered is dropped, and `end` waits for `begin`."""

    _numbers = itertools.count(1)
    CREATE_TIMEOUT = 10.0  # seconds a client may take to accept the token

    def __init__(self, server: MemlspServer, kind: str) -> None:
        self.server = server
        self.token = f"memlsp-{kind}-{next(self._numbers)}"
        self._begun: asyncio.Task[bool] | None = None

    def begin(self, title: str, message: str) -> None:
        def start() -> None:
            self._begun = asyncio.ensure_future(self._begin(title, message))

        self.server.from_thread(start)

    async def _begin(self, title: str, message: str) -> bool:
        progress = self.server.work_done_progress
        try:
            await asyncio.wait_for(progress.create_async(self.token), self.CREATE_TIMEOUT)
        except Exception as error:  # the client refused or never answered: no progress shown
            log.info("progress %s not created: %s", self.token, error)
            return False
        begin = types.WorkDoneProgressBegin(title=title, message=message, percentage=0)
        progress.begin(self.token, begin)
        return True

    def report(self, message: str, percentage: int) -> None:
        value = types.WorkDoneProgressReport(message=message, percentage=percentage)

        def send() -> None:
            begun = self._begun
            if begun is not None and begun.done() and begun.result():
                self.server.work_done_progress.report(self.token, value)

        self.server.from_thread(send)

    def end(self, message: str) -> None:
        async def finish() -> None:
            if self._begun is None or not await self._begun:
                return
            progress = self.server.work_done_progress
            progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            progress.tokens.pop(self.token, None)

        self.server.from_thread(lambda: _keep(asyncio.ensure_future(finish())))


_running: set[asyncio.Future[None]] = set()


def _keep(task: asyncio.Future[None]) -> None:
    """Hold a fire-and-forget task until it is done (the loop keeps only a weak reference)."""
    _running.add(task)
    task.add_done_callback(_running.discard)


class _ProgressListener(Listener):
    """Indexing and embedding as `$/progress`, in the words of `VaultStatus.summary`;
    `memlsp/indexed` when a vault is ready, `memlsp/vectors` when embedding caught up."""

    def __init__(self, server: MemlspServer) -> None:
        self.server = server
        self.bars: dict[tuple[str, Path], _ProgressBar] = {}

    def _supports_progress(self) -> bool:
        window = self.server.client_capabilities.window
        return bool(window and window.work_done_progress)

    def _begin(self, kind: str, vault: LiveVault, title: str, message: str) -> None:
        if not self._supports_progress():
            return
        old = self.bars.pop((kind, vault.root), None)
        if old is not None:
            old.end("")
        bar = self.bars[(kind, vault.root)] = _ProgressBar(self.server, kind)
        bar.begin(title, message)

    def _end(self, kind: str, vault: LiveVault, message: str) -> None:
        bar = self.bars.pop((kind, vault.root), None)
        if bar is not None:
            bar.end(message)

    def indexing_started(self, vault: LiveVault, total: int) -> None:
        self.server.answer_on_socket(vault)
        self._begin("index", vault, f"Indexing {vault.root.name}", "looking for changed notes")

    def indexing_progress(self, vault: LiveVault, done: int, total: int) -> None:
        bar = self.bars.get(("index", vault.root))
        if bar is not None:
            bar.report(notes_done(done, total), int(100 * done / max(total, 1)))

    def indexing_done(self, vault: LiveVault, summary: IndexSummary) -> None:
        self._end(
            "index",
            vault,
            f"{summary.notes:,} notes, {summary.links:,} links "
            f"({summary.unresolved:,} to notes not written yet, {summary.ambiguous:,} ambiguous)",
        )
        for text in summary.messages:
            self.server.tell(f"memlsp: {text}", types.MessageType.Warning)
        params = wire.indexed_json(convert.uri_of(vault.root), summary)
        self.server.from_thread(lambda: self.server.protocol.notify("memlsp/indexed", params))

    def vectors_progress(self, vault: LiveVault, status: VectorStatus, done: bool) -> None:
        """`$/progress` while embedding, and `memlsp/vectors` when it caught up or cannot go on."""
        message = sections_done(status)
        bar = self.bars.get(("vectors", vault.root))
        if not done:
            if bar is None:
                self._begin("vectors", vault, f"Finding meaning in {vault.root.name}", message)
            else:
                bar.report(
                    message, int(100 * status.stored / max(status.stored + status.pending, 1))
                )
            return
        if status.state != "ready":
            message = f"semantic search unavailable: {status.problem}"
        self._end("vectors", vault, message)
        if status.state == "unavailable":
            self.server.tell(
                f"memlsp: semantic search unavailable, keyword search only: {status.problem}",
                types.MessageType.Warning,
            )
        params = wire.vectors_notice_json(convert.uri_of(vault.root), status)
        self.server.from_thread(lambda: self.server.protocol.notify("memlsp/vectors", params))

    def changed(self, vault: LiveVault) -> None:
        engine = vault.engine
        revision = engine.revision if engine is not None else 0
        params = wire.changed_json(convert.uri_of(vault.root), revision)

        def tell() -> None:
            self.server.diagnostics.vault_changed(vault)
            self.server.protocol.notify("memlsp/changed", params)
            self.server.refresh_code_lenses()

        self.server.from_thread(tell)


def _marker(root: Path) -> str:
    return " and ".join(m for m in VAULT_MARKERS if (root / m).exists())


def _restart_key(settings: Settings) -> Settings:
    """The settings with those a request reads each time blanked out: what needs a restart."""
    return replace(
        settings,
        symbol_limit=0,
        vector_weight=0.0,
        min_strength=0.0,
        unresolved_links="",
        missing_anchors="",
        ambiguous_links="",
        links_outside="",
        new_note_folder="",
        code_lens=True,
    )


def _options(value: Any) -> dict[str, Any]:
    """Settings as given by a client: a mapping, maybe nested under "memlsp"."""
    if not isinstance(value, dict):
        return {}
    nested = value.get("memlsp")
    return nested if isinstance(nested, dict) else value


def apply_settings(server: MemlspServer, options: Any, base: Settings | None = None) -> None:
    """The client's settings over what `base` chose (`initializationOptions`), over the user
    config file; each bad value is told and ignored. A vault's file cannot override them."""
    given, problems = settings_from(_options(options), chosen_part(base or Settings()))
    settings, more = user_settings(given)
    server.settings = settings
    for problem in more + problems:
        server.tell(f"memlsp: {problem}", types.MessageType.Warning)


def watch_parent(server: MemlspServer, pid: int | None) -> None:
    """Exit when the editor that started us is gone, even if it never said `exit`."""
    if not pid:
        return

    def check() -> None:
        while True:
            threading.Event().wait(2.0)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                log.info("the client process %d is gone; exiting", pid)
                server.stop()
                os._exit(0)
            except PermissionError:
                pass  # alive, owned by someone else

    threading.Thread(target=check, name="watch client", daemon=True).start()
