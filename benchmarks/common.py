"""What the benchmark scripts share: where the repo is, how to run memlsp, where to work."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent


def child_env() -> dict[str, str]:
    """The environment for `python -m memlsp`, with the repo importable even if not installed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env


def prepare_dirs(keep: Path | None, prefix: str) -> tuple[Path, bool]:
    """A work folder (with `vault/` and `cache/` inside), and whether to delete it afterwards."""
    if keep is None:
        return Path(tempfile.mkdtemp(prefix=prefix)), True
    for sub in ("vault", "cache"):
        if (keep / sub).exists() and any((keep / sub).iterdir()):
            sys.exit(f"{keep / sub} is not empty; give --keep an empty or new folder")
    keep.mkdir(parents=True, exist_ok=True)
    return keep, False
