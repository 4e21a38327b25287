"""A hub's unlinked mentions in a new revision: the notes whose text did not change are not read
from disk again (queries/mentions.py `FoundBefore`, kept by the writer across its revisions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.engine import snapshot as snapshot_module
from memlsp.sync.scan import read_text
from tests.helpers.engine import indexed_engine


def test_an_engine_reads_no_file_again_for_an_edit_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hub's name is in 30 notes' links; an edit of another note is a new revision, and its
    answer is found without reading any of those files again."""
    files = {"hub.md": "# Hub\n", "other.md": "# Other\n", "plain.md": "The hub, unlinked.\n"}
    files |= {f"link{i:02}.md": f"# Link {i}\n\nTo the [[hub]].\n" for i in range(30)}
    engine = indexed_engine(tmp_path, files)
    reads: list[str] = []

    def counted(root: Path, stat: object, settings: object) -> object:
        reads.append(str(stat))
        return read_text(root, stat, settings)  # type: ignore[arg-type]

    monkeypatch.setattr(snapshot_module, "read_text", counted)
    first = engine.read().mentions("hub.md")
    assert [m.path for m in first.mentions] == ["plain.md"] and len(reads) == 31
    reads.clear()
    engine.apply_text("other.md", "# Other\n\nAn edit.\n")
    after = engine.read()
    assert after.revision > 1 and after.mentions("hub.md") == first
    assert reads == []
    engine.apply_text("plain.md", "The hub and the hub.\n")  # an open buffer: not a file read
    assert len(engine.read().mentions("hub.md").mentions) == 2 and reads == []
