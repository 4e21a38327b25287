"""What the `write` tool does to the vault's files: names Obsidian accepts, inside the vault only,
each write whole or not at all.

Writing is off unless the server was started with `--allow-writes`. Even then a note's text never
decides where anything is written: the path is the agent's argument, checked here against the
vault's real folder (symlinks included) before a byte is written.
"""

from __future__ import annotations

import difflib
import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from memlsp.model import quoted
from memlsp.sync.scan import file_text
from memlsp.text import from_home, text_hash
from memlsp.vault.rules import VaultRules

MODES = ("create", "append", "replace_section", "edit")
# Obsidian refuses these in a file name (`* " \ / < > : | ?` break on some file system, `# ^ [ ] |`
# break links to the note).
_FORBIDDEN = re.compile(r'[*"\\<>:|?#^\[\]\x00-\x1f\x7f]')
_MAX_NAME_BYTES = 255
# A path of the vault, far under a file system's 4,096 bytes beside the vault's own folder.
_MAX_PATH_BYTES = 1024
# `%2e` is '.' to a Markdown link, which decodes it: a folder named `%2e%2e` reads as `..` there.
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
# A write's temporary file beside its note: a hidden name, so that no scan indexes it.
TEMPORARY_PREFIX = ".memlsp-"
TEMPORARY_SUFFIX = ".tmp"
# Far longer than any write takes (a note of MiBs is written in well under a second).
STALE_SECONDS = 600


class WriteRefused(Exception):
    """A write that would not be safe or would not do what was asked; one sentence says why."""


@dataclass(frozen=True, slots=True)
class Section:
    """A heading's section in a note: its heading line and the lines after it (1-based)."""

    heading: str
    start_line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class Edit:
    """Mode 'edit': `old_text`, which must occur once in the note, replaced by `new_text`."""

    old_text: str
    new_text: str


def note_path(name: str, rules: VaultRules) -> str:
    """The vault-relative path a note named `name` is written at: `.md` added when the name has
    no note suffix. Raises WriteRefused for a name outside the vault, one Obsidian would not
    accept, or one the vault never indexes."""
    if not name or not name.strip():
        raise WriteRefused("give the note's path, e.g. 'inbox/idea.md'")
    if "\\" in name:
        raise WriteRefused(f"{quoted(name)}: separate folders with '/', not '\\'")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or from_home(name):
        raise WriteRefused(f"{quoted(name)} is outside the vault: give a vault-relative path")
    lone = _SURROGATE.search(name)
    if lone:
        raise WriteRefused(f"{quoted(name)}: a path is text, not a lone surrogate {lone.group()!r}")
    parts = name.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise WriteRefused(
            f"{quoted(name)} is outside the vault or not a plain path: no '.', '..' or empty parts"
        )
    for part in parts:
        bad = _FORBIDDEN.search(part)
        if bad:
            raise WriteRefused(
                f"{quoted(name)}: Obsidian does not accept {bad.group()!r} in a name"
            )
        if part != part.rstrip(" .") or part != part.lstrip(" "):
            raise WriteRefused(
                f"{quoted(name)}: a name may not begin with a space or end in '.' or ' '"
            )
        if len(part.encode("utf-8")) > _MAX_NAME_BYTES:
            raise WriteRefused(f"{quoted(name)}: a name is limited to {_MAX_NAME_BYTES} bytes")
        escape = _ESCAPE.search(part)
        if escape:
            raise WriteRefused(
                f"{quoted(name)}: a name may not hold {escape.group()!r}, which a Markdown link "
                f"reads as {bytes.fromhex(escape.group()[1:]).decode('latin-1')!r}"
            )
    if len(name.encode("utf-8")) > _MAX_PATH_BYTES:
        raise WriteRefused(f"{quoted(name)}: a path is limited to {_MAX_PATH_BYTES:,} bytes")
    path = name if rules.is_note(name) else name + ".md"
    if rules.ignored(path):
        raise WriteRefused(
            f"{quoted(path)} would not be indexed (a hidden or excluded folder): choose another path"
        )
    return path


def target_file(root: Path, path: str) -> Path:
    """Where `path` is on disk, checked to stay inside the vault's real folder: a folder on the
    way or the file itself that is a symlink out of the vault is refused."""
    real_root = root.resolve()
    target = real_root / path
    folder = target.parent
    existing = folder
    while not existing.exists():
        existing = existing.parent
    if not existing.resolve().is_relative_to(real_root):
        raise WriteRefused(f"{quoted(path)} leads outside the vault (through a symlink)")
    if not existing.is_dir():
        where = existing.relative_to(real_root).as_posix()
        raise WriteRefused(f"{quoted(path)}: {quoted(where)} is a file, not a folder")
    if target.is_symlink():
        raise WriteRefused(f"{quoted(path)} is a symlink: memlsp writes only plain files")
    if target.exists() and not target.is_file():
        raise WriteRefused(f"{quoted(path)} exists and is not a file")
    return target


def appended(old: str, content: str) -> str:
    """`content` after the note's text, on a line of its own."""
    if old and not old.endswith("\n"):
        old += "\n"
    return old + content


def replaced(old: str, section: Section, content: str) -> str:
    """The note with `section`'s lines after its heading replaced by `content`. When `content`
    starts with that same heading, it replaces the heading line too (agents often repeat it)."""
    lines = old.splitlines(keepends=True)
    first = (
        section.start_line
        if _starts_with_heading(content, lines[section.start_line - 1])
        else (section.start_line + 1)
    )
    body = content
    after = lines[section.end_line :]
    if body and not body.endswith("\n") and after:
        body += "\n"
    if lines[: first - 1] and not lines[first - 2].endswith("\n"):
        body = "\n" + body
    return "".join(lines[: first - 1]) + body + "".join(after)


def edited(path: str, old: str, edit: Edit) -> str:
    """The note with the one place `edit.old_text` occurs replaced by its `new_text`; WriteRefused, with
    the count, unless it occurs exactly once (overlapping places count: 'aa' is twice in 'aaa').

    A line break matches '\n' or '\r\n' alike, since `read` gives lines joined by '\n' whatever
    the file holds; `new_text`'s line breaks are written as the replaced text's own (else the
    note's first), so a CRLF note stays CRLF. All else is compared and kept exactly."""
    old_text, new_text = edit.old_text, edit.new_text
    if not old_text:
        raise WriteRefused("'old_text' is empty: give the exact text to replace, as read shows it")
    parts = old_text.replace("\r\n", "\n").split("\n")
    pattern = re.compile("(?=(" + "\r?\n".join(map(re.escape, parts)) + "))")
    matches = list(pattern.finditer(old))
    if len(matches) != 1:
        advice = (
            "give more of the text around it so it occurs once"
            if matches
            else "read it again and copy the text exactly"
        )
        raise WriteRefused(f"'old_text' occurs {len(matches)} times in {path}; {advice}")
    found = matches[0].group(1)
    start, end = matches[0].start(), matches[0].start() + len(found)
    newline = _line_break(found) or _line_break(old) or "\n"
    new = new_text.replace("\r\n", "\n").replace("\n", newline)
    return old[:start] + new + old[end:]


def _line_break(text: str) -> str | None:
    at = text.find("\n")
    if at < 0:
        return None
    return "\r\n" if text[at - 1 : at] == "\r" else "\n"


def unified_diff(path: str, old: str, new: str) -> str:
    """What a write would change, as `git diff` shows it (`a/PATH`, `b/PATH`, three lines of
    context, `\\ No newline at end of file` where a side ends without one); "" for no change."""
    return "".join(
        difflib.unified_diff(_diff_lines(old), _diff_lines(new), f"a/{path}", f"b/{path}")
    )


def _diff_lines(text: str) -> list[str]:
    """The lines of `text`, each with its '\n'; a last line without one marked as git marks it
    (only '\n' ends a line here: a diff of a note is read by its '\n' lines, not str.splitlines)."""
    lines = [line + "\n" for line in text.split("\n")]
    last = lines.pop()
    if last != "\n":
        lines.append(last[:-1] + "\n\\ No newline at end of file\n")
    return lines


def _starts_with_heading(content: str, heading_line: str) -> bool:
    mine, theirs = _HEADING.match(content.split("\n", 1)[0]), _HEADING.match(heading_line.rstrip())
    return bool(mine and theirs and mine.groups() == theirs.groups())


def read_text_of(data: bytes) -> str:
    """The text memlsp reads of a file holding `data` (sync/scan.py: a byte order mark dropped,
    a bad byte read as U+FFFD), which `read` answers and its hash is of."""
    text = file_text(data).text
    return data.decode("utf-8", errors="replace") if text is None else text


def read_hash(data: bytes) -> str:
    """The hash `read` gives of a note whose file holds `data`."""
    return text_hash(read_text_of(data))


def write_atomically(target: Path, data: bytes) -> None:
    """The file holds `data` whole, or is as it was: written beside it, flushed, then renamed
    over it (keeping an existing file's permissions). A process killed before the rename leaves
    the temporary file (hidden: never indexed); the next write in its folder removes it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    handle, temporary = _temporary_beside(target)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _remove_stale_temporaries(target.parent)


def _temporary_beside(target: Path) -> tuple[int, Path]:
    """A new file beside `target`, open for writing. Made with mode 0o666 so the kernel applies
    the process's umask, as to any new file: reading the umask means setting it, which would race
    with the threads of a server that create files meanwhile."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    while True:
        name = f"{TEMPORARY_PREFIX}{secrets.token_hex(8)}{TEMPORARY_SUFFIX}"
        temporary = target.parent / name
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:  # 2**64 names: only ever another write's by chance
            continue


def _remove_stale_temporaries(folder: Path) -> None:
    """This folder's temporary files that no write can still be using: older than any write
    takes. A younger one may be another server's write in progress, and is left to it."""
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not (name.startswith(TEMPORARY_PREFIX) and name.endswith(TEMPORARY_SUFFIX)):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and now - entry.stat().st_mtime > STALE_SECONDS:
                os.unlink(entry.path)
        except OSError:  # gone already, or not ours to remove: the write is done all the same
            continue
