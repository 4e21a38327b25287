"""A real headless Neovim 0.11 attached to memlsp: definition, references, hover, workspace/symbol.

`tests/nvim/check_features.lua` does the work inside Neovim and prints one JSON line per check;
this test prepares a vault copy, runs it, and asserts on those lines.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.editors import REPO, find_nvim, isolated_env, run_bounded
from tests.helpers.vault import FIXTURE_VAULT

SCRIPT = REPO / "tests" / "nvim" / "check_features.lua"
TIMEOUT_SECONDS = 120

# The fixture vault has no line with emoji before a link; the copy gets one. Neovim counts columns
# in UTF-8 bytes, so a wrong encoding on either side misses these links.
EMOJI_NOTE = "inbox/emoji-links.md"
EMOJI_TEXT = (
    "# Emoji links 🚀\n"
    "\n"
    "🚀 周末读书 📚：[[hybrid-search#Fusion]]，参数见 ✅ [[向量检索#^hnsw-params]]，"
    "总览 [[hybrid-search]] 🎉。\n"
)

pytestmark = pytest.mark.e2e  # every test here starts a process

CHECKS = (
    "initialized",
    "indexed",
    "offset_encoding",
    "definition heading link",
    "definition block link",
    "references",
    "hover",
    "workspace/symbol tantivy",
    "workspace/symbol 向量检索",
    "completion",
    "semantic search",
    "code lens",
    "rename",
    "client stopped",
    "done",
)


def run_neovim(nvim: str, vault: Path, cache: Path, home: Path) -> subprocess.CompletedProcess[str]:
    args = [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-l", str(SCRIPT)]
    args += [str(vault), str(cache), sys.executable]
    return run_bounded(args, REPO, isolated_env(home), TIMEOUT_SECONDS)


def parse_checks(stdout: str) -> dict[str, dict[str, Any]]:
    checks: dict[str, dict[str, Any]] = {}
    for line in stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            checks[record["check"]] = record
    return checks


def test_neovim_uses_memlsp(tmp_path: Path) -> None:
    nvim = find_nvim()
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    (vault / EMOJI_NOTE).write_text(EMOJI_TEXT, encoding="utf-8")

    process = run_neovim(nvim, vault, tmp_path / "cache", tmp_path / "home")

    report = f"exit {process.returncode}\nstdout:\n{process.stdout}\nstderr:\n{process.stderr}"
    checks = parse_checks(process.stdout)
    failed = [record for record in checks.values() if not record["ok"]]
    assert not failed, report
    assert [name for name in CHECKS if name not in checks] == [], report
    assert process.returncode == 0, report
    assert checks["offset_encoding"]["value"] == "utf-8"
    definition = checks["definition heading link"]
    # the link sits after emoji and Chinese: bytes and UTF-16 units differ there
    assert definition["byte_column"] != definition["utf16_column"]
    assert definition["got"] == ["search/hybrid-search.md:10:0"]
    assert checks["definition block link"]["got"] == ["search/向量检索.md:18:0"]
