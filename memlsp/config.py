"""One typed, frozen settings object, and where each vault's cache lives."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Settings:
    max_chunk_tokens: int = 512
    max_file_bytes: int = 10_000_000
    note_suffixes: tuple[str, ...] = (".md", ".markdown")
    record_suffixes: tuple[str, ...] = (".jsonl",)
    exclude: tuple[str, ...] = ()  # folder or file names skipped anywhere, besides dot-folders
    candidate_multiplier: int = 5
    max_candidates: int = 200
    expand_limit: int = 10
    cache_dir: Path | None = None  # default: $XDG_CACHE_HOME/memlsp/<vault name>-<hash>


def default_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memlsp"


def cache_dir_for(vault: Path, settings: Settings) -> Path:
    """A per-vault folder outside the vault, named so a person can tell which vault it serves."""
    if settings.cache_dir is not None:
        return settings.cache_dir
    resolved = vault.resolve()
    digest = hashlib.sha1(str(resolved).encode(), usedforsecurity=False).hexdigest()[:12]
    name = re.sub(r"[^\w.-]+", "_", resolved.name) or "vault"
    return default_cache_root() / f"{name}-{digest}"
