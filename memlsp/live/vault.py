"""A vault kept current while an editor works on it: the engine plus its single writer thread
(its embedding thread is live/vectors.py).

Editor buffers, the file watcher and the client's file events all go through one `ChangeQueue`;
one thread takes from it and writes to the engine, so requests (which only read) never wait for
more than one note's update. Opening the index and the first refresh happen on that thread too,
so a client's `initialize` is answered at once.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from memlsp.engine.engine import Engine, EngineClosed
from memlsp.engine.snapshot import Snapshot
from memlsp.heap import release_memory
from memlsp.index.dictionary import bilingual_dictionary
from memlsp.index.semantic import VectorStatus
from memlsp.live.changes import Changes
from memlsp.live.status import EmbeddingPace, VaultStatus, notes_done
from memlsp.live.vectors import EmbeddingLoop, VectorsAt
from memlsp.model import IndexSummary, printable
from memlsp.parse.tokens import has_cjk, warm_up
from memlsp.queries.mentions import name_index
from memlsp.settings.files import models_dir
from memlsp.settings.table import Settings
from memlsp.sync.activity import Activity
from memlsp.sync.queue import (
    RESCAN,
    BufferClosed,
    BufferText,
    Caught,
    Change,
    ChangeQueue,
    DiskChanged,
    Rescan,
)
from memlsp.sync.watcher import VaultWatcher
from memlsp.vault.rules import VaultRules

log = logging.getLogger(__name__)

BUFFER_QUIET = 0.05  # seconds of no typing before a buffer is indexed
DISK_QUIET = 0.05  # the watcher already waits for quiet; this only merges client and watcher events
TAKEOVER_POLL = 2.0  # seconds between looks, by a read-only vault, for a writer that has gone
SETTLE = "\0settle"  # the key of a rescan asked for by `settle`: told to nobody as indexing
CAUGHT = "\0caught"  # the key of the mark `settle` waits for when the watcher vouches for the disk
RELEASE_AFTER = 1000  # files indexed by a refresh, after which freed memory is given back
WATCH_WAIT = 0.5  # seconds `settle` waits for the watcher to vouch, before it rescans instead


@dataclass(frozen=True, slots=True)
class _Phase:
    """Where the writer thread is, swapped whole so a reader never sees half of a change."""

    state: str = "opening"  # VaultStatus.state
    message: str = ""
    done: int = 0  # files indexed of `total` by the refresh under way
    total: int = 0


class Listener:
    """What a live vault tells its owner (the language server); every method may be left as is."""

    def indexing_started(self, vault: LiveVault) -> None: ...
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
        # Published once open (and again, whole, after taking over): never a closed engine.
        self._engine: Engine | None = None
        self.queue = ChangeQueue()
        self._phase = _Phase()
        self._watch = watch
        self._watcher: VaultWatcher | None = None
        self._ready = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"index {root.name}", daemon=True)
        self._embedding = EmbeddingLoop(
            root,
            lambda status, done: self.listener.vectors_progress(self, status, done),
            lambda: self._engine,
            self.activity,
            self._stopping,
            self._stepped,
        )
        # What `settle` and `vectors_settled` wait for, changed by the writer and embedding threads.
        self._settles_taken = 0
        self._settles_done = 0
        self._marks_done = 0  # the number of the last `Caught` mark applied
        self._vectors_at: VectorsAt | None = None
        self.pace = EmbeddingPace()  # how fast embedding goes now, for a status report
        self._changes = Changes()

    @property
    def engine(self) -> Engine | None:
        """The open engine; None until the index is open (or when it could not be)."""
        return self._engine

    def read(self) -> Snapshot | None:
        """What one request reads (engine.py `read`); None until the index is open and once the
        vault has stopped. A request may read while the vault stops on another thread."""
        engine = self._engine
        if engine is None:
            return None
        try:
            return engine.read()
        except EngineClosed:
            # Closed between the look and the read: `stop` and a takeover put the engine away
            # before they close it, so a second look finds none, or the one now in use.
            return self.read()

    # -- what the server calls -------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """May take seconds (the writer's batch, the embedding's); safe before `start`, and
        again. The language server calls it off its event loop."""
        self._stopping.set()
        self._embedding.wake()
        self.queue.close()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        # Only now: the writer thread starts the watcher, and may have done so after `stop` began.
        if self._watcher is not None:
            self._watcher.stop()
        embedding_ended = self._embedding.join(timeout=10)  # at most one batch in flight
        engine, self._engine = self._engine, None  # no request reads it from now on
        if self._thread.is_alive() or not embedding_ended:
            # Closing the index under a thread still writing it could tear the manifest; what
            # it did since the last save is journaled and read again on the next start.
            log.warning("%s: a thread did not stop in time; the index is left open", self.root)
        elif engine is not None:
            engine.close()
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
        """Settings that take effect with the next request (limits, weights, diagnostics)."""
        self.settings = settings
        if self._engine is not None:
            self._engine.use_settings(settings)

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
        """Wait until the index holds what is on disk now. False if that took longer than
        `timeout` or the vault stopped.

        Its cost must not grow with the vault: when the watcher vouches that every change made
        before this call has been reported, it only waits for those to be applied. Otherwise
        (no watcher, polling, a rescan owed) it waits for a rescan that the writer took after
        this call: any will do, since it reads the disk after it."""
        watcher = self._watcher
        if watcher is not None and watcher.caught_up(time.monotonic(), min(timeout, WATCH_WAIT)):
            mark = self.queue.put_mark(CAUGHT)  # one taken means every one put before it
            return self._wait(lambda: self._marks_done >= mark, timeout)
        wanted = self._settles_taken + 1
        self.queue.put(SETTLE, Rescan())
        return self._wait(lambda: self._settles_done >= wanted, timeout)

    def vectors_settled(self, limit: int, timeout: float) -> bool:
        """Wait until the embedding thread has planned for the current revision and either has
        nothing left to embed, has more than `limit` chunks to go (the CLI would not wait for
        those either) or cannot run; False on timeout (or with no embedding thread)."""
        engine = self._engine
        if engine is None or not engine.semantic:
            return False
        revision = engine.read().revision

        def settled() -> bool:
            at = self._vectors_at
            if at is None or at.revision < revision:
                return False
            step = at.step
            return step.done or step.blocked or step.state == "off" or step.pending > limit

        return self._wait(settled, timeout)

    def _stepped(self, at: VectorsAt) -> None:
        self._vectors_at = at
        finished = at.step.done or at.step.blocked
        self.pace = self.pace.after(at.step.embedded, finished, time.monotonic())
        self._changes.tell()

    def _wait(self, check: Callable[[], bool], timeout: float) -> bool:
        """Whether `check` holds, waiting for it (but not past `timeout`, nor once stopped)."""
        self._changes.wait(lambda: check() or self._stopping.is_set(), timeout)
        return check()

    def incomplete(self) -> str:
        """Why answers may miss notes, in plain words, until the first indexing is done; ""
        after (a later rescan only catches up with what the watcher missed)."""
        if self._stopping.is_set() and self._engine is None:
            return f"{self.root.name} is closing; answers may be incomplete until it is open again"
        if self._ready.is_set():
            return ""
        phase = self._phase
        done, total = phase.done, phase.total
        now = f"indexing {notes_done(done, total)}" if total else "opening"
        return f"{self.root.name} is still {now}; answers may be incomplete until it is ready"

    def status(self, snapshot: Snapshot | None = None) -> VaultStatus:
        """The vault's status, from `snapshot` if the caller already read one (else read now)."""
        phase = self._phase  # one read: state, message and progress of the same moment
        engine = self._engine
        if snapshot is None:
            snapshot = self.read()
        notes = chunks = revision = 0
        vectors = None
        if snapshot is not None:
            notes, chunks = snapshot.counts()
            revision = snapshot.revision
            vectors = snapshot.vectors.status
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
            vectors,
            engine is not None and engine.read_only,
        )

    # -- the writer thread -----------------------------------------------------------------------

    def _run(self) -> None:
        engine = self._open()
        if engine is None:
            self._ready.set()
            return
        self._engine = engine
        # Built on a thread of its own while the vault indexes (2-3 s, once per cache folder),
        # rather than by the first question in the other language, which every question after
        # it for those seconds would wait behind.
        bilingual_dictionary(models_dir(self.settings), wait=False)
        if self._watch and not self._stopping.is_set():
            self._watcher = VaultWatcher(
                self.root,
                self.settings,
                self.disk_changed,
                avoid=(engine.cache_dir,),
                on_rescan=self.rescan,
            )
            self._watcher.start()
        self._full_refresh(engine)
        self._ready.set()
        if engine.semantic:
            self._embedding.start()
        while not self._stopping.is_set():
            engine = self._engine
            if engine is None:
                return  # stopped meanwhile
            # A read-only vault looks now and then whether the writing process has gone.
            changes = self.queue.take(TAKEOVER_POLL if engine.read_only else None)
            if self._stopping.is_set():
                return
            if engine.read_only and engine.writer_available():
                engine = self._take_over(engine)
            if changes:
                self._apply(engine, changes)
                self._embedding.wake()

    def _open(self) -> Engine | None:
        """Open the index (waiting while another process builds a first one); None if it failed.
        The engine is not published here: the caller does, once it is ready to be read."""

        def wait(seconds: float) -> bool:
            self._set(message="waiting for another memlsp process to build this vault's index")
            return not self._stopping.wait(seconds)

        try:
            # Requests must not load models or connect: the embedding thread does that.
            engine = Engine.open(
                self.root,
                self.settings,
                wait=wait,
                connect_on_search=False,
                pause=self.activity.wait_for_quiet,
            )
        except Exception as error:
            if not self._stopping.is_set():
                log.exception("cannot open the index of %s", self.root)
                self._set(state="failed", message=f"cannot open the index: {error}")
            return None
        self._set(message=_read_only_message if engine.read_only else "")
        return engine

    def _take_over(self, old: Engine) -> Engine:
        """The process that wrote the index has gone: this one writes it from now on. Requests
        go on reading the old engine until the new one is open and holds the open buffers; only
        then is it published and the old one closed. Returns the engine now in use."""
        new = self._open()
        if new is None:
            self._set(state="ready", message=_read_only_message)
            return old  # still read-only; tried again at the next look
        if new.read_only:
            new.close()  # another process was quicker
            return old
        log.info("%s: the writing process has gone; indexing here from now on", self.root)
        for path, text in old.read().buffers.items():
            new.apply_text(path, text)
        self._engine = new
        old.close()
        self._full_refresh(new)
        if new.semantic:
            self._embedding.start()
        self._embedding.wake()
        return new

    def _full_refresh(self, engine: Engine) -> None:
        """Scan the whole vault. Only the first scan is `indexing`: once `memlsp/indexed` said
        the vault is ready, a later one (the watcher catching up, `memlsp/reindex`, a folder
        moved in) leaves it ready, since answers already come from the whole index; its
        progress still shows, as the files it finds to index are reported."""
        first = not self._ready.is_set()
        if first:
            self._set(state="indexing", done=0, total=0)
        self.listener.indexing_started(self)

        def report(done: int, total: int) -> None:
            self._set(done=done, total=total)
            self.listener.indexing_progress(self, done, total)

        started = time.perf_counter()
        try:
            summary = engine.refresh(report, progressive=True, cancel=self._stopping)
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
        if first:
            # Before the vault is said to be ready: once it is, no question or keystroke waits
            # for what these load. (A later rescan leaves a changed name's index to the first
            # question that needs it, off the writer's thread.)
            self._warm_up(engine)
        if first or summary.added + summary.modified + summary.deleted > RELEASE_AFTER:
            # What opening and indexing freed stays with the process unless given back; what it
            # keeps is never walked again by the collector (a full collection over every note of
            # a large vault stalls every thread for a second).
            gc.collect()
            gc.freeze()
            release_memory()
        self.listener.indexing_done(self, summary)

    def _warm_up(self, engine: Engine) -> None:
        """Load jieba's dictionary (0.6-0.9 s, ~75 MB) if the vault has Chinese, and the index
        of the vault's names that unlinked mentions are found by (2 s at 50,000 notes, kept
        while no name changes), rather than on the first Chinese keystroke or query, or the
        first note opened."""
        snapshot = engine.read()
        notes = snapshot.graph.notes.values()
        if any(has_cjk(note.title) or has_cjk(note.description) for note in notes):
            warm_up()
        if snapshot.settings.unlinked_mentions != "off":
            name_index(snapshot.graph, snapshot.settings.mention_min_length)

    def _apply(self, engine: Engine, changes: dict[str, Change]) -> None:
        """Apply a batch; a change that fails is logged and the others still apply. Someone
        waits to see an edit in their answers: embedding steps aside meanwhile."""
        settling = SETTLE in changes
        if settling:
            self._settles_taken += 1  # before the disk is read: see `settle`
        caught = changes.pop(CAUGHT, None)
        try:
            if changes:
                with self.activity.busy():
                    self._apply_changes(engine, changes)
        finally:
            if settling:
                self._settles_done = self._settles_taken
            if isinstance(caught, Caught):
                self._marks_done = max(self._marks_done, caught.number)
            if settling or caught is not None:
                self._changes.tell()

    def _apply_changes(self, engine: Engine, changes: dict[str, Change]) -> None:
        texts = {p: c.text for p, c in changes.items() if isinstance(c, BufferText)}
        disk = [
            path
            for path, change in changes.items()
            if isinstance(change, DiskChanged)
            or (isinstance(change, BufferText) and change.disk_changed)
        ]
        if texts:
            self._apply_texts(engine, texts)
        for path, change in changes.items():
            if isinstance(change, BufferClosed):
                try:
                    engine.release_text(path)
                except Exception:
                    log.exception("could not apply the change to %s", path)
        try:
            if disk:
                engine.refresh_paths(disk)
            if RESCAN in changes or any((self.root / path).is_dir() for path in disk):
                self._full_refresh(engine)
            elif SETTLE in changes:
                engine.refresh()
        except Exception:
            log.exception("could not apply the changes to %d files on disk", len(disk))
        self.listener.changed(self)

    def _apply_texts(self, engine: Engine, texts: dict[str, str]) -> None:
        """The buffers in one revision; one by one if that fails, so that the others apply."""
        try:
            engine.apply_texts(texts)
            return
        except Exception:
            if len(texts) == 1:
                log.exception("could not apply the change to %s", next(iter(texts)))
                return
        for path, text in texts.items():
            try:
                engine.apply_text(path, text)
            except Exception:
                log.exception("could not apply the change to %s", path)


_read_only_message = "read-only: another memlsp process is indexing this vault"
