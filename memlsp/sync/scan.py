"""Walk a vault safely and read its files (DESIGN §7: bad files are skipped, never fatal).

Dot-folders (`.obsidian`, `.trash`, `.git`) and configured names are skipped; symlinks are followed
only while they stay inside the vault, each real folder once (so loops end); FIFOs and other
special files are never opened; nothing outside the vault is read.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from memlsp.config import Settings
from memlsp.model import Skipped

_BINARY_PROBE = 8192


@dataclass(frozen=True, slots=True)
class FileStat:
    path: str  # vault-relative, forward slashes
    mtime_ns: int
    size: int


@dataclass(slots=True)
class VaultScan:
    indexable: dict[str, FileStat] = field(default_factory=dict)  # notes and record files
    files: list[str] = field(default_factory=list)  # everything else a link may point at
    skipped: list[Skipped] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FileText:
    text: str | None  # None when the file was skipped
    digest: str
    problem: str | None  # a reason to skip (text None) or a warning (text present)


def is_indexable(name: str, settings: Settings) -> bool:
    return name.lower().endswith(settings.note_suffixes + settings.record_suffixes)


def scan_vault(root: Path, settings: Settings, avoid: tuple[Path, ...] = ()) -> VaultScan:
    scan = VaultScan()
    real_root = root.resolve()
    avoided = {path.resolve() for path in avoid}
    seen_dirs: set[tuple[int, int]] = set()
    stack: list[tuple[Path, str]] = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            stat = folder.stat()
            if (stat.st_dev, stat.st_ino) in seen_dirs:
                scan.skipped.append(
                    Skipped(
                        prefix.rstrip("/"),
                        "symlink to a folder already indexed (a loop?); not followed",
                    )
                )
                continue
            seen_dirs.add((stat.st_dev, stat.st_ino))
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as error:
            scan.skipped.append(
                Skipped(prefix.rstrip("/") or ".", f"folder unreadable: {error.strerror}")
            )
            continue
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            if entry.name.startswith(".") or entry.name in settings.exclude:
                continue
            _visit(entry, rel, real_root, avoided, settings, scan, stack)
    scan.files.sort()
    return scan


def _visit(
    entry: os.DirEntry[str],
    rel: str,
    real_root: Path,
    avoided: set[Path],
    settings: Settings,
    scan: VaultScan,
    stack: list[tuple[Path, str]],
) -> None:
    try:
        if entry.is_symlink():
            target = Path(entry.path).resolve()
            if not target.is_relative_to(real_root):
                scan.skipped.append(Skipped(rel, "symlink points outside the vault; not followed"))
                return
            if not target.exists():
                scan.skipped.append(Skipped(rel, "broken symlink"))
                return
        if entry.is_dir():
            if Path(entry.path).resolve() not in avoided:
                stack.append((Path(entry.path), rel + "/"))
            return
        if not entry.is_file():
            scan.skipped.append(Skipped(rel, "not a regular file"))
            return
        if is_indexable(entry.name, settings):
            stat = entry.stat()
            scan.indexable[rel] = FileStat(rel, stat.st_mtime_ns, stat.st_size)
        else:
            scan.files.append(rel)
    except OSError as error:
        scan.skipped.append(Skipped(rel, f"unreadable: {error.strerror or error}"))


def text_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def read_text(root: Path, stat: FileStat, settings: Settings) -> FileText:
    """The file's text, or why it cannot be indexed. UTF-8, else decoded with replacement."""
    if stat.size > settings.max_file_bytes:
        limit = settings.max_file_bytes / 1e6
        return FileText(None, "", f"too large ({stat.size / 1e6:.1f} MB > {limit:g} MB limit)")
    try:
        with open(root / stat.path, "rb") as handle:
            data = handle.read(settings.max_file_bytes + 1)
    except OSError as error:
        return FileText(None, "", f"unreadable: {error.strerror or error}")
    if len(data) > settings.max_file_bytes:
        return FileText(None, "", f"too large (over {settings.max_file_bytes / 1e6:g} MB limit)")
    digest = text_digest(data)
    if b"\0" in data[:_BINARY_PROBE]:
        return FileText(None, digest, "binary file (NUL bytes); skipped")
    try:
        return FileText(data.decode("utf-8-sig"), digest, None)
    except UnicodeDecodeError as error:
        text = data.decode("utf-8-sig", errors="replace")
        return FileText(
            text, digest, f"not valid UTF-8 at byte {error.start}; decoded with replacement"
        )
