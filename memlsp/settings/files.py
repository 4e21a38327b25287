"""Where settings are read from, and where each vault's cache lives.

Settings come from the user (editor settings, command-line flags, the user config file) and from a
vault's own `.memlsp.toml`, which may set only what a vault may. memlsp/settings/table.py declares
the settings.
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
from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import Path
from typing import Any

from memlsp.settings.table import (
    DEFAULTS,
    USER_ONLY,
    USER_SETTINGS,
    Settings,
    settings_from,
    user_only,
)

log = logging.getLogger(__name__)

SETTINGS_FILE = ".memlsp.toml"
USER_CONFIG_FILE = "config.toml"


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
    return _load_file(user_config_file(), base or DEFAULTS, "user config")


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
    # Each picked setting keeps the source `given` has for it (the editor, a flag).
    sources = dict(settings.sources) | {key: given.source_of(key) for key in picked}
    return replace(
        settings, **picked, chosen=frozenset(picked), sources=tuple(sorted(sources.items()))
    ), problems


def chosen_part(settings: Settings) -> Settings:
    """Only what the editor or the command line chose, over the defaults."""
    chosen = {key: getattr(settings, key) for key in settings.chosen}
    sources = tuple((key, source) for key, source in settings.sources if key in chosen)
    return replace(DEFAULTS, **chosen, sources=sources)


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
    refused = [key for key, value in data.items() if user_only(key, value)]
    allowed = {k: v for k, v in data.items() if k not in refused and k not in base.chosen}
    settings, more = settings_from(allowed, base, source="vault")
    problems = [f"{path}: {problem}" for problem in more]
    if refused:
        # A setting a vault may give some values of (the embedder) is named with the one it gave.
        names = ", ".join(key if key in USER_ONLY else f"{key} = {data[key]!r}" for key in refused)
        problems.insert(
            0,
            f"{path}: {names} ignored: a vault's own settings file may not choose where memlsp "
            "sends data, what it reads outside the vault or where it writes. Set them yourself in "
            "the editor's memlsp settings, on the command line (--embedder, --chroma-url, "
            f"--cache-dir) or in {user_config_file()}",
        )
    return settings, problems


def _load_file(path: Path, base: Settings, source: str) -> tuple[Settings, list[str]]:
    if not path.is_file():
        return base, []
    data, problems = _read_toml(path)
    if data is None:
        return base, problems
    settings, more = settings_from(data, base, source)
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
