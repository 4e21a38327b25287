"""What the index knows about each file, kept row by row beside the manifest.

The manifest is one pickle of every note and link: loading it costs a process seconds and
hundreds of MB at 50,000 notes. A process that only answers one question (the command line with
no server) reads here instead the rows it needs: each file's stat, a note's parsed form and
resolved links, the notes linking to it, and the name tables links resolve by.

The table is written by the index's writer each time it saves the manifest, only the rows that
changed since, and carries the manifest file's stat as it was saved: rows that do not match the
manifest on disk (a writer that died between the two) are not read. Parsed notes are pickles,
signed and loaded as the manifest is (index/manifest.py): nothing here runs code a file names.
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memlsp.index.manifest import FileRecord, load_signed, manifest_key, signed
from memlsp.model import Note, ResolvedLink
from memlsp.text import folded

FILE_NAME = "notes.sqlite3"
FORMAT = "1"

_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, digest TEXT, chunk_ids TEXT,
    problem TEXT, is_note INTEGER, parsed BLOB, title_key TEXT, stem_key TEXT);
CREATE TABLE IF NOT EXISTS links (target TEXT, source TEXT);
CREATE TABLE IF NOT EXISTS names (kind TEXT, key TEXT, path TEXT);
"""
# Made after the rows when every row is written, which is seconds faster at 50,000 notes.
_INDEXES = """
CREATE INDEX IF NOT EXISTS files_by_title ON files (title_key);
CREATE INDEX IF NOT EXISTS files_by_stem ON files (stem_key);
CREATE INDEX IF NOT EXISTS links_by_target ON links (target);
CREATE INDEX IF NOT EXISTS names_by_key ON names (kind, key);
"""
_EMPTIED = "DROP TABLE files; DROP TABLE links; DROP TABLE names; DELETE FROM meta;"


@dataclass(frozen=True, slots=True)
class FileRow:
    """One file's row: its record (the note in it) and the note's resolved links."""

    record: FileRecord
    outlinks: tuple[ResolvedLink, ...]


@dataclass(frozen=True, slots=True)
class Changes:
    """What a save writes: every row given (all of them when `everything`), the rows gone, the
    notes linking to each target given, and the name tables when `names` is not None."""

    stamp: str  # the manifest file's stat once saved
    fingerprint: str
    files: str  # `files_digest` of every indexed file and attachment, as saved
    everything: bool
    rows: Sequence[FileRow]
    gone: Iterable[str]
    links: Mapping[str, Iterable[str]]  # target -> every source linking to it now
    names: Iterable[tuple[str, str, str]] | None  # (kind, key, path)


def files_digest(stats: Iterable[tuple[str, int, int]], attachments: Iterable[str]) -> str:
    """One digest of every indexed file's (path, mtime_ns, size) and every attachment's path:
    equal digests, the same files as they were, without reading one row."""
    digest = hashlib.sha256()
    for path, mtime, size in sorted(stats):
        digest.update(f"{path}\0{mtime}\0{size}\n".encode(errors="surrogateescape"))
    digest.update(b"\0attachments\n")
    for path in sorted(attachments):
        digest.update(f"{path}\n".encode(errors="surrogateescape"))
    return digest.hexdigest()


def stamp_of(path: Path) -> str:
    """A file's stat, as the table remembers the manifest it matches."""
    found = path.stat()
    return f"{found.st_mtime_ns}:{found.st_size}"


class NoteTable:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = None
        self._key: bytes | None = None

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = sqlite3.connect(self.path, check_same_thread=False)
            # A reader (a command with no server) reads while the writer saves.
            self._connection.execute("PRAGMA journal_mode = WAL")
            self._connection.execute("PRAGMA synchronous = NORMAL")
            self._connection.executescript(_TABLES + _INDEXES)
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    # -- writing (the index's writer, after it saved the manifest) ----------------------------

    def save(self, changes: Changes, pause: Callable[[], object] | None = None) -> None:
        """Write `changes`; `pause` is called between slices of rows (writing every row of a
        large vault takes seconds, which a server's requests must not wait behind)."""
        key = manifest_key()
        db = self._db()
        if changes.everything:
            db.executescript(_EMPTIED + _TABLES)
        with db:
            db.executemany("DELETE FROM files WHERE path = ?", ((p,) for p in changes.gone))
            db.executemany(
                "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) "
                "DO UPDATE SET mtime_ns = excluded.mtime_ns, size = excluded.size, "
                "digest = excluded.digest, chunk_ids = excluded.chunk_ids, "
                "problem = excluded.problem, is_note = excluded.is_note, "
                "parsed = excluded.parsed, "
                "title_key = excluded.title_key, stem_key = excluded.stem_key",
                (_file_values(row, key) for row in _paced(changes.rows, pause)),
            )
            if not changes.everything:
                db.executemany("DELETE FROM links WHERE target = ?", ((t,) for t in changes.links))
            db.executemany(
                "INSERT INTO links VALUES (?, ?)",
                ((target, s) for target, sources in changes.links.items() for s in sources),
            )
            if changes.names is not None:
                db.execute("DELETE FROM names")
                db.executemany("INSERT INTO names VALUES (?, ?, ?)", changes.names)
            if changes.everything:
                db.executescript(_INDEXES)
            meta = {
                "format": FORMAT,
                "stamp": changes.stamp,
                "fingerprint": changes.fingerprint,
                "files": changes.files,
            }
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())

    def forget(self) -> None:
        """Vouch for nothing until the next save of everything (the manifest changed without
        this table, or the save failed)."""
        with contextlib.suppress(sqlite3.Error, OSError):
            db = self._db()
            with db:
                db.execute("DELETE FROM meta")

    # -- reading (a process answering from the index as it was saved) ----------------------

    def matches(self, stamp: str, fingerprint: str, files: str | None = None) -> bool:
        """Whether the rows are those of the manifest whose stat is `stamp`, made with these
        settings (and, given `files`, of exactly these files: `files_digest`)."""
        try:
            found = dict(self._db().execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.Error:
            return False
        if files is not None and found.get("files") != files:
            return False
        found.pop("files", None)
        return found == {"format": FORMAT, "stamp": stamp, "fingerprint": fingerprint}

    def note_paths(self) -> list[str]:
        """Every note, in the order the writer's graph holds them."""
        rows = self._db().execute("SELECT path FROM files WHERE is_note ORDER BY rowid")
        return [path for (path,) in rows]

    def row(self, path: str) -> FileRow | None:
        found = (
            self._db()
            .execute(
                "SELECT path, mtime_ns, size, digest, chunk_ids, problem, parsed "
                "FROM files WHERE path = ?",
                (path,),
            )
            .fetchone()
        )
        return None if found is None else self._file_row(found)

    def _file_row(self, values: tuple[Any, ...]) -> FileRow:
        path, mtime, size, digest, chunk_ids, problem, parsed = values
        note: Note | None = None
        outlinks: tuple[ResolvedLink, ...] = ()
        if parsed is not None:
            if self._key is None:
                self._key = manifest_key()
            note, outlinks = load_signed(parsed, self._key)
        ids = tuple(chunk_ids.split(" ")) if chunk_ids else ()
        return FileRow(FileRecord(path, mtime, size, digest, note, ids, problem), outlinks)

    def inlink_sources(self, target: str) -> list[str]:
        rows = self._db().execute(
            "SELECT source FROM links WHERE target = ? ORDER BY source", (target,)
        )
        return [source for (source,) in rows]

    def inlink_counts(self, paths: Iterable[str]) -> dict[str, int]:
        """How many notes link to each of `paths` (notes and attachments)."""
        counts: dict[str, int] = {}
        for group in _groups(list(paths)):
            marks = ",".join("?" * len(group))
            query = f"SELECT target, COUNT(*) FROM links WHERE target IN ({marks}) GROUP BY target"
            counts.update(dict.fromkeys(group, 0))
            counts.update(self._db().execute(query, group))
        return counts

    def named(self, kind: str, key: str) -> tuple[str, ...]:
        rows = self._db().execute("SELECT path FROM names WHERE kind = ? AND key = ?", (kind, key))
        return tuple(path for (path,) in rows)

    def titled(self, key: str) -> list[str]:
        """The notes whose title or file name has this name key (`folded`)."""
        rows = self._db().execute(
            "SELECT path FROM files WHERE is_note AND (stem_key = ? OR title_key = ?)", (key, key)
        )
        return [path for (path,) in rows]


def _file_values(row: FileRow, key: bytes) -> tuple[object, ...]:
    record, note = row.record, row.record.note
    parsed = title = stem = None
    if note is not None:
        parsed = signed(pickle.dumps((note, row.outlinks), pickle.HIGHEST_PROTOCOL), key)
        title, stem = folded(note.title), folded(note.stem)
    return (
        record.path,
        record.mtime_ns,
        record.size,
        record.digest,
        " ".join(record.chunk_ids),
        record.problem,
        record.note is not None,
        parsed,
        title,
        stem,
    )


def _paced(rows: Sequence[FileRow], pause: Callable[[], object] | None) -> Iterator[FileRow]:
    for number, row in enumerate(rows):
        if pause is not None and number % PACE == 0:
            pause()
        yield row


PACE = 200  # rows between pauses: about 20 ms of work


def _groups(items: list[str], size: int = 500) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
