"""Running a real editor headless from a test: its environment kept in tmp, its time bounded."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
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
