"""A search's numbers are checked where a request is built, and the keyword index is never asked
for more hits than it holds: tantivy sets aside room for every hit asked before it looks, so a
limit of 2**31 aborted the whole process and one past 2**64 did not convert."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from memlsp.cli import main
from memlsp.model import MAX_LIMIT, SearchRequest
from memlsp.search.request import build_request
from tests.helpers.engine import indexed_engine
from tests.helpers.paths import REPO

NOTES = {"a.md": "# A\n\nlantern and moth\n", "b.md": "# B\n\nlantern again\n"}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"limit": 0}, f"'limit' must be from 1 to {MAX_LIMIT:,}, not 0"),
        ({"limit": MAX_LIMIT + 1}, f"'limit' must be from 1 to {MAX_LIMIT:,}, not {MAX_LIMIT + 1}"),
        ({"limit": 2**31}, "'limit' must be from 1 to"),
        ({"limit": 10**20}, "'limit' must be from 1 to"),
        ({"limit": 1e300}, "'limit' must be from 1 to"),
        ({"limit": math.inf}, "'limit' must be a finite number"),
        ({"limit": math.nan}, "'limit' must be a finite number"),
        ({"min_score": math.nan}, "'min_score' must be a finite number"),
        ({"min_score": -math.inf}, "'min_score' must be a finite number"),
        ({"min_strength": math.inf}, "'min_strength' must be a finite number"),
        ({"budget_tokens": 0}, "'budget_tokens' must be at least 1, not 0"),
        ({"budget_tokens": -3}, "'budget_tokens' must be at least 1, not -3"),
        ({"budget_tokens": math.inf}, "'budget_tokens' must be a finite number"),
    ],
)
def test_a_number_out_of_range_is_refused_naming_it(
    values: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError) as refused:
        build_request({"query": "lantern", **values})
    assert str(refused.value).startswith(message), refused.value


def test_the_largest_limit_is_taken() -> None:
    assert build_request({"query": "q", "limit": MAX_LIMIT}).limit == MAX_LIMIT


def test_the_command_line_names_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text(NOTES["a.md"], encoding="utf-8")
    cache = str(tmp_path / "cache")
    code = main(["search", str(vault), "lantern", "--limit", str(10**20), "--cache-dir", cache])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(f"memlsp: --limit must be from 1 to {MAX_LIMIT:,}, not {10**20}"), err


CHILD = """
import sys
from pathlib import Path
from memlsp.model import SearchRequest
from tests.helpers.engine import indexed_engine
engine = indexed_engine(Path(sys.argv[1]), {"a.md": "lantern", "b.md": "lantern again"})
found = engine.read().search(SearchRequest(query="lantern", limit=2**31, mode="keyword")).hits
print(len(found))
"""


@pytest.mark.e2e  # a child process, since what it guards against ends the process
def test_the_keyword_index_is_never_asked_for_more_than_it_holds(tmp_path: Path) -> None:
    """In a child process: before, this ended it with an abort, out of memory."""
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert (run.returncode, run.stdout.strip()) == (0, "2"), run.stderr[-2000:]


def test_a_large_limit_finds_what_a_small_one_does(tmp_path: Path) -> None:
    engine = indexed_engine(tmp_path, NOTES)
    try:

        def paths(limit: int) -> list[str]:
            request = SearchRequest(query="lantern", limit=limit, mode="keyword", expand=False)
            return [hit.chunk.path for hit in engine.read().search(request).hits]

        assert paths(MAX_LIMIT) == paths(10)
        assert set(paths(MAX_LIMIT)) == {"a.md", "b.md"}
    finally:
        engine.close()
