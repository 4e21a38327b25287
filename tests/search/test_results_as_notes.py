"""A note is one result, at its best section, with its other matching sections attached;
`sections` lists sections one by one, as before (ten results were often four notes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.engine.engine import Engine
from memlsp.model import SearchRequest
from memlsp.search.render import hit_text
from memlsp.search.request import build_request
from memlsp.settings.table import Settings
from memlsp.wire import search_result_json
from tests.helpers.vault import write

LONG = (
    "# Kiln\n\n## Firing\n\nThe kiln reaches cone six for stoneware glaze.\n\n"
    "## Cooling\n\nA kiln cools slowly; opening it early cracks the glaze.\n\n"
    "## Loading\n\nShelves in the kiln hold the pots apart.\n"
)


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    vault = tmp_path / "vault"
    write(vault, "pottery/kiln.md", LONG)
    write(vault, "pottery/wheel.md", "# Wheel\n\nCentering clay before the kiln.\n")
    engine = Engine.open(vault, Settings(cache_dir=tmp_path / "cache", embedder="none"))
    engine.refresh()
    return engine


def test_a_note_is_one_result_with_its_other_sections(engine: Engine) -> None:
    hits = engine.read().search(SearchRequest(query="kiln glaze", expand=False)).hits
    assert [hit.chunk.path for hit in hits] == ["pottery/kiln.md", "pottery/wheel.md"]
    first = hits[0]
    others = [(o.heading, o.start_line) for o in first.other_sections]
    assert first.chunk.heading in ("Firing", "Cooling") and len(others) >= 2
    assert first.chunk.heading not in [heading for heading, _ in others]
    scores = [o.score for o in first.other_sections]
    assert scores == sorted(scores, reverse=True) and scores[0] <= first.score
    assert search_result_json(first)["other_sections"][0]["heading"] == others[0][0]
    assert "also matched: " in hit_text(first)
    assert hits[1].other_sections == ()


def test_sections_lists_each_matching_section(engine: Engine) -> None:
    request = build_request({"query": "kiln glaze", "expand": False, "sections": True})
    hits = engine.read().search(request).hits
    assert [hit.chunk.path for hit in hits].count("pottery/kiln.md") >= 3
    assert all(hit.other_sections == () for hit in hits)


def test_the_limit_counts_notes(engine: Engine) -> None:
    [hit] = engine.read().search(SearchRequest(query="kiln", limit=1, expand=False)).hits
    assert hit.chunk.path == "pottery/kiln.md" and hit.other_sections


def test_sections_must_be_a_boolean() -> None:
    with pytest.raises(ValueError, match="'sections' must be true or false"):
        build_request({"query": "x", "sections": "yes"})
