"""A real headless Neovim 0.11 attached to memlsp: definition, references, hover, workspace/symbol.

`tests/nvim/check_features.lua` does the work inside Neovim and prints one JSON line per check;
this test prepares a vault copy, runs it, and asserts on those lines.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.editors import find_nvim, headless_neovim, isolated_env, run_bounded
from tests.helpers.paths import REPO
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

# The one check that Neovim's own completion menu, not only the server's answer, gives the link.
MENU_CHECK = "completion by meaning in the menu"

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
    "completion by meaning",
    "completion by meaning in the menu",
    "code lens",
    "rename",
    "client stopped",
    "done",
)


def run_neovim(nvim: str, vault: Path, cache: Path, home: Path) -> subprocess.CompletedProcess[str]:
    args = headless_neovim(nvim, SCRIPT, vault, cache, sys.executable)
    return run_bounded(args, REPO, isolated_env(home), TIMEOUT_SECONDS)


def parse_checks(stdout: str) -> dict[str, dict[str, Any]]:
    checks: dict[str, dict[str, Any]] = {}
    for line in stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            checks[record["check"]] = record
    return checks


@dataclass(frozen=True, slots=True)
class Session:
    """What one Neovim session printed: its checks by name, and all its output for messages."""

    checks: dict[str, dict[str, Any]]
    report: str
    returncode: int


@pytest.fixture(scope="module")
def neovim(tmp_path_factory: pytest.TempPathFactory) -> Session:
    """One Neovim session over a copy of the fixture vault, shared by the tests below."""
    nvim = find_nvim()
    tmp_path = tmp_path_factory.mktemp("neovim")
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    (vault / EMOJI_NOTE).write_text(EMOJI_TEXT, encoding="utf-8")
    process = run_neovim(nvim, vault, tmp_path / "cache", tmp_path / "home")
    report = f"exit {process.returncode}\nstdout:\n{process.stdout}\nstderr:\n{process.stderr}"
    return Session(parse_checks(process.stdout), report, process.returncode)


def test_neovim_uses_memlsp(neovim: Session) -> None:
    checks, report = neovim.checks, neovim.report
    failed = [
        record
        for name, record in checks.items()
        if not record["ok"] and name not in (MENU_CHECK, "done")
    ]
    assert not failed, report
    assert [name for name in CHECKS if name not in checks] == [], report
    assert checks["offset_encoding"]["value"] == "utf-8"
    definition = checks["definition heading link"]
    # the link sits after emoji and Chinese: bytes and UTF-16 units differ there
    assert definition["byte_column"] != definition["utf16_column"]
    assert definition["got"] == ["search/hybrid-search.md:10:0"]
    assert checks["definition block link"]["got"] == ["search/向量检索.md:18:0"]


def test_completion_by_meaning_as_neovims_menu_inserts_it(neovim: Session) -> None:
    """Chosen in Neovim's own popup menu (`<C-x><C-o>`), the note about a phrase is written
    `[[note|phrase]]`, whole: Neovim inserts a plain-text item's edit only up to its first space."""
    assert neovim.checks.get(MENU_CHECK, {}).get("ok"), neovim.report
    assert neovim.returncode == 0, neovim.report
