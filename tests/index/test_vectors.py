"""The semantic side through the engine: real tantivy, real embedded Chroma, a deterministic embedder.

Every test runs in its own temp folders. The only fake is `FakeEmbedder` (hashed bags of words), so
which chunk is nearest to a query can be reasoned about without a model.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import chromadb
import pytest
from chromadb.config import Settings as ChromaSettings

from memlsp.engine.engine import Engine
from memlsp.index.vectors import collection_name
from memlsp.model import SearchResponse
from memlsp.parse.prose import embeds
from memlsp.settings.table import Settings
from tests.helpers.engine import ask, embed_all
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import touch_later, write

LIMIT = 50  # every chunk of these small vaults
NOTES = {
    "garden.md": "# Garden\n\nTomatoes and basil grow in the sunny garden bed.\n",
    "vehicles.md": "# Vehicles\n\nMy car needs new tyres before the winter trip.\n",
    "astronomy.md": (
        "# Astronomy\n\nA quasar outshines every star of its host galaxy.\n\n"
        "## Nebula\n\nA nebula is a cloud of gas and dust.\n"
    ),
    "kitchen.md": "# Kitchen\n\nBasil pesto with pine nuts and garlic.\n",
    "music.md": "# Music\n\nThe violin and the cello play a slow duet.\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for path, text in NOTES.items():
        write(root, path, text)
    return root


def open_vectors(vault: Path, cache: Path, embedder: FakeEmbedder, **settings: object) -> Engine:
    settings.setdefault("vector_retry_seconds", 0.05)
    engine = Engine.open(vault, Settings(cache_dir=cache, **settings), embedder)  # type: ignore[arg-type]
    engine.refresh()
    return engine


def plan(engine: Engine) -> None:
    """Connect and compare the store with the index, embedding nothing."""
    assert engine.plan_vectors()


def paths(response: SearchResponse) -> list[str]:
    return [hit.chunk.path for hit in response.hits]


def order(response: SearchResponse) -> list[tuple[str, str, float]]:
    return [(hit.chunk.path, hit.chunk.id, hit.score) for hit in response.hits]


@pytest.fixture
def embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def engine(vault: Path, tmp_path: Path, embedder: FakeEmbedder) -> Iterator[Engine]:
    engine = open_vectors(vault, tmp_path / "cache", embedder)
    yield engine
    engine.close()


@pytest.fixture
def ready(engine: Engine) -> Engine:
    embed_all(engine)
    status = engine.read().vectors.status
    assert status.state == "ready" and status.pending == 0 and status.stored > 0
    return engine


# -- 1. evidence ----------------------------------------------------------------------------------


def test_hybrid_hit_carries_evidence_from_both_sides(ready: Engine) -> None:
    response = ask(ready, "tomatoes garden", limit=LIMIT)
    first = response.hits[0]
    assert first.chunk.path == "garden.md"
    assert first.keyword_rank == 1 and first.keyword_score is not None and first.keyword_score > 0
    assert first.vector_rank == 1 and first.vector_score is not None and first.vector_score > 0
    assert response.counts.keyword > 0 and response.counts.vector > 0
    assert response.counts.hybrid is True
    assert response.mode == "hybrid" and response.warnings == ()
    # Chunks only the vector side found are there too, without keyword evidence.
    vector_only = [hit for hit in response.hits if hit.keyword_rank is None]
    assert vector_only
    assert all(hit.keyword_score is None and hit.vector_rank for hit in vector_only)


def test_keyword_mode_has_no_vector_evidence(ready: Engine) -> None:
    response = ask(ready, "tomatoes garden", limit=LIMIT, mode="keyword")
    assert paths(response)[0] == "garden.md"
    assert response.counts.vector == 0 and response.counts.hybrid is False
    assert response.counts.keyword > 0
    for hit in response.hits:
        assert hit.vector_score is None and hit.vector_rank is None
        assert hit.keyword_rank is not None


def test_vector_mode_has_no_keyword_evidence(ready: Engine) -> None:
    response = ask(ready, "tomatoes garden", limit=LIMIT, mode="vector")
    assert paths(response)[0] == "garden.md"
    assert response.counts.keyword == 0 and response.counts.hybrid is False
    assert response.counts.vector > 0
    for hit in response.hits:
        assert hit.keyword_score is None and hit.keyword_rank is None
        assert hit.vector_rank is not None and hit.vector_score is not None


# -- 2. meaning without shared words ----------------------------------------------------------------


def test_semantic_hit_without_a_shared_word(ready: Engine, embedder: FakeEmbedder) -> None:
    embedder.synonyms = {"automobile": "car"}
    for mode in ("vector", "hybrid"):
        response = ask(ready, "automobile", limit=LIMIT, mode=mode)
        first = response.hits[0]
        assert first.chunk.path == "vehicles.md", mode
        assert first.keyword_rank is None and first.vector_rank == 1
        assert first.matched_terms == ()
    keyword = ask(ready, "automobile", limit=LIMIT, mode="keyword")
    assert "vehicles.md" not in paths(keyword)
    assert keyword.counts.keyword == 0


# -- 3. vectors cached by content ------------------------------------------------------------------


def test_renaming_a_note_reuses_its_vectors(
    ready: Engine, vault: Path, embedder: FakeEmbedder
) -> None:
    calls = embedder.calls
    assert ready.vector_side.store is not None
    count = ready.vector_side.store.count()
    old_ids = {chunk.id for chunk in ready.read().keyword.chunks_of("garden.md")}
    (vault / "garden.md").rename(vault / "backyard.md")
    ready.refresh_paths(["garden.md", "backyard.md"])
    new_ids = {chunk.id for chunk in ready.read().keyword.chunks_of("backyard.md")}
    assert new_ids and new_ids.isdisjoint(old_ids)  # the ids hash the path

    assert embed_all(ready) == len(new_ids)  # stored again under the new ids...
    assert embedder.calls == calls  # ...from the content cache, not embedded again
    assert ready.vector_side.store.count() == count
    stored = ready.vector_side.store.ids()
    assert new_ids <= stored and not old_ids & stored
    response = ask(ready, "tomatoes garden", limit=LIMIT, mode="vector")
    assert paths(response)[0] == "backyard.md"
    assert "garden.md" not in paths(response)


def test_editing_one_section_embeds_only_that_section(
    ready: Engine, vault: Path, embedder: FakeEmbedder
) -> None:
    text = (
        "# Travel\n\n## Paris\n\nThe museum opens at nine.\n\n"
        "## Rome\n\nThe forum is old and vast.\n\n## Oslo\n\nThe fjord is cold.\n"
    )
    note = write(vault, "travel.md", text)
    ready.refresh_paths(["travel.md"])
    embed_all(ready)
    before = {chunk.id: chunk for chunk in ready.read().keyword.chunks_of("travel.md")}
    assert len(before) == 4  # the title line, then three sections
    calls = embedder.calls

    write(vault, "travel.md", text.replace("old and vast", "older than the city walls"))
    touch_later(note)
    ready.refresh_paths(["travel.md"])
    after = {chunk.id: chunk for chunk in ready.read().keyword.chunks_of("travel.md")}
    changed = set(after) - set(before)
    assert len(changed) == 1 and after[changed.pop()].heading == "Rome"

    assert embed_all(ready) == 1
    assert embedder.calls == calls + 1
    prose = {chunk_id for chunk_id in after if embeds(chunk_id)}  # the title line is not prose
    assert len(prose) == 3 and prose <= ready.vector_side.store.ids()  # type: ignore[union-attr]


# -- 4. deleted notes -------------------------------------------------------------------------------


def test_deleted_notes_leave_the_store_and_the_results(ready: Engine, vault: Path) -> None:
    store = ready.vector_side.store
    assert store is not None
    count = store.count()
    gone = {chunk.id for chunk in ready.read().keyword.chunks_of("astronomy.md")}
    assert len(gone) == 2  # the H1 with its paragraph, then the Nebula section
    (vault / "astronomy.md").unlink()
    ready.refresh()
    # Before the store catches up, its vectors are already kept out of the results.
    for mode in ("hybrid", "vector", "keyword"):
        assert "astronomy.md" not in paths(
            ask(ready, "quasar nebula galaxy", limit=LIMIT, mode=mode)
        )

    embed_all(ready)
    assert ready.vector_side.store is store
    assert store.count() == count - len(gone)
    assert not gone & store.ids()
    assert ready.read().vectors.status.stored == count - len(gone)
    for mode in ("hybrid", "vector"):
        assert "astronomy.md" not in paths(
            ask(ready, "quasar nebula galaxy", limit=LIMIT, mode=mode)
        )


# -- 5. resume after a restart ---------------------------------------------------------------------


def test_backfill_resumes_after_a_restart(vault: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = FakeEmbedder()
    engine = open_vectors(vault, cache, first)
    plan(engine)
    total = engine.read().vectors.status.pending
    assert total == engine.read().keyword.chunk_count() == 6
    assert engine.embed_step(2) == 2
    assert first.calls == 2
    engine.close()

    second = FakeEmbedder()  # same id: the stored vectors are its own
    engine = open_vectors(vault, cache, second)
    try:
        plan(engine)
        status = engine.read().vectors.status
        assert status.state == "ready" and status.embedder == first.id
        assert status.stored == 2 and status.pending == total - 2
        assert embed_all(engine) == total - 2
        assert second.calls == total - 2
        assert engine.read().vectors.status.stored == total
        assert engine.vector_side.store is not None and engine.vector_side.store.count() == total
    finally:
        engine.close()


# -- 6. degrade and recover ------------------------------------------------------------------------


def test_failing_embedder_degrades_to_keywords_then_recovers(
    engine: Engine, embedder: FakeEmbedder
) -> None:
    embedder.fail = True
    assert engine.embed_step(16) == 0  # raised inside, caught: nothing stored
    assert engine.read().vectors.status.state == "unavailable"
    for mode in ("hybrid", "vector"):
        response = ask(engine, "tomatoes garden", limit=LIMIT, mode=mode)
        assert engine.read().vectors.status.state == "unavailable"
        assert any("unavailable" in warning for warning in response.warnings)
        assert response.counts.hybrid is False and response.counts.vector == 0
    response = ask(engine, "tomatoes garden", limit=LIMIT)
    assert paths(response)[0] == "garden.md" and response.counts.keyword > 0
    assert all(hit.vector_score is None for hit in response.hits)

    embedder.fail = False
    time.sleep(0.1)  # past vector_retry_seconds
    assert embed_all(engine) == engine.read().keyword.chunk_count()
    status = engine.read().vectors.status
    assert status.state == "ready" and status.pending == 0 and status.problem == ""
    response = ask(engine, "tomatoes garden", limit=LIMIT)
    assert response.counts.hybrid is True and response.warnings == ()
    assert response.hits[0].vector_rank == 1 and response.hits[0].keyword_rank == 1


def test_embedder_failing_at_query_time_degrades(ready: Engine, embedder: FakeEmbedder) -> None:
    embedder.fail = True
    response = ask(ready, "tomatoes garden", limit=LIMIT)
    assert paths(response)[0] == "garden.md"
    assert response.warnings and "keyword results only" in response.warnings[0]
    assert ready.read().vectors.status.state == "unavailable"
    embedder.fail = False
    time.sleep(0.1)
    assert ready.embed_step(16) == 0  # reconnects; everything was already stored
    assert ready.read().vectors.status.state == "ready"
    assert ask(ready, "tomatoes garden", limit=LIMIT).counts.hybrid is True


# -- 7. embedder changed ---------------------------------------------------------------------------


def test_changing_the_embedder_rebuilds_its_own_collection(vault: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    engine = open_vectors(vault, cache, FakeEmbedder())
    embed_all(engine)
    folder = engine.cache_dir / "vectors"
    assert folder.is_dir()
    engine.close()

    other = FakeEmbedder(dimension=32, name="other")
    engine = open_vectors(vault, cache, other)
    try:
        # Keyword search works before any vector of the new embedder exists.
        response = ask(engine, "tomatoes garden", limit=LIMIT)
        assert paths(response)[0] == "garden.md"
        assert response.hits[0].keyword_rank == 1
        plan(engine)
        status = engine.read().vectors.status
        assert status.embedder == "other-32" and status.state == "ready"
        assert status.stored == 0 and status.pending == engine.read().keyword.chunk_count()
        vault_id = str(vault.resolve())
        old, new = collection_name(vault_id, "fake-64"), collection_name(vault_id, "other-32")
        assert engine.vector_side.store is not None and engine.vector_side.store.dropped == [old]
        client = chromadb.PersistentClient(
            path=str(folder), settings=ChromaSettings(anonymized_telemetry=False)
        )
        names = {getattr(c, "name", c) for c in client.list_collections()}
        assert old not in names and new in names
        response = ask(engine, "tomatoes garden", limit=LIMIT, mode="keyword")
        assert paths(response)[0] == "garden.md"
        response = ask(
            engine, "tomatoes garden", limit=LIMIT
        )  # hybrid asked, keywords answer meanwhile
        assert paths(response)[0] == "garden.md" and response.counts.vector == 0
        assert response.warnings == (
            "vectors cover 0% of chunks; notes not yet embedded are found by their words only",
        )

        total = engine.read().keyword.chunk_count()
        assert embed_all(engine) == total
        assert other.calls == total  # the cache holds vectors per embedder: none reused
        response = ask(engine, "tomatoes garden", limit=LIMIT)
        assert response.counts.hybrid is True and response.counts.vector > 0
        assert response.hits[0].vector_rank == 1
        assert len(response.hits[0].chunk.id) > 0
    finally:
        engine.close()


# -- 8. date filters -------------------------------------------------------------------------------


def test_date_filters_are_inclusive_on_the_vector_side(tmp_path: Path) -> None:
    root = tmp_path / "dated"
    for name, date in (("may1", "2024-05-01"), ("may10", "2024-05-10"), ("june", "2024-06-01")):
        write(root, f"{name}.md", f"---\ndate: {date}\n---\n# Lantern {name}\n\nA paper lantern.\n")
    write(root, "undated.md", "# Lantern undated\n\nA paper lantern.\n")
    engine = open_vectors(root, tmp_path / "cache", FakeEmbedder())
    try:
        embed_all(engine)
        cases = [
            ({}, {"may1.md", "may10.md", "june.md", "undated.md"}),
            ({"start_date": "2024-05-01", "end_date": "2024-05-10"}, {"may1.md", "may10.md"}),
            ({"start_date": "2024-05-10", "end_date": "2024-05-10"}, {"may10.md"}),
            ({"start_date": "2024-05-10"}, {"may10.md", "june.md"}),
            ({"end_date": "2024-05-01"}, {"may1.md"}),
            ({"start_date": "2025-01-01"}, set()),
        ]
        for dates, wanted in cases:
            for mode in ("vector", "hybrid"):
                response = ask(engine, "paper lantern", limit=LIMIT, mode=mode, **dates)
                assert set(paths(response)) == wanted, (mode, dates)
                assert response.counts.vector == len(wanted), (mode, dates)
        # Vector-only hits (no shared word) are held to the dates as well.
        engine.vector_side.embedder.synonyms = {"shade": "lantern"}  # type: ignore[union-attr]
        response = ask(engine, "shade", limit=LIMIT, mode="hybrid", start_date="2024-05-02")
        assert response.counts.keyword == 0
        assert set(paths(response)) == {"may10.md", "june.md"}
    finally:
        engine.close()


# -- 9. one meaning of score and min_score -----------------------------------------------------------


@pytest.mark.parametrize("mode", ["hybrid", "keyword", "vector"])
def test_first_on_every_side_scores_the_query_strength_and_min_score_cuts_the_tail(
    ready: Engine, mode: str
) -> None:
    response = ask(ready, "quasar galaxy", limit=LIMIT, mode=mode)
    first = response.hits[0]
    assert first.chunk.path == "astronomy.md" and first.chunk.heading == ""
    assert all(rank in (None, 1) for rank in (first.keyword_rank, first.vector_rank))
    # Fused 1.0 (first on every side) times how well the query is answered at all.
    assert 0 < response.strength <= 1
    assert first.score == pytest.approx(response.strength, abs=1e-6)
    scores = [hit.score for hit in response.hits]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= score <= response.strength + 1e-9 for score in scores)

    if len(scores) > 1:
        threshold = (scores[0] + scores[1]) / 2
        cut = ask(ready, "quasar galaxy", limit=LIMIT, mode=mode, min_score=threshold)
        assert order(cut) == order(response)[:1]
    middle = scores[len(scores) // 2]
    cut = ask(ready, "quasar galaxy", limit=LIMIT, mode=mode, min_score=middle)
    assert order(cut) == [item for item in order(response) if item[2] >= middle]
    top = ask(ready, "quasar galaxy", limit=LIMIT, mode=mode, min_score=first.score)
    assert paths(top) == ["astronomy.md"], f"the top score is {first.score!r}"


def test_ties_break_the_same_way_every_time(tmp_path: Path) -> None:
    root = tmp_path / "ties"
    # "z-keyword" leads the keywords, "a-vector" the vectors (its "okapi" embeds as "zebra").
    write(root, "z-keyword.md", "# Plains\n\nzebra zebra grass trees rocks river sand\n")
    write(root, "a-vector.md", "# Savanna\n\nzebra okapi okapi okapi\n")
    write(root, "m-other.md", "# Forest\n\nmoss ferns and tall pines\n")
    for name in ("twin-b.md", "twin-a.md"):
        write(root, name, "# Twin\n\nIdentical words about a lighthouse keeper.\n")
    embedder = FakeEmbedder()
    embedder.synonyms = {"okapi": "zebra"}
    engine = open_vectors(root, tmp_path / "cache", embedder, vector_weight=0.5)
    try:
        embed_all(engine)
        # Two notes with the same words tie on both sides, hence in the fused score too...
        twins = [
            h
            for h in ask(engine, "lighthouse keeper", limit=LIMIT).hits
            if h.chunk.path.startswith("twin")
        ]
        assert [h.score for h in twins] == [twins[0].score] * 2
        assert [h.chunk.path for h in twins] == ["twin-a.md", "twin-b.md"]  # ...broken by path
        for query in ("zebra", "lighthouse keeper"):
            for mode in ("hybrid", "keyword", "vector"):
                runs = [order(ask(engine, query, limit=LIMIT, mode=mode)) for _ in range(2)]
                assert runs[0] == runs[1], (query, mode)
        keyword = ask(engine, "lighthouse keeper", limit=LIMIT, mode="keyword")
        assert keyword.hits[0].keyword_score == keyword.hits[1].keyword_score
        assert paths(keyword)[:2] == ["twin-a.md", "twin-b.md"]  # equal scores: by path
    finally:
        engine.close()


# -- 10. recency ------------------------------------------------------------------------------------


def test_most_recently_changed_note_is_embedded_first(ready: Engine, vault: Path) -> None:
    store = ready.vector_side.store
    assert store is not None
    # Two notes change: "garden" long ago (an old mtime), "vehicles" just now. "garden" sorts
    # first by name, so only recency puts "vehicles" first.
    old = write(vault, "garden.md", NOTES["garden.md"].replace("sunny", "shady"))
    stamp = old.stat().st_mtime_ns - 10**12
    os.utime(old, ns=(stamp, stamp))
    new = write(vault, "vehicles.md", NOTES["vehicles.md"].replace("winter", "summer"))
    touch_later(new)
    ready.refresh_paths(["garden.md", "vehicles.md"])
    fresh_new = {c.id for c in ready.read().keyword.chunks_of("vehicles.md")} - store.ids()
    fresh_old = {c.id for c in ready.read().keyword.chunks_of("garden.md")} - store.ids()
    assert len(fresh_new) == 1 and len(fresh_old) == 1

    assert ready.embed_step(1) == 1
    stored = store.ids()
    assert fresh_new <= stored and not fresh_old & stored
    assert ready.read().vectors.status.pending == 1
    assert ready.embed_step(1) == 1
    assert fresh_old <= store.ids()


def test_an_open_note_and_the_notes_it_links_are_embedded_first(
    engine: Engine, vault: Path
) -> None:
    """Before any other note: the note open in the editor, then the notes it links to and from,
    whatever their age; the rest after, most recent first."""
    for path in NOTES:
        touch_later(vault / path)
    oldest = (vault / "astronomy.md").stat().st_mtime_ns - 10**12
    os.utime(vault / "astronomy.md", ns=(oldest, oldest))  # last, by its age alone
    engine.refresh()
    engine.apply_text("garden.md", NOTES["garden.md"] + "\nSee [[astronomy]].\n")
    snapshot = engine.read()
    path_of = {c.id: path for path in NOTES for c in snapshot.keyword.chunks_of(path)}
    order: list[str] = []
    stored: set[str] = set()
    while engine.embed_step(1):
        store = engine.vector_side.store
        assert store is not None
        fresh = store.ids() - stored
        stored |= fresh
        order += sorted(path_of[chunk_id] for chunk_id in fresh)
    # One chunk a step: the opened note's one, then astronomy's two, then the others.
    assert order[:3] == ["garden.md", "astronomy.md", "astronomy.md"]
    assert set(order[3:]) == set(NOTES) - {"garden.md", "astronomy.md"}
