"""A vault's index on disk as one process opens it: as its writer, or read-only beside another.

The keyword index, the manifest that says what each file's indexed state is, the journal of paths
changed since the manifest was saved, and the cross-process writer lock live in the vault's cache
folder. Opening decides who writes, and undoes what a process that died left half-saved.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from memlsp.index.journal import ChangeJournal
from memlsp.index.keyword.writer import IndexUnavailable, KeywordIndex
from memlsp.index.manifest import Manifest
from memlsp.index.writer_lock import WriterLock

log = logging.getLogger(__name__)

Wait = Callable[[float], bool]  # wait this many seconds; False: stop waiting
Tell = Callable[[str], None]  # something a user should know about this index
MANIFEST = "manifest.pickle"
READ_ONLY = (
    "another memlsp process is updating this vault's index; "
    "answering read-only from the index as it is"
)


@dataclass(slots=True)
class IndexStore:
    keyword: KeywordIndex
    manifest: Manifest
    journal: ChangeJournal
    writer_lock: WriterLock
    cache_dir: Path

    @property
    def manifest_path(self) -> Path:
        return self.cache_dir / MANIFEST

    @property
    def read_only(self) -> bool:
        return self.keyword.read_only

    def writer_available(self) -> bool:
        """Whether the process that writes the index has gone, so this one could write it."""
        if not self.read_only:
            return False
        probe = WriterLock(self.writer_lock.path)
        free = probe.acquire()
        probe.release()
        return free

    def close(self) -> None:
        self.keyword.close()
        self.writer_lock.release()


def last_written(cache_dir: Path) -> float | None:
    """When the index in `cache_dir` last changed (seconds since the epoch): its manifest saved
    or its keyword index committed, whichever came last; None when it has neither."""
    times = []
    for path in (cache_dir / MANIFEST, cache_dir / "keyword" / "meta.json"):
        with contextlib.suppress(OSError):
            times.append(path.stat().st_mtime)
    return max(times, default=None)


def open_store(
    cache_dir: Path, fingerprint: str, tell: Tell, wait: Wait, *, read_only: bool = False
) -> IndexStore:
    """Open the index as its writer, or read-only while another process writes it. While that
    process is still building a first index there is nothing to read: `wait` is called between
    looks, and opening gives up with `IndexUnavailable` when it returns False.

    `read_only`: never become the writer (a status looks at the index as it is and changes
    nothing); `IndexUnavailable` at once when there is no index to read."""
    opener = _Opener(cache_dir, fingerprint, tell)
    if read_only:
        opened = opener.read_only()
        if opened is None:
            raise IndexUnavailable(f"no index in {cache_dir}: run `memlsp index` first")
        return opener.store(*opened)
    said = False
    while True:
        if opener.acquire():
            return opener.store(*opener.writable())
        opened = opener.read_only()
        if opened is not None:
            tell(READ_ONLY)
            return opener.store(*opened)
        if not said:
            log.warning("another memlsp process is building this vault's index; waiting")
            said = True
        if not wait(0.2):
            raise IndexUnavailable("another memlsp process is building this vault's index")


class _Opener:
    def __init__(self, cache_dir: Path, fingerprint: str, tell: Tell) -> None:
        self.cache_dir = cache_dir
        self.fingerprint = fingerprint
        self.tell = tell
        self.manifest_path = cache_dir / MANIFEST
        self.writer_lock = WriterLock(cache_dir / "writer.lock")
        self.journal = ChangeJournal(cache_dir / "unsaved.jsonl")

    def store(self, keyword: KeywordIndex, manifest: Manifest) -> IndexStore:
        return IndexStore(keyword, manifest, self.journal, self.writer_lock, self.cache_dir)

    def acquire(self) -> bool:
        """Become the index's writer, if no other process is."""
        return self.writer_lock.acquire()

    def writable(self) -> tuple[KeywordIndex, Manifest]:
        keyword = KeywordIndex(self.cache_dir / "keyword")
        manifest, reason = Manifest.load(self.manifest_path, self.fingerprint)
        if keyword.read_only:  # a process that does not take our lock (an older memlsp)
            self.tell(READ_ONLY)
            return keyword, manifest
        if keyword.rebuilt_reason:
            manifest = Manifest(self.fingerprint)
            self.tell(f"keyword index {keyword.rebuilt_reason}; rebuilt from the vault")
            self.journal.clear()
        elif reason:
            self.tell(f"{reason}; re-indexed the vault")
            keyword.clear()
            self.journal.clear()
        else:
            manifest = self._recover(keyword, manifest)
        return keyword, manifest

    def read_only(self) -> tuple[KeywordIndex, Manifest] | None:
        """The index as the writer left it, once it has one; None while it is building it."""
        if not self.manifest_path.exists():
            return None
        try:
            keyword = KeywordIndex(self.cache_dir / "keyword", writable=False)
        except IndexUnavailable:
            return None
        manifest, reason = Manifest.load(self.manifest_path, self.fingerprint)
        if reason:
            # Written by a writer with other indexing settings (or an older format): waiting
            # would never end. The notes and links are read from the vault by the next refresh.
            self.tell(f"{reason}; notes and links read from the vault")
            manifest = Manifest(self.fingerprint)
        return keyword, manifest

    def _recover(self, keyword: KeywordIndex, manifest: Manifest) -> Manifest:
        """Undo what a process that died left in the index beyond its last manifest: each path
        it journaled is read again from the disk, or forgotten when the manifest never had it."""
        paths = self.journal.read()
        if paths is None:
            self.tell("the index cannot tell what changed before memlsp stopped; re-indexed")
            keyword.clear()
            self.journal.clear()
            return Manifest(self.fingerprint)
        if not paths:
            return manifest
        if not manifest.records:  # a first index that never finished: start it again
            keyword.clear()
            keyword.commit()
            return manifest
        for path in paths:
            record = manifest.records.get(path)
            if record is not None:
                # An impossible stat and no digest: the next refresh reads and indexes it again.
                manifest.records[path] = replace(record, mtime_ns=-1, size=-1, digest="")
            else:
                keyword.delete_note(path)
        keyword.commit()
        log.info("%d files changed after the index was last saved; checking them again", len(paths))
        return manifest
