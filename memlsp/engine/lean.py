"""A question answered from the index as it was saved, reading only the rows it needs.

A command with no server to ask (`memlsp search`, `links`, `read`, `recent`) would open the whole
index: load the manifest (every note and link of the vault; seconds and hundreds of MB at 50,000
notes) and compare it with the disk. When the disk holds exactly what the index was saved with
(same files, same times and sizes) and the saved note table vouches for that manifest
(index/note_table.py), it answers instead from a snapshot whose graph and records read the note
table row by row: the same answer, as nothing is to be indexed first. Anything the rows cannot
answer (a filter over every note's properties, the link graph's counts) loads the manifest after
all, on first use, so an answer never differs; only its cost does.
"""

from __future__ import annotations

import logging
import pickle
import sqlite3
from collections.abc import Callable, Collection, ItemsView, Iterator, KeysView, Mapping, ValuesView
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from memlsp.engine.engine import PARSER_VERSION
from memlsp.engine.snapshot import EMPTY, Snapshot, Vectors
from memlsp.index.journal import ChangeJournal
from memlsp.index.keyword.schema import FORMAT_VERSION as KEYWORD_FORMAT
from memlsp.index.keyword.writer import KeywordIndex
from memlsp.index.manifest import FileRecord, Manifest, Refused
from memlsp.index.note_table import FILE_NAME, FileRow, NoteTable, files_digest, stamp_of
from memlsp.index.recall import RecallStore
from memlsp.index.semantic import VectorSide
from memlsp.index.store import MANIFEST
from memlsp.index.writer_lock import WriterLock
from memlsp.model import Note, ResolvedLink
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings, index_fingerprint
from memlsp.sync.scan import scan_vault
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.names import NameTable, name_key

log = logging.getLogger(__name__)


class Unreadable(Exception):
    """The note table could not be read after all (changed or damaged meanwhile): the question
    is asked again of the whole index."""


T = TypeVar("T")


class _Rows:
    """The note table's rows, each read once; and the whole graph, loaded only when asked."""

    def __init__(self, table: NoteTable, manifest: Path, fingerprint: str) -> None:
        self.table = table
        self._manifest = manifest
        self._fingerprint = fingerprint
        self._rows: dict[str, FileRow | None] = {}
        self._counts: dict[str, int] = {}
        self._graph: LinkGraph | None = None

    def read(self, look: Callable[..., T], *args: Any) -> T:
        try:
            return look(*args)
        except (sqlite3.Error, Refused, pickle.UnpicklingError, TypeError) as error:
            raise Unreadable(f"{self.table.path}: {error}") from error

    def row(self, path: str) -> FileRow | None:
        if path not in self._rows:
            self._rows[path] = self.read(self.table.row, path)
        return self._rows[path]

    def inlink_count(self, path: str) -> int:
        if path not in self._counts:
            self._counts.update(self.read(self.table.inlink_counts, [path]))
        return self._counts.get(path, 0)

    def inlink_sources(self, path: str) -> list[str]:
        sources = self.read(self.table.inlink_sources, path)
        # A caller orders them by their own inlinks (link expansion): one look for them all.
        wanted = [s for s in sources if s not in self._counts]
        self._counts.update(self.read(self.table.inlink_counts, wanted))
        return sources

    def named(self, kind: str, key: str) -> frozenset[str]:
        return frozenset(self.read(self.table.named, kind, key))

    def graph(self) -> LinkGraph:
        if self._graph is None:
            log.info("loading the whole index to answer")
            manifest, reason = Manifest.load(self._manifest, self._fingerprint)
            if reason is not None or not isinstance(manifest.graph, LinkGraph):
                raise Unreadable(f"the index changed while answering ({reason})")
            self._graph = manifest.graph
        return self._graph


class LeanNames(NameTable):
    """The name tables of link resolution, each lookup a look at the note table."""

    def __init__(self, rows: _Rows, notes: frozenset[str], files: frozenset[str]) -> None:
        super().__init__()
        self._lean = rows
        self.notes, self.files = set(notes), set(files)

    def by_folded_path(self, path: str) -> frozenset[str]:
        return self._lean.named("folded", self.lookup_path(path))

    def by_name(self, name: str) -> frozenset[str]:
        return self._lean.named("name", name_key(name))

    def by_alias(self, alias: str) -> frozenset[str]:
        return self._lean.named("alias", name_key(alias))


V = TypeVar("V")


class _ByPath(Mapping[str, V]):
    """The value of each of `paths` (in their order), read from its row when asked for."""

    def __init__(self, rows: _Rows, paths: Collection[str]) -> None:
        self._lean = rows
        self._order = paths
        self._paths = paths if isinstance(paths, KeysView) else frozenset(paths)

    def _value(self, row: FileRow) -> V | None:
        raise NotImplementedError

    def __getitem__(self, path: str) -> V:
        row = self._lean.row(path) if path in self._paths else None
        value = None if row is None else self._value(row)
        if value is None:
            raise KeyError(path)
        return value

    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)


class LeanNotes(_ByPath[Note]):
    def _value(self, row: FileRow) -> Note | None:
        return row.record.note

    def items(self) -> ItemsView[str, Note]:
        return self._lean.graph().notes.items()  # every note: read them all at once

    def values(self) -> ValuesView[Note]:
        return self._lean.graph().notes.values()


class LeanGraph:
    """The reads of a frozen `LinkGraph` that a question asks of a few notes, from their rows;
    any other read is the whole graph's."""

    frozen = True

    def __init__(self, rows: _Rows, notes: list[str], files: frozenset[str]) -> None:
        self._lean = rows
        self.notes = LeanNotes(rows, notes)
        self.table = LeanNames(rows, frozenset(notes), files)

    def outlinks(self, path: str) -> tuple[ResolvedLink, ...]:
        row = self._lean.row(path)
        return () if row is None else row.outlinks

    def inlink_sources(self, path: str) -> list[str]:
        return self._lean.inlink_sources(path)

    def inlink_count(self, path: str) -> int:
        return self._lean.inlink_count(path)

    def inlinks_by_source(self, path: str) -> Mapping[str, tuple[ResolvedLink, ...]]:
        return {
            source: tuple(item for item in self.outlinks(source) if path in item.resolution.targets)
            for source in self.inlink_sources(path)
        }

    def inlinks(self, path: str) -> list[ResolvedLink]:
        by_source = self.inlinks_by_source(path)
        return [item for source in sorted(by_source) for item in by_source[source]]

    def paths_named(self, key: str) -> list[str]:
        return self._lean.read(self._lean.table.titled, key)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lean.graph(), name)


class LeanRecords(_ByPath[FileRecord]):
    def _value(self, row: FileRow) -> FileRecord:
        return row.record


@dataclass
class LeanVault:
    """A snapshot read row by row, and what to let go of once answered."""

    snapshot: Snapshot
    lock: WriterLock
    table: NoteTable
    keyword: KeywordIndex

    def close(self) -> None:
        self.keyword.close()
        self.table.close()
        self.lock.release()


def open_unchanged(root: Path, settings: Settings) -> LeanVault | None:
    """The vault's index read row by row, when the disk holds exactly what it was saved with;
    None when it must be opened whole (something to index first, another process writing it,
    no note table matching its manifest)."""
    told: list[str] = []
    cache_dir = cache_dir_for(root, settings, tell=told.append)
    if told:
        return None  # said by the whole index's opening, as always
    manifest = cache_dir / MANIFEST
    fingerprint = index_fingerprint(settings, PARSER_VERSION, KEYWORD_FORMAT)
    if not manifest.is_file() or not (cache_dir / FILE_NAME).is_file():
        return None
    lock = WriterLock(cache_dir / "writer.lock")
    if not lock.acquire():
        return None  # another process writes it: opened whole, read-only, as it says
    table = NoteTable(cache_dir / FILE_NAME)
    try:
        opened = _unchanged(root, settings, cache_dir, table, manifest, fingerprint, lock)
    except Exception:
        log.info("the note table could not answer; opening the whole index", exc_info=True)
        opened = None
    if opened is None:
        table.close()
        lock.release()
    return opened


def _unchanged(
    root: Path,
    settings: Settings,
    cache_dir: Path,
    table: NoteTable,
    manifest: Path,
    fingerprint: str,
    lock: WriterLock,
) -> LeanVault | None:
    if ChangeJournal(cache_dir / "unsaved.jsonl").read() != set():
        return None  # the index holds changes the manifest does not describe
    scan = scan_vault(root, settings, avoid=(cache_dir,))
    stats = [(path, stat.mtime_ns, stat.size) for path, stat in scan.indexable.items()]
    if not table.matches(stamp_of(manifest), fingerprint, files_digest(stats, scan.files)):
        return None  # what is on disk is not what was indexed: it is indexed first
    files = frozenset(scan.files)
    keyword = KeywordIndex(cache_dir / "keyword", writable=False)
    rows = _Rows(table, manifest, fingerprint)
    graph = cast(LinkGraph, LeanGraph(rows, table.note_paths(), files))
    side = VectorSide(settings, root, cache_dir)
    snapshot = Snapshot(
        0,
        graph,
        keyword.reader(),
        LeanRecords(rows, scan.indexable.keys()),
        EMPTY,
        root,
        settings,
        vectors=Vectors(side.status(), side, True),
        recall=RecallStore(cache_dir),
        saved_times={path: mtime for path, mtime, _ in stats},
    )
    return LeanVault(snapshot, lock, table, keyword)
