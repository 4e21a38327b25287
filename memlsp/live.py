"""A vault kept current while an editor works on it: the engine plus its single writer thread.

Editor buffers, the file watcher and the client's file events all go through one `ChangeQueue`;
one thread takes from it and writes to the engine, so requests (which only read) never wait for
more than one note's update. Opening the index and the first refresh happen on that thread too,
so a client's `initialize` is answered at once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from memlsp.backfill import Backfill, Step
from memlsp.config import Settings
from memlsp.engine import Engine
from memlsp.index.semantic import VectorStatus
from memlsp.model import IndexSummary, printable
from memlsp.parse.tokens import has_cjk, warm_up
from memlsp.sync.activity import Activity
from memlsp.sync.queue import (
    RESCAN,
    BufferClosed,
    BufferText,
    Change,
    ChangeQueue,
    DiskChanged,
    Rescan,
)
from memlsp.sync.watcher import VaultWatcher
from memlsp.vault.rules import VaultRules

log = logging.getLogger(__name__)

BUFFER_QUIET = 0.05  # seconds of no typing before a buffer is indexed
VECTOR_REPORT = 1.0  # seconds between embedding progress reports
VECTOR_IDLE = 10.0  # with nothing to embed, look again this often (and on every change)
DISK_QUIET = 0.05  # the watcher already waits for quiet; this only merges client and watcher events
TAKEOVER_POLL = 2.0  # seconds between looks, by a read-only vault, for a writer that has gone
SETTLE = "\0settle"  # the key of a rescan asked for by `settle`: told to nobody as indexing


@dataclass(frozen=True, slots=True)
class VaultStatus:
    root: str
    state: str  # "opening", "indexing", "ready", "failed", "stopped"
    notes: int
    chunks: int
    revision: int
    files_done: int
    files_total: int
    pending: int
    message: str = ""
    vectors: VectorStatus | None = None
    read_only: bool = False  # another process writes the index; this one answers from it

    @property
    def name(self) -> str:
        return Path(self.root).name

    @property
    def busy(self) -> bool:
        """Work is moving: opening, indexing, or (in the writing process) finding meaning."""
        if self.state in ("opening", "indexing"):
            return True
        vectors = self.vectors
        if self.read_only or vectors is None:
            return False
        # Before it connects the vector side knows of nothing pending: connecting is work too.
        return vectors.state == "connecting" or (vectors.state == "ready" and vectors.pending > 0)

    @property
    def summary(self) -> str:
        """One line in plain words for a person: the status bar, progress, `memlsp status`."""
        if self.state == "opening":
            return _sentence(self.message) if self.message else "Opening"
        if self.state == "indexing":
            if self.files_total:
                return f"Indexing {notes_done(self.files_done, self.files_total)}"
            return "Looking for changed notes"
        if self.state == "failed":
            return f"Not indexed: {self.message}"
        if self.state == "stopped":
            return "Stopped"
        ready = f"Ready: {self.notes:,} notes"
        if self.read_only:
            return f"{ready}, read-only (another memlsp process keeps this vault's index)"
        vectors = self.vectors
        if vectors is None or vectors.state == "off":
            return ready
        if vectors.state == "unavailable":
            return f"Ready, keyword search only: {vectors.problem or 'semantic search unavailable'}"
        if vectors.state == "connecting":
            return f"{ready}; starting semantic search"
        if vectors.pending:
            return f"Finding meaning: {sections_done(vectors)}"
        return ready


def notes_done(done: int, total: int) -> str:
    return f"{done:,} of {total:,} notes"


def sections_done(vectors: VectorStatus) -> str:
    return f"{vectors.stored:,} of {vectors.stored + vectors.pending:,} sections"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass(frozen=True, slots=True)
class _Phase:
    """Where the writer thread is, swapped whole so a reader never sees half of a change."""

    state: str = "opening"  # VaultStatus.state
    message: str = ""
    done: int = 0  # files indexed of `total` by the refresh under way
    total: int = 0


@dataclass(frozen=True, slots=True)
class VectorsAt:
    """The embedding thread's last step, and the index revision it had planned for (at least)."""

    revision: int
    step: Step


class _Changes:
    """Wakes every thread waiting for a value that one thread changes. No lock: a waiter takes
    the event before it looks at the value, and the changer swaps in a new event after changing
    it, so a change between the look and the wait still sets the event waited on."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def tell(self) -> None:
        event, self._event = self._event, threading.Event()
        event.set()

    def wait(self, check: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            event = self._event
            if check():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            event.wait(left)


class Listener:
    """What a live vault tells its owner (the language server); every method may be left as is."""

    def indexing_started(self, vault: LiveVault, total: int) -> None: ...
    def indexing_progress(self, vault: LiveVault, done: int, total: int) -> None: ...
    def indexing_done(self, vault: LiveVault, summary: IndexSummary) -> None: ...
    def changed(self, vault: LiveVault) -> None: ...
    def vectors_progress(self, vault: LiveVault, status: VectorStatus, done: bool) -> None:
        """Embedding went on (`done` False) or caught up / became unavailable (`done` True)."""


class LiveVault:
    def __init__(
        self,
        root: Path,
        settings: Settings,
        listener: Listener | None = None,
        *,
        watch: bool = True,
        activity: Activity | None = None,
    ) -> None:
        """`activity`: the requests of the process, which embedding steps aside for (one for
        every vault of a server: they share the cores)."""
        self.root = root
        self.activity = activity or Activity()
        self.settings = settings
        self.listener = listener or Listener()
        self.engine: Engine | None = None  # None until the index is open
        self.queue = ChangeQueue()
        self._phase = _Phase()
        self._watch = watch
        self._watcher: VaultWatcher | None = None
        self._ready = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"index {root.name}", daemon=True)
        # Embedding has its own thread: it may take minutes, and indexing never waits for it.
        self._embedder = threading.Thread(
            target=self._embed, name=f"vectors {root.name}", daemon=True
        )
        self._wake_embedder = threading.Event()
        # What `settle` and `vectors_settled` wait for, changed by the writer and embedding threads.
        self._settles_taken = 0
        self._settles_done = 0
        self.vectors_at: VectorsAt | None = None
        self._changes = _Changes()

    # -- what the server calls -------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._wake_embedder.set()
        self.queue.close()
        if self._watcher is not None:
            self._watcher.stop()
        self._thread.join(timeout=10)
        if self._embedder.is_alive():
            self._embedder.join(timeout=10)  # at most one batch of chunks in flight
        if self._thread.is_alive() or self._embedder.is_alive():
            # Closing the index under a thread still writing it could tear the manifest; what
            # it did since the last save is journaled and read again on the next start.
            log.warning("%s: a thread did not stop in time; the index is left open", self.root)
        elif self.engine is not None:
            self.engine.close()
        self._set(state="stopped")
        self._changes.tell()

    def _set(self, **changes: str | int) -> None:
        self._phase = replace(self._phase, **changes)  # type: ignore[arg-type]

    @property
    def state(self) -> str:
        return self._phase.state

    def wait_ready(self, timeout: float | None = None) -> bool:
        return self._ready.wait(timeout)

    def use_settings(self, settings: Settings) -> None:
        """Settings that take effect with the next request (fusion weights, limits)."""
        self.settings = settings
        if self.engine is not None:
            self.engine.use_settings(settings)

    def ignores(self, path: str) -> bool:
        """A path the vault never indexes, as its scan and watcher skip it: inside a dot-folder
        (`.obsidian/`, `.trash/`) or under an excluded name. Editors report those too."""
        return VaultRules.of(self.settings).ignored(path)

    def buffer_changed(self, path: str, text: str) -> None:
        if not self.ignores(path):
            self.queue.put(path, BufferText(text), BUFFER_QUIET)

    def buffer_closed(self, path: str) -> None:
        if not self.ignores(path):
            self.queue.put(path, BufferClosed())

    def disk_changed(self, paths: set[str]) -> None:
        for path in paths:
            if not self.ignores(path):
                self.queue.put(path, DiskChanged(), DISK_QUIET)

    def rescan(self) -> None:
        self.queue.put(RESCAN, Rescan(), DISK_QUIET)

    def settle(self, timeout: float) -> bool:
        """Wait until the index holds what is on disk now: until a rescan that the writer took
        after this call has been applied. False if that took longer than `timeout` or the vault
        stopped. Any rescan taken after the call will do, since it reads the disk after it."""
        wanted = self._settles_taken + 1
        self.queue.put(SETTLE, Rescan())
        return self._wait(lambda: self._settles_done >= wanted, timeout)

    def vectors_settled(self, limit: int, timeout: float) -> bool:
        """Wait until the embedding thread has planned for the current revision and either has
        nothing left to embed, has more than `limit` chunks to go (the CLI would not wait for
        those either) or cannot run; False on timeout (or with no embedding thread)."""
        engine = self.engine
        if engine is None or not engine.semantic:
            return False
        revision = engine.revision

        def settled() -> bool:
            at = self.vectors_at
            if at is None or at.revision < revision:
                return False
            step = at.step
            return step.done or step.blocked or step.state == "off" or step.pending > limit

        return self._wait(settled, timeout)

    def _wait(self, check: Callable[[], bool], timeout: float) -> bool:
        """Whether `check` holds, waiting for it (but not past `timeout`, nor once stopped)."""
        self._changes.wait(lambda: check() or self._stopping.is_set(), timeout)
        return check()

    def incomplete(self) -> str:
        """Why answers may miss notes, in plain words, until the first indexing is done; ""
        after (a later rescan only catches up with what the watcher missed)."""
        if self._ready.is_set():
            return ""
        phase = self._phase
        done, total = phase.done, phase.total
        now = f"indexing {notes_done(done, total)}" if total else "opening"
        return f"{self.root.name} is still {now}; answers may be incomplete until it is ready"

    def status(self) -> VaultStatus:
        engine = self.engine
        phase = self._phase  # one read: state, message and progress of the same moment
        notes = chunks = revision = 0
        if engine is not None:
            notes, chunks, revision = engine.counts()
        return VaultStatus(
            str(self.root),
            phase.state,
            notes,
            chunks,
            revision,
            phase.done,
            phase.total,
            len(self.queue),
            phase.message,
            engine.vector_status() if engine is not None else None,
            engine is not None and engine.read_only,
        )

    # -- the writer thread -----------------------------------------------------------------------

    def _run(self) -> None:
        if not self._open():
            self._ready.set()
            return
        assert self.engine is not None
        if self._watch:
            self._watcher = VaultWatcher(
                self.root,
                self.settings,
                self.disk_changed,
                avoid=(self.engine.cache_dir,),
                on_rescan=self.rescan,
            )
            self._watcher.start()
        self._full_refresh()
        self._ready.set()
        if self.engine.semantic:
            self._embedder.start()
        while not self._stopping.is_set():
            # A read-only vault looks now and then whether the writing process has gone.
            changes = self.queue.take(TAKEOVER_POLL if self.engine.read_only else None)
            if self._stopping.is_set():
                return
            if self.engine.read_only and self.engine.writer_available():
                self._take_over()
            if changes:
                self._apply(changes)
                self._wake_embedder.set()

    def _open(self) -> bool:
        """Open the index (waiting while another process builds a first one); False if it failed."""

        def wait(seconds: float) -> bool:
            self._set(message="waiting for another memlsp process to build this vault's index")
            return not self._stopping.wait(seconds)

        try:
            # Requests must not load models or connect: the embedding thread does that.
            engine = Engine.open(self.root, self.settings, wait=wait, connect_on_search=False)
        except Exception as error:
            if not self._stopping.is_set():
                log.exception("cannot open the index of %s", self.root)
                self._set(state="failed", message=f"cannot open the index: {error}")
            return False
        self._set(message=_read_only_message if engine.read_only else "")
        self.engine = engine
        return True

    def _take_over(self) -> None:
        """The process that wrote the index has gone: this one writes it from now on."""
        old = self.engine
        assert old is not None
        buffers = old.open_buffers()
        old.close()
        if not self._open():
            return
        assert self.engine is not None
        if self.engine.read_only:
            return  # another process was quicker
        log.info("%s: the writing process has gone; indexing here from now on", self.root)
        for path, text in buffers.items():
            self.engine.apply_text(path, text)
        self._full_refresh()
        if self.engine.semantic and not self._embedder.is_alive():
            self._embedder.start()
        self._wake_embedder.set()

    def _full_refresh(self) -> None:
        assert self.engine is not None
        self._set(state="indexing")
        self.listener.indexing_started(self, 0)

        def report(done: int, total: int) -> None:
            self._set(done=done, total=total)
            self.listener.indexing_progress(self, done, total)

        started = time.perf_counter()
        try:
            summary = self.engine.refresh(report, progressive=True, cancel=self._stopping)
        except Exception as error:
            log.exception("indexing %s failed", self.root)
            self._set(state="failed", message=f"indexing failed: {error}")
            return
        self._set(state="ready")
        log.info(
            "%s: %d notes, %d chunks in %.2f s (%d added, %d modified, %d deleted)",
            self.root,
            summary.notes,
            summary.chunks,
            time.perf_counter() - started,
            summary.added,
            summary.modified,
            summary.deleted,
        )
        for item in summary.skipped + summary.problems:
            log.info("%s: %s", printable(item.path), printable(item.reason))
        self.listener.indexing_done(self, summary)
        self._warm_up_segmenter()

    def _embed(self) -> None:
        """Give chunks vectors, newest notes first, until stopped; connect (again) when the vector
        side is unavailable, every `vector_retry_seconds`."""
        _lower_priority()
        busy = False
        reported = 0.0
        said = ("", "")  # the last unavailable state reported, so each is told once
        backfill: Backfill | None = None
        while not self._stopping.is_set():
            engine = self.engine  # a new one after taking over from another process
            assert engine is not None
            try:
                if not engine.connect_vectors():
                    status = engine.vector_status()
                    blocked = Step(0, status.pending, status.state, status.problem)
                    self.vectors_at = VectorsAt(engine.revision, blocked)
                    self._changes.tell()
                    if (status.state, status.problem) != said:
                        self.listener.vectors_progress(self, status, True)
                        said = (status.state, status.problem)
                    busy = False
                    self._wake_embedder.wait(self.settings.vector_retry_seconds)
                    self._wake_embedder.clear()
                    continue
                if backfill is None or backfill.engine is not engine:
                    backfill = Backfill(engine, pause=self.activity.wait_for_quiet)
                revision = engine.revision  # a step plans for this revision or a later one
                step = backfill.step()
                self.vectors_at = VectorsAt(revision, step)
                self._changes.tell()
                done = step.embedded
            except Exception:  # never let the thread die: keyword search goes on regardless
                log.exception("embedding %s failed", self.root)
                done = 0
            if done:
                busy = True
                if time.monotonic() - reported > VECTOR_REPORT:
                    self.listener.vectors_progress(self, engine.vector_status(), False)
                    reported = time.monotonic()
                continue
            if busy or not reported:
                self.listener.vectors_progress(self, engine.vector_status(), True)
                busy, reported, said = False, time.monotonic(), ("", "")
            self._wake_embedder.wait(VECTOR_IDLE)
            self._wake_embedder.clear()

    def _warm_up_segmenter(self) -> None:
        """Load jieba's dictionary now (0.6-0.9 s, ~75 MB) if the vault has Chinese, rather than
        on the first Chinese keystroke or query."""
        assert self.engine is not None
        notes = self.engine.view().graph.notes.values()
        if any(has_cjk(note.title) or has_cjk(note.description) for note in notes):
            warm_up()

    def _apply(self, changes: dict[str, Change]) -> None:
        """Apply a batch; a change that fails is logged and the others still apply. Someone
        waits to see an edit in their answers: embedding steps aside meanwhile."""
        settling = SETTLE in changes
        if settling:
            self._settles_taken += 1  # before the disk is read: see `settle`
        try:
            with self.activity.busy():
                self._apply_changes(changes)
        finally:
            if settling:
                self._settles_done = self._settles_taken
                self._changes.tell()

    def _apply_changes(self, changes: dict[str, Change]) -> None:
        engine = self.engine
        assert engine is not None
        disk: list[str] = []
        for path, change in changes.items():
            try:
                if isinstance(change, BufferText):
                    engine.apply_text(path, change.text)
                    if change.disk_changed:
                        disk.append(path)
                elif isinstance(change, BufferClosed):
                    engine.release_text(path)
                elif isinstance(change, DiskChanged):
                    disk.append(path)
            except Exception:
                log.exception("could not apply the change to %s", path)
        try:
            if disk:
                engine.refresh_paths(disk)
            if RESCAN in changes or any((self.root / path).is_dir() for path in disk):
                self._full_refresh()
            elif SETTLE in changes:
                engine.refresh()
        except Exception:
            log.exception("could not apply the changes to %d files on disk", len(disk))
        self.listener.changed(self)


_read_only_message = "read-only: another memlsp process is indexing this vault"


def _lower_priority() -> None:
    """Let the calling thread (and the model threads it starts) yield the CPU to requests: on
    Linux a thread has its own nice value. Elsewhere it runs at normal priority."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
