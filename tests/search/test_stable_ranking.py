"""The first results do not depend on how many are asked for (issue: `--limit 3` and `--limit 5`
had different first results, as each side's candidate depth grew with the limit)."""

from __future__ import annotations

import random
from pathlib import Path

from memlsp.engine.engine import Engine
from memlsp.model import SearchRequest
from memlsp.settings.table import Settings
from tests.helpers.engine import embed_all
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import write

WORDS = tuple(
    [
        "garden",
        "basil",
        "tomato",
        "river",
        "mountain",
        "violin",
        "cello",
        "quasar",
        "nebula",
        "pesto",
        "garlic",
        "winter",
        "tyres",
        "harbour",
        "lantern",
        "orchard",
        "meadow",
        "copper",
        "willow",
        "ember",
        "falcon",
        "granite",
        "saffron",
        "tundra",
    ]
)


def test_each_limit_gives_a_prefix_of_the_longest_ranking(tmp_path: Path) -> None:
    rng = random.Random(7)
    vault = tmp_path / "vault"
    for number in range(80):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        write(vault, f"n{number:02}.md", f"# Note {number}\n\n{body}\n")
    settings = Settings(cache_dir=tmp_path / "cache", vector_retry_seconds=0.05)
    engine = Engine.open(vault, settings, FakeEmbedder())
    engine.refresh()
    embed_all(engine)

    def ranking(query: str, mode: str, fusion: str, limit: int) -> list[tuple[str, int]]:
        request = SearchRequest(query=query, limit=limit, expand=False, mode=mode, fusion=fusion)
        return [(h.chunk.path, h.chunk.start_line) for h in engine.read().search(request).hits]

    for query in ("basil garden", "violin nebula winter", "copper willow ember falcon"):
        for mode in ("hybrid", "keyword", "vector"):
            for fusion in ("evidence", "rrf"):
                longest = ranking(query, mode, fusion, 40)
                for limit in (1, 3, 5, 10):
                    got = ranking(query, mode, fusion, limit)
                    assert got == longest[:limit], (query, mode, fusion, limit)
    engine.close()
