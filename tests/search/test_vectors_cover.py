"""While some chunks have no vector yet, a search by meaning says what share of the vault its
vectors cover, once, in words a person reads: in the engine's answer, the command line's JSON,
`memlsp/search` and the MCP `search` tool alike; never when every chunk has one, in keyword mode,
or without an embedder (which says so elsewhere)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import pytest

from memlsp import wire
from memlsp.agent.source import VaultSource
from memlsp.agent.tools import Memory
from memlsp.commands.answers import answer_json
from memlsp.commands.calls import Call
from memlsp.engine.engine import Engine
from memlsp.model import SearchRequest
from memlsp.settings.table import Settings
from tests.helpers.engine import ask, embed_all, indexed_engine
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import write_notes

NOTES = {
    "lamps.md": "# Lamps\n\nA lantern lamp.\n\n## Oil\n\nLantern oil.\n\n## Wick\n\nA wick.\n",
    "camping.md": "# Camping\n\nA lantern and a tent.\n\n## Night\n\nThe lantern hangs.\n",
    "garden.md": "# Garden\n\nA solar lantern by the pond.\n",
    "shed.md": "# Shed\n\nThe old lantern in the shed.\n",
    "ship.md": "# Ship\n\nA storm lantern on deck.\n",
    "mine.md": "# Mine\n\nA miner's lantern.\n",
    "attic.md": "# Attic\n\nA lantern in a box.\n",
}
CHUNKS = 10  # every chunk is prose: each gets a vector
SEVENTY = "vectors cover 70% of chunks; notes not yet embedded are found by their words only"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    """Seven of its ten chunks embedded: the embedding has not finished."""
    vault = write_notes(tmp_path / "vault", NOTES)
    settings = Settings(cache_dir=tmp_path / "cache")
    opened = Engine.open(vault, settings, FakeEmbedder())
    opened.refresh()
    assert opened.embed_step(7) == 7
    status = opened.read().vectors.status
    assert (status.stored, status.pending) == (7, CHUNKS - 7)
    yield opened
    opened.close()


def coverage(warnings: tuple[str, ...] | list[str]) -> list[str]:
    return [warning for warning in warnings if "vectors cover" in warning]


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_a_search_by_meaning_says_what_share_has_vectors(engine: Engine, mode: str) -> None:
    response = ask(engine, "lantern", mode=mode, limit=50, min_strength=0)
    assert response.hits and coverage(response.warnings) == [SEVENTY]
    assert coverage(ask(engine, "lantern", mode="keyword").warnings) == []


def test_once_every_chunk_has_its_vector_it_says_nothing(engine: Engine) -> None:
    embed_all(engine)
    assert engine.read().vectors.status.pending == 0
    assert ask(engine, "lantern").warnings == ()


def test_without_an_embedder_it_says_nothing_of_vectors(tmp_path: Path) -> None:
    keyword_only = indexed_engine(tmp_path, NOTES)
    try:
        assert ask(keyword_only, "lantern").warnings == ()
    finally:
        keyword_only.close()


def test_every_surface_says_it(engine: Engine) -> None:
    """The command line's JSON, `memlsp/search` (under the vault's name) and the agent's tool."""
    response = ask(engine, "lantern", limit=50)
    assert coverage(wire.search_answer_json(response)["warnings"]) == [SEVENTY]
    answer = wire.VaultAnswer("lamps", "file:///lamps", lambda path: path, response)
    merged = wire.vault_search_answer_json(SearchRequest(query="lantern", limit=50), [answer])
    assert coverage(merged["warnings"]) == [f"lamps: {SEVENTY}"]
    memory = Memory(cast(VaultSource, FromEngine(engine)), allow_writes=False)
    tool = memory.search("lantern", 10, "hybrid", None, None, None, None, None)
    assert coverage(tool["warnings"]) == [SEVENTY]


class FromEngine:
    """What the agent's tools ask, answered from one engine's snapshot as a vault's own source
    answers (commands/answers.py), with no socket or watcher in between."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.root = engine.root
        self.settings = engine.read().settings

    def answer(self, call: Call) -> Mapping[str, Any]:
        return answer_json(self.engine.read(), call, str(self.root))
