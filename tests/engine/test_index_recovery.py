"""What survives a process that dies (kill -9) and a change that fails: only the disk counts.

The dying process is real: a child Python that opens the engine, changes the index and ends with
`os._exit`, which skips every cleanup just as SIGKILL does."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from memlsp.engine.engine import Engine
from memlsp.live.vault import LiveVault
from memlsp.settings.table import Settings
from tests.helpers.engine import open_engine, paths_found
from tests.helpers.vault import write


def _die_after(vault: Path, cache: Path, body: str) -> None:
    """Run `body` against an open engine `e` in a child process that then dies without closing."""
    script = (
        textwrap.dedent(
            f"""
        import os
        from pathlib import Path
        from memlsp.settings.table import Settings
        from memlsp.engine import Engine
        e = Engine.open(Path({str(vault)!r}), Settings(cache_dir=Path({str(cache)!r}),
                        embedder="none"))
        e.refresh()
        """
        )
        + textwrap.dedent(body)
        + "\nos._exit(9)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert done.returncode == 9, done.stderr.decode()


def _same_as_fresh(vault: Path, cache: Path, tmp_path: Path, tokens: list[str]) -> None:
    engine = open_engine(vault, cache)
    fresh = open_engine(vault, tmp_path / "fresh-cache")
    try:
        engine.refresh()
        fresh.refresh()
        for token in tokens:
            assert paths_found(engine, token) == paths_found(fresh, token), token
        assert sorted(engine.read().graph.notes) == sorted(fresh.read().graph.notes)
    finally:
        engine.close()
        fresh.close()


@pytest.mark.e2e  # an indexing process, killed
def test_an_unsaved_buffer_does_not_outlive_a_killed_process(tmp_path: Path) -> None:
    vault, cache = tmp_path / "v", tmp_path / "cache"
    write(vault, "a.md", "# A\n\ndisktoken on disk\n")
    write(vault, "b.md", "# B\n\nother [[a]]\n")
    first = open_engine(vault, cache)
    first.refresh()
    first.close()  # a manifest that knows a.md's disk stat
    _die_after(vault, cache, 'e.apply_text("a.md", "# A\\n\\nbuffertoken never saved\\n")')

    engine = open_engine(vault, cache)
    try:
        engine.refresh()
        assert paths_found(engine, "buffertoken") == []
        assert paths_found(engine, "disktoken") == ["a.md"]
    finally:
        engine.close()
    _same_as_fresh(vault, cache, tmp_path, ["buffertoken", "disktoken", "other"])


@pytest.mark.e2e  # an indexing process, killed
def test_a_note_created_and_deleted_after_the_last_save_leaves_no_ghost(tmp_path: Path) -> None:
    vault, cache = tmp_path / "v", tmp_path / "cache"
    write(vault, "keep.md", "# Keep\n\nkeeptoken\n")
    first = open_engine(vault, cache)
    first.refresh()
    first.close()
    _die_after(
        vault,
        cache,
        """
        e.apply_text("ghost.md", "# Ghost\\n\\nghosttoken only in a buffer\\n")
        """,
    )
    _same_as_fresh(vault, cache, tmp_path, ["ghosttoken", "keeptoken"])


@pytest.mark.e2e  # an indexing process, killed
def test_a_killed_cold_index_is_completed_on_the_next_start(tmp_path: Path) -> None:
    vault, cache = tmp_path / "v", tmp_path / "cache"
    for i in range(60):
        write(vault, f"n{i}.md", f"# N{i}\n\ntoken{i} [[n{(i + 1) % 60}]]\n")
    _die_after(
        vault,
        cache,
        """
        e.apply_text("n3.md", "# N3\\n\\nbufferonly\\n")
        e.refresh_paths(["n5.md"])
        """,
    )
    _same_as_fresh(vault, cache, tmp_path, ["bufferonly", "token3", "token5", "token59"])


def test_a_bad_buffer_does_not_lose_the_other_changes_of_its_batch(tmp_path: Path) -> None:
    vault, cache = tmp_path / "v", tmp_path / "cache"
    write(vault, "a.md", "# A\n\nplain\n")
    live = LiveVault(vault, Settings(cache_dir=cache, embedder="none"), watch=False)
    live.start()
    try:
        assert live.wait_ready(30)
        # One batch: a buffer with a lone surrogate, another buffer, a disk change.
        write(vault, "disk.md", "# Disk\n\ndiskchangetoken\n")
        live.buffer_changed("surrogate.md", "lone \ud800 surrogatetoken")
        live.buffer_changed("after.md", "# After\n\naftersurrogatetoken\n")
        live.disk_changed({"disk.md"})
        changed = threading.Event()
        for _ in range(300):
            engine = live.engine
            assert engine is not None
            found = {q: paths_found(engine, q) for q in ("aftersurrogatetoken", "diskchangetoken")}
            if all(found.values()):
                break
            changed.wait(0.05)
        assert found == {"aftersurrogatetoken": ["after.md"], "diskchangetoken": ["disk.md"]}
        assert engine is not None
        assert paths_found(engine, "surrogatetoken") == ["surrogate.md"]
    finally:
        live.stop()


def test_a_folder_moved_out_of_the_vault_is_forgotten(tmp_path: Path) -> None:
    vault, cache = tmp_path / "v", tmp_path / "cache"
    write(vault, "w/a.md", "# A\n\nmovedtoken [[b]]\n")
    write(vault, "w/deeper/c.md", "# C\n\ndeepertoken\n")
    write(vault, "w/pic.png", "png")
    write(vault, "b.md", "# B\n\nplain ![[pic.png]] [[a]]\n")
    engine = open_engine(vault, cache)
    try:
        engine.refresh()
        assert engine.read().links("b.md").inlinks
        (vault / "w").rename(tmp_path / "w")  # the watcher reports only the folder's path
        engine.refresh_paths(["w"])
        assert paths_found(engine, "movedtoken") == []
        assert paths_found(engine, "deepertoken") == []
        assert engine.read().links("b.md").inlinks == ()
        assert {item.resolution.status.name for item in engine.read().links("b.md").outlinks} == {
            "UNRESOLVED"
        }
        fresh = Engine.open(vault, Settings(cache_dir=tmp_path / "fresh", embedder="none"))
        fresh.refresh()
        assert engine.read().graph.counts() == fresh.read().graph.counts()
        fresh.close()
        # And back in: the whole folder is indexed again.
        (tmp_path / "w").rename(vault / "w")
        engine.refresh()
        assert paths_found(engine, "deepertoken") == ["w/deeper/c.md"]
    finally:
        engine.close()


def test_a_buffer_with_nul_bytes_is_skipped_like_the_same_text_on_disk(tmp_path: Path) -> None:
    vault, cache = tmp_path / "v", tmp_path / "cache"
    text = "# Note\n\nnultoken \x00\x00 [[#Sec]]\n"
    write(vault, "saved.md", text)
    engine = open_engine(vault, cache)
    try:
        engine.refresh()
        engine.apply_text("open.md", text)
        assert paths_found(engine, "nultoken") == []
        assert (
            "open.md" not in engine.read().graph.notes
            and "saved.md" not in engine.read().graph.notes
        )
    finally:
        engine.close()


def test_a_note_that_is_a_symlink_follows_edits_of_its_target(tmp_path: Path) -> None:
    vault, cache = tmp_path / "v", tmp_path / "cache"
    write(vault, "a.md", "# A\n\nfirstword\n")
    (vault / "x").mkdir()
    (vault / "x" / "b.md").symlink_to("../a.md")
    engine = open_engine(vault, cache)
    try:
        engine.refresh()
        assert paths_found(engine, "firstword") == ["a.md", "x/b.md"]
        write(vault, "a.md", "# A\n\nsecondword, longer now\n")
        engine.refresh_paths(["a.md"])  # what the watcher reports
        assert paths_found(engine, "firstword") == []
        assert paths_found(engine, "secondword") == ["a.md", "x/b.md"]
    finally:
        engine.close()
