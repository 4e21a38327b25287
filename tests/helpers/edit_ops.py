"""Random edits to a vault, as operations: what they are, how a seed chooses them, and how each is
made on disk.

The generator looks at the files as they are, so a seed always makes the same operations. Names
are shared by several folders and differ in case, so links are ambiguous and resolve by case
rules; editor buffers are opened on notes and on paths that have no file yet.
"""

from __future__ import annotations

import os
import posixpath
import random
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.helpers.consistency import vault_files
from tests.helpers.stdio_server import SENTINEL

# Names that several folders share make links ambiguous; "ALPHA" is "alpha" and "Shared" is
# "shared" in another case (in one folder too: the disk is case-sensitive, links are not), "beta"
# is also an alias, "Gamma" is linked in other cases, "two words" needs %20 in a markdown link.
NAMES = ("alpha", "ALPHA", "beta", "Gamma", "shared", "Shared", "two words")
# "X" is "x" in another case: a case-sensitive disk holds both, a link reads them as one.
FOLDERS = ("", "x", "y", "x/z", "w", "X")
# Where folders are renamed or moved back to.
FOLDER_TARGETS = ("w", "y", "q", "x/z", "y/q", "X", "Y/q")
ALIASES = ("Nick", "Common", "beta")
ATTACHMENTS = ("pic.png", "doc.pdf", "shared.png")
# Probe words besides each note's own token: link text and aliases, found in many notes.
WORDS = ("alpha", "beta", "gamma", "shared", "two", "words", "nick", "common", "label")
TOKEN = re.compile(r"\b(?:tok|buf)\d+\b")
# Places out of the vault's index, relative to the run's folder: beside the vault, and Obsidian's
# trash inside it (a dot-folder, never indexed).
STASHES = ("outside", "vault/.trash")


@dataclass(frozen=True)
class Op:
    """One operation. `kind` is write, delete, delete_folder, move, move_folder, move_out,
    move_in (disk); open, change, close (an editor buffer); restart (the index closed and opened
    again) or crash (the server killed with -9 and started again). Paths are vault-relative, but
    for move_out `to` and for move_in `path` are places out of the index, relative to the run's
    folder."""

    kind: str
    path: str
    to: str = ""
    text: str = ""

    def __str__(self) -> str:
        return {
            "write": f"write {self.path} {self.text!r}",
            "delete": f"delete {self.path}",
            "delete_folder": f"rm -r {self.path}",
            "move": f"move {self.path} -> {self.to}",
            "move_folder": f"move folder {self.path}/ -> {self.to}/",
            "move_out": f"move {self.path} out of the index (to {_place(self.to)})",
            "move_in": f"move {_place(self.path)} into the vault as {self.to}",
            "open": f"didOpen {self.path} {self.text!r}",
            "change": f"didChange {self.path} {self.text!r}",
            "close": f"didClose {self.path}",
            "restart": "close the index and open it again on the same cache",
            "crash": "kill -9 the server and start it again on the same cache",
        }[self.kind]


def _place(stash: str) -> str:
    """A stash as a reproducer says it: relative to the vault folder."""
    return stash.removeprefix("vault/") if stash.startswith("vault/") else "../" + stash


BUFFER_KINDS = ("open", "change", "close")
# Compared right after too: a later write into a new folder makes the server scan the whole
# vault, which would hide what a folder operation left behind.
FOLDER_KINDS = ("move_folder", "move_out", "move_in", "delete_folder")
PROCESS_KINDS = ("restart", "crash")


# -- generating operations ----------------------------------------------------------------------


def random_link(rng: random.Random, folder: str) -> str:
    name = rng.choice(NAMES)
    target = posixpath.join(rng.choice(FOLDERS), name + ".md")
    form = rng.randrange(12)
    if form == 0:
        return f"[[{name}]]"
    if form == 1:
        return f"[[{name}#Sec]]"
    if form == 2:
        return f"[[{rng.choice(FOLDERS[1:])}/{name}]]"
    if form == 3:
        return f"[[{name}|label]]"
    if form == 4:
        relative = posixpath.relpath(target, folder or ".")
        return f"[label]({relative.replace(' ', '%20')})"
    if form == 5:
        return f"[label](/{target.replace(' ', '%20')})"
    if form == 6:
        return f"![[{rng.choice(ATTACHMENTS)}]]"
    if form == 7:
        return f"[[{rng.choice(ALIASES)}]]"
    if form == 8:
        return "[[#Sec]]"
    if form == 9:
        return f"[[{name.upper()}]]"
    if form == 10:
        return f"[[{name}.md]]"
    return f"[[missing{rng.randint(1, 3)}]]"


def note_text(rng: random.Random, path: str, token: str, *, in_buffer: bool = False) -> str:
    """`in_buffer`: never NUL bytes, which make a file binary but not a buffer (a finding of
    its own: such a buffer is indexed, the same text saved is skipped)."""
    folder = posixpath.dirname(path)
    broken = rng.random()
    if broken < 0.02:
        return ""
    if broken < 0.04 and not in_buffer:  # NUL bytes: skipped as binary, its word never found
        return f"# Note {token}\n\n{token} \x00\x00 {random_link(rng, folder)}\n"
    lines = []
    if broken < 0.06:  # frontmatter that is not YAML: the note is indexed as text
        lines += ["---", "aliases: [unclosed", "---"]
    elif rng.random() < 0.3:
        aliases = rng.sample(ALIASES, rng.randint(1, 2))
        lines += ["---", f"aliases: [{', '.join(aliases)}]", "---"]
    body = f"{token} body text"
    if rng.random() < 0.5:  # names as plain text: unlinked mentions of the notes that have them
        body += " about " + " and ".join(rng.sample(NAMES + ALIASES, rng.randint(1, 2)))
    lines += [f"# Note {token}", "", body]
    links = [random_link(rng, folder) for _ in range(rng.randint(0, 4))]
    if links:
        lines += ["", " ".join(links)]
    if rng.random() < 0.5:
        lines += ["", "## Sec", "", f"section {random_link(rng, folder)}"]
    return "\n".join(lines) + "\n"


class Generator:
    """Chooses the next operation from what is on disk (and which buffers are open)."""

    def __init__(self, seed: int, *, server: bool, buffers: bool | None = None) -> None:
        """`server`: a run on a real server (short: folders move more often); `buffers`: editor
        buffers are opened, changed and closed too (by default on a server only)."""
        self.rng = random.Random(seed)
        self.server = server
        self.buffers = server if buffers is None else buffers
        self.tokens = 0
        self.stashes = 0

    def token(self, prefix: str = "tok") -> str:
        self.tokens += 1
        return f"{prefix}{self.tokens}"

    def next(self, base: Path, open_buffers: Sequence[str] = (), *, live: bool = True) -> Op:
        """The next operation on the run in `base`; `live`: the index is open (else only
        operations on disk)."""
        rng = self.rng
        more = 3 if self.server else 1  # the server's runs are short: folders move more often
        vault = base / "vault"
        files = [p for p in vault_files(vault) if p != SENTINEL]
        notes = [p for p in files if p.endswith(".md")]
        attachments = [p for p in files if not p.endswith(".md")]
        folders = sorted({posixpath.dirname(p) for p in files} - {""})
        stashes = [
            f"{place}/{entry.name}"
            for place in STASHES
            if (base / place).is_dir()
            for entry in sorted((base / place).iterdir())
        ]
        choices: list[tuple[int, Callable[[], Op | None]]] = [
            (24, lambda: self._write_new(vault)),
            (18 if notes else 0, lambda: self._modify(rng.choice(notes))),
            (4 if notes else 0, lambda: Op("delete", rng.choice(notes))),
            (6 if notes else 0, lambda: self._rename(vault, rng.choice(notes))),
            (6 if notes else 0, lambda: self._move(vault, rng.choice(notes))),
            (4 * more if folders else 0, lambda: self._move_folder(vault, rng.choice(folders))),
            (2 * more if folders else 0, lambda: self._move_out(rng.choice(folders))),
            (1 * more if folders else 0, lambda: Op("delete_folder", rng.choice(folders))),
            (2 if notes else 0, lambda: self._move_out(rng.choice(notes))),
            (4 if stashes else 0, lambda: self._move_in(vault, rng.choice(stashes))),
            (4, lambda: self._attach()),
            (3 if attachments else 0, lambda: Op("delete", rng.choice(attachments))),
        ]
        if live:
            choices.append((1, lambda: Op("restart", "")))
        if live and self.buffers:
            closed = [p for p in notes if p not in open_buffers]
            saved = [p for p in open_buffers if p in notes]
            choices += [
                (6 if closed else 0, lambda: self._buffer("open", rng.choice(closed))),
                (3, lambda: self._buffer("open", self._new_path())),  # maybe never saved
                (
                    8 if open_buffers else 0,
                    lambda: self._buffer("change", rng.choice(open_buffers)),
                ),
                (5 if open_buffers else 0, lambda: Op("close", rng.choice(open_buffers))),
                # Another program (a sync, git) writes an open note's file, the first one of a
                # buffer never saved too, or deletes it.
                (3 if open_buffers else 0, lambda: self._modify(rng.choice(open_buffers))),
                (2 if saved else 0, lambda: Op("delete", rng.choice(saved))),
            ]
        if live and self.server:
            choices.append((1, lambda: Op("crash", "")))
        while True:
            [make] = rng.choices([m for _, m in choices], [w for w, _ in choices])
            op = make()
            if op is not None and (op.kind != "open" or op.path not in open_buffers):
                return op

    def _new_path(self) -> str:
        return posixpath.join(self.rng.choice(FOLDERS), self.rng.choice(NAMES) + ".md")

    def _write_new(self, vault: Path) -> Op | None:
        path = self._new_path()
        if (vault / path).exists():
            return None
        return Op("write", path, text=note_text(self.rng, path, self.token()))

    def _modify(self, path: str) -> Op:
        return Op("write", path, text=note_text(self.rng, path, self.token()))

    def _buffer(self, kind: str, path: str) -> Op:
        return Op(kind, path, text=note_text(self.rng, path, self.token("buf"), in_buffer=True))

    def _rename(self, vault: Path, path: str) -> Op | None:
        to = posixpath.join(posixpath.dirname(path), self.rng.choice(NAMES) + ".md")
        return None if (vault / to).exists() else Op("move", path, to)

    def _move(self, vault: Path, path: str) -> Op | None:
        to = posixpath.join(self.rng.choice(FOLDERS), posixpath.basename(path))
        return None if (vault / to).exists() else Op("move", path, to)

    def _move_folder(self, vault: Path, folder: str) -> Op | None:
        to = self.rng.choice(FOLDER_TARGETS)
        if (vault / to).exists() or to == folder or to.startswith(folder + "/"):
            return None
        return Op("move_folder", folder, to)

    def _move_out(self, path: str) -> Op:
        """A folder or a note moved where the index never looks (deleted to Obsidian's trash)."""
        self.stashes += 1
        return Op("move_out", path, f"{self.rng.choice(STASHES)}/out{self.stashes}")

    def _move_in(self, vault: Path, stash: str) -> Op | None:
        if (vault.parent / stash).is_file():
            to = posixpath.join(self.rng.choice(FOLDERS), self.rng.choice(NAMES) + ".md")
        else:
            to = self.rng.choice(FOLDER_TARGETS)
        return None if (vault / to).exists() else Op("move_in", stash, to)

    def _attach(self) -> Op:
        path = posixpath.join(self.rng.choice(FOLDERS), self.rng.choice(ATTACHMENTS))
        return Op("write", path, text=f"attachment {self.rng.random()}\n")


# -- applying operations ------------------------------------------------------------------------


def do_on_disk(base: Path, op: Op) -> list[str] | None:
    """Make the change on disk in the run's folder `base`; the paths the file watcher reports for
    it (a folder by its own path), or None when the operation does not apply to the files as they
    are (in a replay with operations left out)."""
    vault = base / "vault"
    source = vault / op.path
    if op.kind == "write":
        if source.is_dir():
            return None
        before = _stat(source)
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(op.text, encoding="utf-8")
        if _stat(source) == before:
            # The index tells a change by mtime and size; a rewrite of the same size within one
            # clock tick is out of scope here: move the mtime on.
            os.utime(source, ns=(before[0], before[0] + 1_000_000_000))
        return [op.path]
    if op.kind == "delete":
        if not source.is_file():
            return None
        source.unlink()
        return [op.path]
    if op.kind == "delete_folder":
        if not source.is_dir():
            return None
        shutil.rmtree(source)
        return [op.path]
    if op.kind in ("move", "move_folder"):
        target = vault / op.to
        exists = source.is_file() if op.kind == "move" else source.is_dir()
        if not exists or target.exists() or op.to.startswith(op.path + "/"):
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        source.rename(target)
        return [op.path, op.to]
    if op.kind == "move_out":
        target = base / op.to
        if not source.exists() or target.exists():
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        source.rename(target)
        return [op.path]
    if op.kind == "move_in":
        stash, target = base / op.path, vault / op.to
        if not stash.exists() or target.exists():
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        stash.rename(target)
        return [op.to]
    raise ValueError(op.kind)


def _stat(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return (0, -1)
    return (stat.st_mtime_ns, stat.st_size)


def buffer_applies(op: Op, open_buffers: Sequence[str]) -> bool:
    return (op.kind == "open") != (op.path in open_buffers)
