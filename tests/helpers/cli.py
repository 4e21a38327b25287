"""The memlsp command line run as a process of its own, as a user's shell runs it: the tests'
environment (tests/conftest.py) with the CLI allowed to ask a running server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def environment(**changes: str) -> dict[str, str]:
    """The tests' environment, with the CLI allowed to ask a server (no `MEMLSP_NO_DAEMON`), and
    `changes` on top."""
    env = {name: value for name, value in os.environ.items() if name != "MEMLSP_NO_DAEMON"}
    return {**env, **changes}


def memlsp(
    *args: str | Path,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    python: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """`python [python...] -m memlsp args...` to its end (two minutes at most), its output as
    text; in `environment()` unless `env` is given."""
    return subprocess.run(
        [sys.executable, *python, "-m", "memlsp", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env or environment(),
    )
