"""A question asked with no server, when the vault has not changed since it was indexed, is
answered from the note table row by row (engine/lean.py), exactly as from the whole index."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from memlsp.cli import main
from memlsp.commands.answers import answer_json
from memlsp.commands.calls import call_from_json
from memlsp.engine.lean import open_unchanged
from memlsp.index.note_table import FILE_NAME
from memlsp.settings.table import Settings
from tests.helpers.engine import open_engine, open_indexed
from tests.helpers.vault import FIXTURE_VAULT

CALLS: list[dict[str, Any]] = [
    {"command": "search", "arguments": {"query": "embeddings vector search", "record": False}},
    {"command": "search", "arguments": {"query": "知识管理", "record": False}},
    {"command": "search", "arguments": {"query": "dinner", "record": False, "limit": 3}},
    {"command": "search", "arguments": {"query": "notes", "paths": ["pkm/"], "record": False}},
    {"command": "links", "arguments": {"note": "pkm/zettelkasten.md"}},
    {"command": "links", "arguments": {"note": "embeddings"}},
    {"command": "links", "arguments": {"note": "index"}},
    {"command": "read", "arguments": {"note": "ml/embeddings.md"}},
    {"command": "read", "arguments": {"note": "知识管理"}},
    {"command": "recent", "arguments": {"days": 100000}},
    {"command": "mentions", "arguments": {"note": "pkm/zettelkasten.md"}},
    {"command": "graph", "arguments": {"note": "index", "depth": 2}},
]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURE_VAULT, tmp_path / "vault"))


def settings(cache: Path) -> Settings:
    return Settings(cache_dir=cache, embedder="none")


def indexed(vault: Path, cache: Path) -> None:
    """As `memlsp index` leaves it: indexed, saved, closed."""
    open_indexed(vault, cache).close()


def whole_answers(vault: Path, cache: Path) -> list[Mapping[str, Any]]:
    engine = open_engine(vault, cache)
    engine.refresh()
    try:
        return [answer_json(engine.read(), call_from_json(c), "v") for c in CALLS]
    finally:
        engine.close()


def lean_answers(vault: Path, cache: Path) -> list[Mapping[str, Any]] | None:
    lean = open_unchanged(vault, settings(cache))
    if lean is None:
        return None
    try:
        return [answer_json(lean.snapshot, call_from_json(c), "v") for c in CALLS]
    finally:
        lean.close()


def test_the_answers_are_those_of_the_whole_index(vault: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    indexed(vault, cache)
    lean = lean_answers(vault, cache)
    assert lean is not None
    assert lean == whole_answers(vault, cache)


def test_a_change_on_disk_opens_the_whole_index_and_the_table_follows(
    vault: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    indexed(vault, cache)
    note = vault / "pkm" / "zettelkasten.md"
    note.write_text(note.read_text() + "\nSee [[embeddings]] and [[index]].\n")
    (vault / "cooking" / "ideas.md").unlink()
    (vault / "new.md").write_text("# New\n\nLinks to [[pkm/zettelkasten]].\n")
    assert open_unchanged(vault, settings(cache)) is None  # something to index first
    whole = whole_answers(vault, cache)  # indexes the changes and saves what changed
    assert lean_answers(vault, cache) == whole


def test_a_table_that_does_not_vouch_for_the_manifest_is_not_read(
    vault: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    indexed(vault, cache)
    table = next(cache.rglob(FILE_NAME))
    with sqlite3.connect(table) as db:
        db.execute("UPDATE meta SET value = 'other' WHERE key = 'stamp'")
    db.close()
    assert open_unchanged(vault, settings(cache)) is None
    whole_answers(vault, cache)  # nothing changed on disk: the table alone is saved again
    assert lean_answers(vault, cache) is not None


def test_an_unsaved_change_in_the_journal_opens_the_whole_index(
    vault: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    engine = open_indexed(vault, cache)
    engine.apply_text("ml/embeddings.md", "# Embeddings\n\nonly in a buffer\n")
    engine.writer.store.keyword.close()  # a process that died: journaled, never saved
    engine.writer.store.writer_lock.release()
    assert open_unchanged(vault, settings(cache)) is None


def test_rows_that_fail_their_signature_are_never_loaded_and_the_whole_index_answers(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    indexed(vault, cache)
    ask = ["search", str(vault), "zettelkasten", "--json", "--no-recall", "--no-daemon"]
    ask += ["--embedder", "none", "--cache-dir", str(cache)]
    assert main(ask) == 0
    answered = capsys.readouterr().out
    table = next(cache.rglob(FILE_NAME))
    with sqlite3.connect(table) as db:  # a pickle that would run code, signed by nobody
        db.execute("UPDATE files SET parsed = ? WHERE parsed IS NOT NULL", (PLANTED,))
    db.close()
    assert open_unchanged(vault, settings(cache)) is not None  # the rows are read on demand
    assert main(ask) == 0
    assert capsys.readouterr().out == answered


PLANTED = b"\0" * 32 + b"cos\nsystem\n(S'touch planted'\ntR."
