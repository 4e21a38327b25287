"""The parse workers prepare a note's keyword documents without tantivy.

On a cold start `sync/prepare.py` parses, chunks and segments files in a pool of worker
processes (`forkserver` ones when the process runs threads, as the language server does). Each
worker imports what the `memlsp` script imports (a forkserver loads the main module first) and
what unpickling its work needs, and nothing of that may load tantivy, nor build its analyzer:
`memlsp/index/keyword/documents.py` keeps preparation apart from the index.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # each test starts a Python process

IMPORTS = (
    "import memlsp.index.keyword.documents, memlsp.sync.prepare, sys; "
    "assert 'tantivy' not in sys.modules, 'tantivy was imported'"
)

# Run as a file, like the `memlsp` script, so that a forkserver loads it as the main module and
# its workers can import `loaded`.
POOL = """
import multiprocessing
import sys

from memlsp.cli import main  # as the `memlsp` script does


def loaded(text: str) -> tuple[int, list[str]]:
    from memlsp.settings import Settings
    from memlsp.sync.prepare import prepare_text
    from memlsp.sync.scan import FileStat

    prepared = prepare_text(Settings(), FileStat("note.md", 0, len(text)), text)
    return len(prepared.documents), [name for name in ("tantivy", "chromadb") if name in sys.modules]


if __name__ == "__main__":
    import memlsp.engine.engine  # the parent has its index open

    assert "tantivy" in sys.modules
    with multiprocessing.get_context("forkserver").Pool(1) as pool:
        print(pool.map(loaded, ["# Note\\n\\nSome words about search, and 中文的句子.\\n"]))
"""


def _run(args: list[str]) -> str:
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_preparing_documents_imports_no_tantivy() -> None:
    _run(["-c", IMPORTS])


def test_a_forkserver_worker_prepares_a_note_without_tantivy(tmp_path: Path) -> None:
    script = tmp_path / "pool.py"
    script.write_text(POOL, encoding="utf-8")
    assert _run([str(script)]).strip() == "[(1, [])]"
