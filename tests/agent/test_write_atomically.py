"""A write's file modes: a new note gets what the process's umask gives any new file, an existing
note keeps its own; the umask itself is never changed (other threads create files meanwhile)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memlsp.agent.writing import TEMPORARY_PREFIX, write_atomically


def test_a_new_note_gets_the_umasks_mode_and_an_old_one_keeps_its_own(tmp_path: Path) -> None:
    before = os.umask(0o027)
    try:
        write_atomically(tmp_path / "new.md", b"# New\n")
        old = tmp_path / "old.md"
        old.write_bytes(b"# Old\n")
        old.chmod(0o604)
        write_atomically(old, b"# Old, again\n")
        assert os.umask(0o027) == 0o027  # left as it was set
    finally:
        os.umask(before)
    assert stat.S_IMODE((tmp_path / "new.md").stat().st_mode) == 0o640
    assert stat.S_IMODE(old.stat().st_mode) == 0o604
    assert old.read_bytes() == b"# Old, again\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(TEMPORARY_PREFIX)] == []
