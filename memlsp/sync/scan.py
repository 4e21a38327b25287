"""Walk a vault safely and read its files; bad ones are skipped (docs/vault-safety.md, "Bad files").

Dot-folders (`.obsidian`, `.trash`, `.git`) and configured names are skipped (`VaultRules`);
symlinks are followed only while they stay inside the vault, each real folder once (so loops
end); FIFOs and other special files are never opened; nothing outside the vault is read. `name_problem` decides which
names can be indexed, for the scan, for `stat_path` (single paths the watcher or an editor
reports) and for the watcher itself.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import stat as stat_mode
from dataclasses import dataclass, field
from pathlib import Path

from memlsp.model import Skipped
from memlsp.settings.table import Settings
from memlsp.vault.rules import VaultRules

_BINARY_PROBE = 8192
# What resolving or stat'ing a path can raise besides OSError: RuntimeError for a symlink loop
# (Path.resolve before Python 3.13), ValueError for a NUL byte in the path.
_PATH_ERRORS = (OSError, RuntimeError, ValueError)
_LOOP = "symlink loop; not followed"
# Longest first: the UTF-32 LE mark begins with the UTF-16 LE one.
_BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)


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
    # A note that is a symlink -> the vault path of the file it shows: an edit of that file is
    # reported by the watcher under the file's own path only.
    symlinked: dict[str, str] = field(default_factory=dict)
    # Dot-files and -folders and excluded names met on the walk, never walked into (a folder ends
    # with "/"): so a status can count them without reading `.git`.
    ignored: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FileText:
    text: str | None  # None when the file was skipped
    digest: str
    problem: str | None  # a reason to skip (text None) or a warning (text present)


def is_indexable(name: str, settings: Settings) -> bool:
    return VaultRules.of(settings).indexable(name)


def name_problem(path: str) -> str | None:
    """Why a file or folder cannot be indexed because of its name, or None.

    A name that is not valid UTF-8 reaches Python with surrogate escapes (`caf\\udce9.md`).
    tantivy, the manifest's chunk ids and the protocol's URIs can only carry real text, and any
    repaired spelling would name a file that does not exist: such a file is skipped, and said so.
    """
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return "name is not valid UTF-8; skipped — rename it to index it"
    return None


def stat_path(root: Path, path: str, settings: Settings) -> FileStat | None:
    """The stat of one vault-relative file, or None unless the scan would index it too: a good
    name, an indexable suffix, a regular file, inside the vault once symlinks are resolved."""
    parts = path.split("/")
    if name_problem(path) or not is_indexable(path, settings) or {"", ".", ".."} & set(parts):
        return None
    try:
        real = (root / path).resolve(strict=True)
        if not real.is_relative_to(root.resolve()):
            return None
        found = real.stat()
    except _PATH_ERRORS:
        return None
    if not stat_mode.S_ISREG(found.st_mode):
        return None
    return FileStat(path, found.st_mtime_ns, found.st_size)


def scan_vault(root: Path, settings: Settings, avoid: tuple[Path, ...] = ()) -> VaultScan:
    scan = VaultScan()
    rules = VaultRules.of(settings)
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
        except _PATH_ERRORS as error:
            scan.skipped.append(
                Skipped(prefix.rstrip("/") or ".", f"folder unreadable: {_why(error)}")
            )
            continue
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            if rules.ignored_name(entry.name):
                scan.ignored.append(rel + "/" if _is_folder(entry) else rel)
                continue
            problem = name_problem(entry.name)
            if problem is not None:
                scan.skipped.append(Skipped(rel, problem))
                continue
            _visit(entry, rel, real_root, avoided, rules, scan, stack)
    scan.files.sort()
    return scan


def _visit(
    entry: os.DirEntry[str],
    rel: str,
    real_root: Path,
    avoided: set[Path],
    rules: VaultRules,
    scan: VaultScan,
    stack: list[tuple[Path, str]],
) -> None:
    try:
        if entry.is_symlink():
            refused = _refused_link(Path(entry.path), real_root)
            if refused is not None:
                scan.skipped.append(Skipped(rel, refused))
                return
        if entry.is_dir():
            # Resolving costs a quarter of a rescan; only a folder to avoid needs it.
            if not avoided or Path(entry.path).resolve() not in avoided:
                stack.append((Path(entry.path), rel + "/"))
            return
        if not entry.is_file():
            scan.skipped.append(Skipped(rel, "not a regular file"))
            return
        if rules.indexable(entry.name):
            stat = entry.stat()
            scan.indexable[rel] = FileStat(rel, stat.st_mtime_ns, stat.st_size)
            if entry.is_symlink():
                target = Path(entry.path).resolve().relative_to(real_root).as_posix()
                scan.symlinked[rel] = target
        else:
            scan.files.append(rel)
    except _PATH_ERRORS as error:
        scan.skipped.append(Skipped(rel, f"unreadable: {_why(error)}"))


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _refused_link(link: Path, real_root: Path) -> str | None:
    """Why a symlink is not followed (a loop, broken, outside the vault), or None."""
    try:
        target = link.resolve(strict=True)
    except RuntimeError:
        return _LOOP
    except OSError as error:
        if error.errno == errno.ELOOP:
            return _LOOP
        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            return "broken symlink"
        raise
    if not target.is_relative_to(real_root):
        return "symlink points outside the vault; not followed"
    return None


# Why a file is skipped or warned about, as a word from a fixed vocabulary, told by the start of the
# reasons this module (and the parser, for frontmatter) writes: the one place that classifies them.
_KINDS = (
    ("symlink loop", "symlink_loop"),
    ("symlink to a folder already indexed", "symlink_loop"),
    ("broken symlink", "broken_symlink"),
    ("symlink points outside", "symlink_outside"),
    ("folder unreadable", "unreadable"),
    ("unreadable frontmatter", "invalid_frontmatter"),
    ("unreadable", "unreadable"),
    ("not a regular file", "not_a_file"),
    ("name is not valid", "bad_name"),
    ("too large", "too_large"),
    ("binary file", "binary"),
    ("not valid ", "not_utf8"),
    ("invalid YAML frontmatter", "invalid_frontmatter"),
    ("frontmatter", "invalid_frontmatter"),
    ("over the limits of one note", "over_limits"),
)


def problem_kind(reason: str) -> str:
    """The kind of a skip reason or warning this module or the parser wrote (`too_large`,
    `binary`, `not_utf8`, `invalid_frontmatter`...); `other` for anything else."""
    for start, kind in _KINDS:
        if reason.startswith(start):
            return kind
    return "other"


def problem_kinds(problem: str) -> tuple[str, ...]:
    """The kinds of a record's problem, which joins a file's warnings with "; " (sync/prepare.py);
    the parts that only go on about the one before ("indexed as text") have no kind of their own."""
    kinds = [problem_kind(part) for part in problem.split("; ")]
    found = tuple(dict.fromkeys(kind for kind in kinds if kind != "other"))
    return found or ("other",)


def _why(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def text_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def buffer_problem(text: str) -> str | None:
    """Why an editor buffer's text is not indexed: the rule `read_text` applies to the file, so
    a buffer and the same text saved are treated alike."""
    if "\0" in text[:_BINARY_PROBE]:
        return "binary file (NUL characters); skipped"
    return None


def read_text(root: Path, stat: FileStat, settings: Settings) -> FileText:
    """The file's text, or why it cannot be indexed. UTF-8, or the UTF-16 / UTF-32 its byte order
    mark names; invalid sequences are decoded with replacement."""
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
    return file_text(data)


def file_text(data: bytes) -> FileText:
    """A file's bytes as memlsp reads them (`read_text`, less its limit on size): what a write
    about to put these bytes in a note will be read as."""
    digest = text_digest(data)
    codec, name, start = "utf-8", "UTF-8", 0
    for mark, mark_codec, mark_name in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            codec, name, start = mark_codec, mark_name, len(mark)
            break
    # UTF-16 and UTF-32 text is full of NUL bytes; only its decoded NUL characters mean binary.
    if codec == "utf-8" and b"\0" in data[:_BINARY_PROBE]:
        return FileText(None, digest, "binary file (NUL bytes); skipped")
    problem = None
    try:
        text = data[start:].decode(codec)
    except UnicodeDecodeError as error:
        text = data[start:].decode(codec, errors="replace")
        problem = f"not valid {name} at byte {start + error.start}; decoded with replacement"
    if codec != "utf-8" and "\0" in text[:_BINARY_PROBE]:
        return FileText(None, digest, "binary file (NUL characters); skipped")
    return FileText(text, digest, problem)
