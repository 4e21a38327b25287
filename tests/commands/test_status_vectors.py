"""`memlsp status` with no process: what is embedded and what still waits, read from the store's
file. A chunk that is not prose (a section of images or links only) gets no vector and waits for
none, as the backfill plans it."""

from __future__ import annotations

from pathlib import Path

from memlsp.commands.status import read_only_report
from memlsp.engine.engine import Engine
from memlsp.parse.prose import embeds
from memlsp.settings.table import Settings
from tests.helpers.engine import embed_all
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import write_notes

NOTES = {
    "lamps.md": "# Lamps\n\nA lantern burns oil.\n\n## Pictures\n\n![](a.png) ![](b.png)\n",
    "camping.md": "# Camping\n\nA lantern by the tent.\n",
}


def test_a_vault_wholly_embedded_has_nothing_pending(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    settings = Settings(cache_dir=tmp_path / "cache")
    engine = Engine.open(vault, settings, FakeEmbedder())
    try:
        engine.refresh()
        stored = embed_all(engine)
        records = engine.read().records.values()
        ids = [chunk_id for record in records for chunk_id in record.chunk_ids]
    finally:
        engine.close()
    assert stored == sum(map(embeds, ids)) < len(ids)  # the pictures' section waits for nothing
    report = read_only_report(vault, settings)
    assert (report.vectors.status.stored, report.vectors.status.pending) == (stored, 0)
    assert report.status.chunks == len(ids)
