"""What has been indexed, file by file, so a restart re-parses nothing that did not change.

A record keeps the file's stat, content digest, parsed note and chunk ids. The manifest is written
after the keyword index commits: if a crash comes between the two, the files that changed since the
last manifest are simply indexed again on the next start (replacing a note is idempotent).

The manifest is a pickle, which is fast to load (the warm start depends on it) but runs code when
loading a file someone crafted. So nothing unpickles a file memlsp did not write: the file carries
an HMAC-SHA256 of its payload under this user's own random key, kept outside any cache and vault,
and is verified before loading; and loading then accepts only the classes a manifest holds, so even
a file signed with a stolen key cannot name a function to call.
"""

from __future__ import annotations

import collections
import gc
import hashlib
import hmac
import io
import logging
import os
import pickle
import secrets
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memlsp import model
from memlsp.model import Note
from memlsp.settings.files import is_private, private_temp_dir, user_config_dir

log = logging.getLogger(__name__)

FORMAT_VERSION = 7
MAGIC = b"memlsp manifest\n"  # then the 32-byte HMAC, then the pickle
KEY_FILE = "manifest.key"
KEY_BYTES = 32


@dataclass(frozen=True, slots=True)
class FileRecord:
    path: str
    mtime_ns: int
    size: int
    digest: str
    note: Note | None  # None: skipped (unreadable, binary, too large), kept to avoid rereading it
    chunk_ids: tuple[str, ...]
    problem: str | None = None  # the reason it was skipped, or a warning such as invalid YAML


@dataclass(slots=True)
class Manifest:
    fingerprint: str  # settings that shape parsing and chunking; a change means re-index all
    records: dict[str, FileRecord] = field(default_factory=dict)
    files: tuple[str, ...] = ()  # the other files (attachments) links could point at
    # The engine's link graph over these notes, saved with them so a warm start resolves nothing.
    # Opaque here: the index layer does not know the vault layer's types.
    graph: Any = None

    def save(self, path: Path) -> bool:
        """Whether it was saved (it is not, with a warning, when there is no key to sign it)."""
        try:
            key = manifest_key()
        except OSError as error:
            log.warning("manifest not saved: %s", error)
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        with gc_paused():
            payload = pickle.dumps(
                {
                    "format": FORMAT_VERSION,
                    "fingerprint": self.fingerprint,
                    "records": self.records,
                    "files": self.files,
                    "graph": self.graph,
                },
                protocol=pickle.HIGHEST_PROTOCOL,
            )
        with open(temporary, "wb") as handle:
            handle.write(MAGIC)
            handle.write(_mac(key, payload))
            handle.write(payload)
        os.replace(temporary, path)
        return True

    @classmethod
    def load(cls, path: Path, fingerprint: str) -> tuple[Manifest, str | None]:
        """The saved manifest, or an empty one and the reason the saved one cannot be used."""
        if not path.exists():
            return cls(fingerprint), None
        try:
            with open(path, "rb") as handle:
                header = handle.read(len(MAGIC) + hashlib.sha256().digest_size)
                payload = handle.read()
            if not header.startswith(MAGIC):
                raise Refused("it is not a signed memlsp manifest")
            if not hmac.compare_digest(header[len(MAGIC) :], _mac(manifest_key(), payload)):
                raise Refused("its signature does not match this user's key")
            with gc_paused():
                data = _Unpickler(io.BytesIO(payload)).load()
            if not isinstance(data, dict):
                raise Refused("it is not a mapping")
            if data.get("format") != FORMAT_VERSION:
                return cls(
                    fingerprint
                ), f"manifest format {data.get('format')} is not {FORMAT_VERSION}"
            if data.get("fingerprint") != fingerprint:
                return cls(fingerprint), "indexing settings changed"
            records = data["records"]
            if not isinstance(records, dict):
                raise TypeError("records is not a mapping")
        except Exception as error:
            return cls(fingerprint), f"manifest unreadable ({type(error).__name__}: {error})"
        return cls(fingerprint, records, data["files"], data["graph"]), None


class Refused(Exception):
    """A manifest file memlsp will not load: not signed with this user's key, or not its data."""


def signed(payload: bytes, key: bytes) -> bytes:
    """`payload` behind its HMAC, for `load_signed`."""
    return _mac(key, payload) + payload


def load_signed(data: bytes, key: bytes) -> Any:
    """What `signed` signed, loaded as a manifest is (only a manifest's classes); `Refused` when
    the signature does not match."""
    mac, payload = data[: hashlib.sha256().digest_size], data[hashlib.sha256().digest_size :]
    if not hmac.compare_digest(mac, _mac(key, payload)):
        raise Refused("its signature does not match this user's key")
    return _Unpickler(io.BytesIO(payload)).load()


def seal(payload: bytes, key: bytes) -> bytes:
    """A manifest file's bytes for `payload`, signed with `key`."""
    return MAGIC + _mac(key, payload) + payload


def _mac(key: bytes, payload: bytes) -> bytes:
    return hmac.digest(key, payload, "sha256")


# Everything a manifest holds, by the (module, name) pickle records for it; anything else, a
# function above all, is refused. The graph's classes are named rather than imported: the
# index layer may not import the vault layer.
_VALUE_CLASSES: tuple[type, ...] = (
    model.Span,
    model.LinkKind,
    model.Link,
    model.Heading,
    model.Block,
    model.Tag,
    model.Note,
    model.Chunk,
    model.LinkStatus,
    model.Resolution,
    model.ResolvedLink,
    FileRecord,
    set,
    frozenset,
    collections.Counter,
    collections.defaultdict,
)
_ALLOWED: dict[tuple[str, str], type] = {(c.__module__, c.__qualname__): c for c in _VALUE_CLASSES}
_GRAPH_CLASSES = frozenset(
    {
        ("memlsp.vault.link_graph", "LinkGraph"),
        ("memlsp.vault.names", "NameTable"),
        ("memlsp.vault.shared", "SharedMap"),
        ("memlsp.vault.shared", "Members"),
    }
)
# Where a class lived when older manifests were written: they load without re-indexing the vault.
_MOVED = {("memlsp.vault.graph", "LinkGraph"): ("memlsp.vault.link_graph", "LinkGraph")}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        module, name = _MOVED.get((module, name), (module, name))
        found = _ALLOWED.get((module, name))
        if found is not None:
            return found
        if (module, name) in _GRAPH_CLASSES:
            return super().find_class(module, name)
        raise Refused(f"it names {module}.{name}, which a manifest never holds")


# -- the key -------------------------------------------------------------------------------------


def manifest_key() -> bytes:
    """This user's key for signing manifests, made on first use: in the user config folder (a
    cache copied from elsewhere, or planted, is then not trusted), else in the user's private
    folder under the system temp folder. Raises OSError when neither can hold one."""
    try:
        return _key_in(user_config_dir())
    except OSError as error:
        problem = str(error)
    log.warning("%s; manifests are signed with a key in the system temp folder instead", problem)
    try:
        return _key_in(private_temp_dir())
    except OSError as error:
        raise OSError(f"no key to sign manifests with: {problem}; {error}") from error


def _key_in(folder: Path) -> bytes:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / KEY_FILE
    if not path.exists() and not path.is_symlink():
        _create_key(path)
    if not is_private(path):
        raise PermissionError(f"{path} must be a file of this user's, mode 600")
    with open(path, "rb") as handle:
        key = handle.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise OSError(f"{path} is not a memlsp key ({len(key)} bytes)")
    return key


def _create_key(path: Path) -> None:
    """Write a new random key under a private name, then link it into place: a process racing
    this one sees either no key or a whole one, and the first key made is the one kept."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(temporary, flags, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
        with suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


@contextmanager
def gc_paused() -> Iterator[None]:
    """For bulk loads of long-lived objects: ~100k objects and no cycles.

    Collections in between only cost time, and afterwards the loaded objects are moved out of the
    collector's sight (`gc.freeze`) so later collections do not walk them again and again.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
