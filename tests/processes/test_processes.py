"""Several memlsp processes on one vault: all succeed, one writes, and a reader takes over."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memlsp.live.vault import LiveVault
from memlsp.settings.table import Settings
from tests.helpers.engine import open_engine, paths_found
from tests.helpers.vault import write

pytestmark = pytest.mark.e2e  # every test here starts a process


def _vault(root: Path, notes: int = 150) -> Path:
    for i in range(notes):
        write(root, f"f{i % 7}/n{i}.md", f"# Note {i}\n\nword{i} shared [[n{(i + 1) % notes}]]\n")
    return root


def _memlsp(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "memlsp", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_processes_started_at_once_on_an_empty_cache_all_succeed(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "v")
    for round_ in range(4):
        cache = tmp_path / f"cache{round_}"
        common = ("--cache-dir", str(cache), "--embedder", "none")
        started = [_memlsp("index", str(vault), *common, "--json") for _ in range(3)]
        started.append(
            _memlsp("search", str(vault), "word42", *common, "--mode", "keyword", "--json")
        )
        outputs = [p.communicate(timeout=120) for p in started]
        results = [(p.returncode, out, err) for p, (out, err) in zip(started, outputs, strict=True)]
        for code, _, err in results:
            assert code == 0, err
            assert "rebuilt" not in err, err  # nobody removed an index another was creating
        for _, out, _ in results[:3]:
            assert json.loads(out)["notes"] == 150
        hits = json.loads(results[3][1])["results"]
        assert hits and hits[0]["path"] == "f0/n42.md"
        engine = open_engine(vault, cache)
        fresh = open_engine(vault, tmp_path / f"fresh{round_}")
        try:
            engine.refresh()
            fresh.refresh()
            assert engine.read().graph.counts() == fresh.read().graph.counts()
            for word in ("word0", "word77", "word149", "shared"):
                assert paths_found(engine, word) == paths_found(fresh, word)
        finally:
            engine.close()
            fresh.close()


def _wait_until(check: object, timeout: float = 30.0) -> bool:
    tick = threading.Event()
    for _ in range(int(timeout / 0.05)):
        if check():  # type: ignore[operator]
            return True
        tick.wait(0.05)
    return False


def test_a_read_only_vault_says_so_and_takes_over_when_the_writer_exits(tmp_path: Path) -> None:
    vault, cache = _vault(tmp_path / "v", notes=20), tmp_path / "cache"
    settings = Settings(cache_dir=cache, embedder="none")
    writer = LiveVault(vault, settings, watch=False)
    writer.start()
    assert writer.wait_ready(30)
    reader = LiveVault(vault, settings, watch=False)
    reader.start()
    try:
        assert reader.wait_ready(30)
        status = reader.status()
        assert status.read_only and "read-only" in status.message
        assert not writer.status().read_only
        assert reader.engine is not None and paths_found(reader.engine, "word3") == ["f3/n3.md"]

        writer.stop()
        assert _wait_until(lambda: not reader.status().read_only), reader.status()
        write(vault, "new.md", "# New\n\ntakeovertoken\n")
        reader.disk_changed({"new.md"})
        assert _wait_until(
            lambda: reader.engine is not None and paths_found(reader.engine, "takeovertoken")
        )
        assert reader.status().message == ""
    finally:
        writer.stop()
        reader.stop()
