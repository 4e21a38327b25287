"""Small helpers for tests that run the engine over a real tantivy index in a temp folder."""

from __future__ import annotations

import os
from pathlib import Path

from memlsp.backfill import Backfill
from memlsp.config import Settings
from memlsp.engine import Engine
from memlsp.model import SearchRequest
from memlsp.vault.view import VaultView
from tests.fake_embedder import FakeEmbedder


def write(vault: Path, path: str, text: str) -> Path:
    full = vault / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_text(text, encoding="utf-8")
    return full


def touch_later(path: Path) -> None:
    """Move the mtime forward so a rewrite within the same clock tick still counts as a change."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def open_engine(vault: Path, cache: Path, **settings: object) -> Engine:
    """Keyword-only unless the test asks for an embedder: vectors have tests of their own."""
    settings.setdefault("embedder", "none")
    return Engine.open(vault, Settings(cache_dir=cache, **settings))  # type: ignore[arg-type]


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
    for path, text in notes.items():
        write(root / "vault", path, text)
    chosen = Settings(cache_dir=root / "cache", **settings)  # type: ignore[arg-type]
    engine = Engine.open(root / "vault", chosen, embedder)
    engine.refresh()
    embed_all(engine)
    return engine


def view_of(engine: Engine) -> VaultView:
    """The engine's view of its vault for navigation, as of now."""
    return engine.read().view


def paths_found(engine: Engine, query: str, **request: object) -> list[str]:
    response = engine.read().search(SearchRequest(query=query, **request))  # type: ignore[arg-type]
    return [hit.chunk.path for hit in response.hits]


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its size and mtime: proof that nothing was written there."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            stat = path.stat()
            found[str(path.relative_to(folder))] = (stat.st_size, stat.st_mtime_ns)
    return found


def small_vault_engine(root: Path, files: dict[str, str]) -> Engine:
    """An indexed engine, keyword side only, on a vault of `files` written under `root/vault`."""
    for path, text in files.items():
        write(root / "vault", path, text)
    engine = Engine.open(root / "vault", Settings(cache_dir=root / "cache", embedder="none"))
    engine.refresh()
    return engine
