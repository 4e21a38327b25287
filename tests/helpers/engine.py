"""An `Engine` over a real tantivy index in a temporary folder, and asking it things."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memlsp.engine.backfill import Backfill
from memlsp.engine.engine import Engine
from memlsp.model import SearchRequest, SearchResponse
from memlsp.settings.table import Settings
from memlsp.vault.view import VaultView
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import write_notes


def open_engine(vault: Path, cache: Path, **settings: object) -> Engine:
    """Keyword-only unless the test asks for an embedder: vectors have tests of their own."""
    settings.setdefault("embedder", "none")
    return Engine.open(vault, Settings(cache_dir=cache, **settings))  # type: ignore[arg-type]


def open_indexed(vault: Path, cache: Path, **settings: object) -> Engine:
    """`open_engine`, then the whole vault indexed."""
    engine = open_engine(vault, cache, **settings)
    engine.refresh()
    return engine


def indexed_engine(root: Path, files: Mapping[str, str]) -> Engine:
    """An indexed engine, keyword side only, on a vault of `files` (path -> text) written under
    `root/vault`, its cache in `root/cache`."""
    return open_indexed(write_notes(root / "vault", files), root / "cache")


def embed_all(engine: Engine) -> int:
    """Embed until nothing is pending, as the server does; how many chunks were stored."""
    backfill = Backfill(engine, batch=100)
    last = backfill.run()
    if not last.done:
        raise AssertionError(f"backfill did not finish: {last}")
    return backfill.embedded


def embedded_vault(
    root: Path, notes: dict[str, str], embedder: FakeEmbedder, **settings: object
) -> Engine:
    """An engine over a vault of these notes (path -> text), indexed and every chunk embedded by
    the deterministic embedder; the cache sits beside the vault."""
    write_notes(root / "vault", notes)
    chosen = Settings(cache_dir=root / "cache", **settings)  # type: ignore[arg-type]
    engine = Engine.open(root / "vault", chosen, embedder)
    engine.refresh()
    embed_all(engine)
    return engine


def view_of(engine: Engine) -> VaultView:
    """The engine's view of its vault for navigation, as of now."""
    return engine.read().view


def ask(engine: Engine, query: str, **request: Any) -> SearchResponse:
    """A search without link expansion (its own tests ask for it); `request` sets any other
    field of the SearchRequest."""
    request.setdefault("expand", False)
    return engine.read().search(SearchRequest(query=query, **request))


def paths_found(engine: Engine, query: str, **request: Any) -> list[str]:
    response = engine.read().search(SearchRequest(query=query, **request))
    return [hit.chunk.path for hit in response.hits]


def cursor(engine: Engine, path: str, needle: str, into: int = 2) -> tuple[int, int]:
    """(line, column) `into` code points after the first `needle` in the file."""
    text = (engine.root / path).read_text(encoding="utf-8")
    for number, line in enumerate(text.split("\n")):
        if needle in line:
            return number, line.index(needle) + into
    raise AssertionError(f"{needle!r} not in {path}")
