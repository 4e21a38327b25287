"""The one embedding loop (memlsp.engine.backfill): what each step says, and the content cache it keeps to
the vault's texts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memlsp.engine.backfill import Backfill
from memlsp.engine.engine import Engine
from memlsp.settings.table import Settings
from tests.helpers.engine import embedded_vault
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import write

NOTES = {
    "a.md": "# A\n\nThe harbour lantern is lit at dusk.\n",
    "b.md": "# B\n\nTomatoes ripen in the greenhouse.\n",
    "c.md": "# C\n\nThe violin and the cello play a duet.\n",
}


def cached(engine: Engine) -> int:
    """How many vectors of this engine's embedder the content cache holds."""
    cache, embedder = engine.vector_side.cache, engine.vector_side.embedder
    assert cache is not None and embedder is not None
    rows = cache._db.execute("SELECT COUNT(*) FROM vectors WHERE embedder = ?", (embedder.id,))
    return int(rows.fetchone()[0])


def indexed(root: Path, embedder: FakeEmbedder, **settings: object) -> Engine:
    """An engine over NOTES, indexed and nothing embedded yet."""
    for path, text in NOTES.items():
        write(root / "vault", path, text)
    chosen = Settings(cache_dir=root / "cache", **settings)  # type: ignore[arg-type]
    engine = Engine.open(root / "vault", chosen, embedder)
    engine.refresh()
    return engine


def test_steps_say_what_happened_until_done(tmp_path: Path) -> None:
    engine = indexed(tmp_path, FakeEmbedder())
    try:
        backfill = Backfill(engine, batch=2)
        planned = backfill.plan()
        assert (planned.embedded, planned.pending, planned.state) == (0, 3, "ready")
        assert not planned.done and not planned.blocked
        first = backfill.step()
        assert (first.embedded, first.pending) == (2, 1)
        seen: list[int] = []
        last = backfill.run(progress=lambda step: seen.append(step.pending))
        assert last.done and last.embedded == 0 and seen == [0]
        assert backfill.embedded == 3
    finally:
        engine.close()


def test_connected_but_not_planned_is_not_ready(tmp_path: Path) -> None:
    engine = indexed(tmp_path, FakeEmbedder())
    try:
        assert engine.vector_side.connect()
        # Nothing is known to be pending before the plan: "ready, 0 pending" would be a lie.
        assert engine.read().vectors.status.state == "connecting"
        planned = Backfill(engine).plan()
        assert (planned.state, planned.pending) == ("ready", 3)
    finally:
        engine.close()


def test_a_failing_model_blocks_and_the_next_run_goes_on(tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    engine = indexed(tmp_path, embedder, vector_retry_seconds=0.01)
    try:
        embedder.fail = True
        stuck = Backfill(engine).run()
        assert stuck.blocked and not stuck.done and stuck.state == "unavailable"
        assert "fail" in stuck.problem
        embedder.fail = False
        engine.vector_side.retry_now()  # the retry time has passed
        assert Backfill(engine).run().done
    finally:
        engine.close()


def test_a_finished_backfill_drops_cached_vectors_of_texts_that_are_gone(tmp_path: Path) -> None:
    engine = embedded_vault(tmp_path, NOTES, FakeEmbedder())
    try:
        assert cached(engine) == 3
        (tmp_path / "vault" / "b.md").unlink()
        write(tmp_path / "vault", "a.md", "# A\n\nThe harbour lantern is lit at midnight.\n")
        engine.refresh()
        backfill = Backfill(engine)
        assert backfill.run().done and backfill.embedded == 1
        # Left: c.md's text and a.md's new one; b.md's and a.md's old text are gone.
        assert cached(engine) == 2
    finally:
        engine.close()


def test_a_step_pauses_between_small_groups_shortest_texts_first(tmp_path: Path) -> None:
    """The language server waits at each pause while a request runs: a request never waits
    behind more than one group of texts."""
    texts = {f"n{i:02}.md": f"# N{i}\n\n" + "word " * (40 - i) + "\n" for i in range(10)}
    for path, text in texts.items():
        write(tmp_path / "vault", path, text)
    embedder = FakeEmbedder()
    calls: list[list[str]] = []
    real = embedder.embed_documents

    def recording(given: Sequence[str]) -> Any:
        calls.append(list(given))
        return real(given)

    embedder.embed_documents = recording  # type: ignore[method-assign,assignment]
    engine = Engine.open(tmp_path / "vault", Settings(cache_dir=tmp_path / "cache"), embedder)
    engine.refresh()
    try:
        pauses: list[int] = []
        step = Backfill(engine, batch=10, pause=lambda: pauses.append(len(calls))).step()
        assert step.embedded == 10
        assert [len(group) for group in calls] == [4, 4, 2]
        assert pauses == [0, 1, 2]  # before the step, then between groups
        lengths = [len(text) for group in calls for text in group]
        assert lengths == sorted(lengths)
    finally:
        engine.close()
