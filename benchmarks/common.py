"""What the benchmark scripts share: where the repo is, how to run memlsp, where to work."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent


def child_env() -> dict[str, str]:
    """The environment for `python -m memlsp`, with the repo importable even if not installed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env


@contextmanager
def work_dir(keep: Path | None, prefix: str) -> Iterator[tuple[Path, bool]]:
    """A work folder (with `vault/` and `cache/` inside) and whether it is temporary; a temporary
    one is deleted afterwards, a `--keep` one is kept."""
    if keep is None:
        base = Path(tempfile.mkdtemp(prefix=prefix))
        try:
            yield base, True
        finally:
            shutil.rmtree(base, ignore_errors=True)
        return
    for sub in ("vault", "cache"):
        if (keep / sub).exists() and any((keep / sub).iterdir()):
            sys.exit(f"{keep / sub} is not empty; give --keep an empty or new folder")
    keep.mkdir(parents=True, exist_ok=True)
    yield keep, False
