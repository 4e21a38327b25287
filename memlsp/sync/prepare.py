"""Read, parse, chunk and segment files: the pure, CPU-bound half of indexing.

Nothing here touches the index or the engine's state, so a cold start can spread the work over a
pool of worker processes while the engine alone writes the results.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from memlsp.index.keyword.documents import ChunkDocument, NoteFields, prepare_documents
from memlsp.model import Note, printable
from memlsp.parse.files import parse_file
from memlsp.settings.table import Settings
from memlsp.sync.scan import FileStat, read_text, text_digest
from memlsp.vault.rules import VaultRules

log = logging.getLogger(__name__)

_POOL_THRESHOLD = 400  # below this many files, starting workers costs more than it saves


@dataclass(frozen=True, slots=True)
class PreparedFile:
    stat: FileStat
    digest: str
    note: Note | None  # None: the file is skipped, `problem` says why
    documents: tuple[ChunkDocument, ...]
    problem: str | None


def prepare_file(root: Path, settings: Settings, stat: FileStat) -> PreparedFile:
    content = read_text(root, stat, settings)
    if content.text is None:
        return PreparedFile(stat, content.digest, None, (), content.problem)
    return prepare_text(settings, stat, content.text, content.digest, content.problem)


def prepare_text(
    settings: Settings,
    stat: FileStat,
    text: str,
    digest: str | None = None,
    read_problem: str | None = None,
) -> PreparedFile:
    """Parse, chunk and segment a file's text (from the disk or an editor buffer)."""
    if digest is None:
        digest = text_digest(text.encode())
    try:
        records = VaultRules.of(settings).is_records(stat.path)
        parsed = parse_file(stat.path, text, settings.max_chunk_tokens, records=records)
        note = parsed.note
        fields = NoteFields(note.title, note.aliases, note.date)
        documents = tuple(prepare_documents(fields, list(parsed.chunks)))
    except Exception as error:
        log.exception("%s: could not be parsed", printable(stat.path))
        return PreparedFile(
            stat, digest, None, (), f"could not be parsed ({type(error).__name__}: {error})"
        )
    problems = "; ".join(p for p in (read_problem, *note.problems) if p) or None
    return PreparedFile(stat, digest, note, documents, problems)


def prepare_files(root: Path, settings: Settings, stats: list[FileStat]) -> Iterator[PreparedFile]:
    """Prepared files in the order given; many files are prepared by one worker per core."""
    work = partial(prepare_file, root, settings)
    workers = min(os.cpu_count() or 1, 8)
    if len(stats) < _POOL_THRESHOLD or workers < 2:
        yield from map(work, stats)
        return
    # fork lets workers inherit the loaded modules (and jieba's dictionary) for free, but is only
    # safe while this process runs one thread; the language server runs several, so it pays for
    # clean "forkserver" workers instead.
    method = "fork" if threading.active_count() == 1 else "forkserver"
    context = multiprocessing.get_context(method)
    with context.Pool(workers) as pool:
        yield from pool.imap(work, stats, chunksize=16)
