"""`memlsp status`: a vault's report, in a process of its own that opens the index read-only (and
indexes nothing), or asked of `memlsp serve` on the vault's socket; its counts are what the files
say."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memlsp import daemon
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings
from tests.helpers.cli import environment, memlsp
from tests.helpers.vault import touch_later, write, write_notes

pytestmark = pytest.mark.e2e  # the command line, and `memlsp serve`, as processes of their own

NOTES = {
    # The vault's own file: a small size limit and an excluded folder name.
    ".memlsp.toml": 'max_file_bytes = 2000\nexclude = ["build"]\nwatch = false\n',
    "a.md": "# Alpha\n\nLinks to [[b]], to [[nowhere]] and to [[twin]].\n",
    "b.md": "# Beta\n\nThe second note.\n",
    "one/twin.md": "# Twin one\n",
    "two/twin.md": "# Twin two\n",
    "bad.md": "---\ntitle: [unclosed\n---\n# Bad frontmatter\n",
    "big.md": "# Big\n\n" + "word " * 1000,
    "picture.png": "not really a picture",
    ".obsidian/app.json": "{}",
    ".git/objects/aa/bb": "a git object",
    "build/out.md": "# Built\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[tuple[Path, Path, dict[str, str]]]:
    """A vault with one file of each kind that is not a note, a cache root short enough for a
    socket, and an environment whose user config file sets one setting."""
    root = write_notes(tmp_path / "vault", NOTES)
    (root / "binary.md").write_bytes(b"# Binary\n\0\0\0")
    cache = Path(tempfile.mkdtemp(prefix="ms-"))
    config = tmp_path / "config"
    write(config, "memlsp/config.toml", "mention_min_length = 4\n")
    env = environment(XDG_CONFIG_HOME=str(config))
    yield root, cache, env
    shutil.rmtree(cache, ignore_errors=True)


def run(*args: str | Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = memlsp(*args, env=env)
    assert done.returncode == 0, done.stderr
    return done


def status(root: Path, cache: Path, env: dict[str, str], *more: str) -> Any:
    done = run("status", root, "--cache-dir", cache, "--embedder", "none", "--json", *more, env=env)
    return json.loads(done.stdout)


def groups(report: Any, key: str, name: str) -> dict[str, Any]:
    return {group[name]: group for group in report[key]}


def test_status_counts_what_the_files_say(vault: tuple[Path, Path, dict[str, str]]) -> None:
    root, cache, env = vault
    run("index", root, "--cache-dir", cache, "--embedder", "none", env=env)
    # After indexing: one note changed, one added, one deleted.
    write(root, "b.md", "# Beta\n\nChanged since.\n")
    touch_later(root / "b.md")
    write(root, "new.md", "# New\n")
    (root / "two/twin.md").unlink()
    report = status(root, cache, env)

    assert report["root"] == str(root.resolve()) and report["name"] == "vault"
    assert (report["state"], report["read_only"], report["revision"]) == ("ready", True, 0)
    assert report["summary"] == "Ready: 5 notes"
    assert report["notes"] == 5 and report["chunks"] > 0  # as indexed: nothing indexed since
    assert report["links"] == {"total": 3, "unresolved": 1, "ambiguous": 1}
    assert report["last_changed"].endswith("Z")

    not_notes = groups(report, "not_notes", "reason")
    ignored = [g for g in report["not_notes"] if g["reason"] == "ignored"]
    by_rule = {g["rule"]: (g["source"], g["paths"]) for g in ignored}
    assert by_rule == {
        "dot files and folders": ("built in", [".git/", ".memlsp.toml", ".obsidian/"]),
        "exclude = build": ("vault (.memlsp.toml)", ["build/"]),
    }
    assert not_notes["too_large"]["paths"] == ["big.md"]
    assert "max_file_bytes = 2,000" in not_notes["too_large"]["detail"]
    assert not_notes["not_markdown"]["paths"] == ["picture.png"]
    assert not_notes["binary"]["paths"] == ["binary.md"]
    for group in report["not_notes"]:
        assert group["count"] == len(group["paths"])

    problems = groups(report, "problems", "kind")
    assert problems["invalid_frontmatter"] == {"kind": "invalid_frontmatter", "count": 1,
                                               "paths": ["bad.md"]}  # fmt: skip
    assert problems["unresolved_link"]["count"] == 1 and problems["unresolved_link"]["paths"] == [
        "a.md"
    ]
    assert problems["ambiguous_link"]["paths"] == ["a.md"]

    assert report["unseen_changes"] == {"count": 3, "paths": ["b.md", "new.md", "two/twin.md"]}
    assert report["process"] == {"kind": "none", "pid": None, "since": None}
    folder = cache_dir_for(root, Settings(cache_dir=cache))
    assert report["cache"]["path"] == str(folder) and report["cache"]["bytes"] > 0

    settings = report["settings"]
    assert settings["embedder"] == {"value": "none", "source": "flag"}
    assert settings["cache_dir"] == {"value": str(cache), "source": "flag"}
    assert settings["max_file_bytes"] == {"value": 2000, "source": "vault"}
    assert settings["exclude"] == {"value": ["build"], "source": "vault"}
    assert settings["mention_min_length"] == {"value": 4, "source": "user config"}
    assert settings["max_chunk_tokens"] == {"value": 512, "source": "default"}
    vectors = report["vectors"]
    assert (vectors["state"], vectors["running"], vectors["off_reason"]) == (
        "off", False, "embedder = none (flag)"
    )  # fmt: skip

    # Nothing was indexed to answer: the index is as it was, and still tells the same.
    again = status(root, cache, env)
    assert again["revision"] == 0 and again["unseen_changes"] == report["unseen_changes"]


def test_the_text_report(vault: tuple[Path, Path, dict[str, str]]) -> None:
    root, cache, env = vault
    run("index", root, "--cache-dir", cache, "--embedder", "none", env=env)
    text = run("status", root, "--cache-dir", cache, "--embedder", "none", env=env).stdout
    assert text.splitlines()[0] == f"{root}: Ready: 5 notes"
    assert "vectors: off (embedder = none (flag))" in text
    assert "  too_large (larger than max_file_bytes = 2,000): 1: big.md" in text
    assert "  invalid_frontmatter: 1: bad.md" in text
    assert "answered by: this command" in text
    assert (
        "  max_file_bytes = 2000 (vault)" in text
        and "  mention_min_length = 4 (user config)" in text
    )
    assert "max_chunk_tokens" not in text  # at its default


def test_a_vault_never_indexed_is_said_so_and_left_alone(
    vault: tuple[Path, Path, dict[str, str]],
) -> None:
    root, cache, env = vault
    done = memlsp("status", root, "--cache-dir", cache, "--embedder", "none", env=env)
    assert (
        done.returncode == 1 and "is not indexed" in done.stderr and "memlsp index" in done.stderr
    )
    assert list(cache.iterdir()) == []  # nothing made, nothing indexed


@pytest.mark.skipif(not daemon.supported(), reason="no Unix domain sockets")
def test_memlsp_serve_answers_for_the_vault_it_has_open(
    vault: tuple[Path, Path, dict[str, str]],
) -> None:
    root, cache, env = vault
    server = subprocess.Popen(
        [sys.executable, "-m", "memlsp", "serve", str(root), "--cache-dir", str(cache),
         "--embedder", "none", "--idle", "120"],
        env=env,
    )  # fmt: skip
    try:
        folder = cache_dir_for(root, Settings(cache_dir=cache))
        socket = daemon.socket_path(folder)
        assert socket is not None
        tick = threading.Event()
        for _ in range(3000):  # a minute at most: it indexes the vault first
            if daemon.answers(socket) or server.poll() is not None:
                break
            tick.wait(0.02)
        assert server.poll() is None, "memlsp serve exited"
        # Its first scan over (the socket answers from the start, the index once it is open):
        # a note written from now on is one it has not seen.
        assert status(root, cache, env)["notes"] == 5
        write(root, "new.md", "# New\n")  # not watched (watch = false): waiting to be seen
        report = status(root, cache, env)
        assert report["process"]["kind"] == "memlsp serve"
        assert report["process"]["pid"] == server.pid
        assert report["read_only"] is False and report["notes"] == 5
        assert report["unseen_changes"] == {"count": 1, "paths": ["new.md"]}
        assert report["settings"]["max_file_bytes"] == {"value": 2000, "source": "vault"}
        assert report["settings"]["embedder"] == {"value": "none", "source": "flag"}
        text = run("status", root, "--cache-dir", cache, "--embedder", "none", env=env).stdout
        assert f"answered by: memlsp serve (pid {server.pid}" in text
    finally:
        server.terminate()
        server.wait(timeout=30)
