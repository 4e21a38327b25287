"""The lookup tables link resolution consults: paths, file names and aliases, normalised."""

from __future__ import annotations

from collections.abc import Iterator

from memlsp.text import basename as basename
from memlsp.text import folded
from memlsp.vault.rules import DEFAULT_RULES
from memlsp.vault.shared import SharedMap, add_to, discard_from

# Link resolution knows notes by the default suffixes: `note_suffixes` is not a setting a user or
# a vault can change (config.USER_SETTINGS), so the table needs no settings.


# What Obsidian refuses in a file name (and what would hide the file or be read as a link's
# anchor, label or path).
REFUSED_IN_FILE_NAMES = frozenset('*"\\<>:|?#^[]')


def name_key(text: str) -> str:
    """How Obsidian compares names: Unicode NFC, case-insensitive."""
    return folded(text)


def strip_note_suffix(path: str) -> str:
    lowered = path.lower()
    for suffix in DEFAULT_RULES.note_suffixes:
        if lowered.endswith(suffix):
            return path[: -len(suffix)]
    return path


def is_note_path(path: str) -> bool:
    return DEFAULT_RULES.is_note(path)


def file_name(path: str) -> str:
    """What a link names a file by: a note's file name without `.md`, another file's whole name."""
    name = basename(path)
    return strip_note_suffix(name) if is_note_path(path) else name


class NameTable:
    """Every file of the vault by exact path, by case-insensitive path, by name and by alias.

    Notes are looked up without their `.md` suffix; other files (attachments) by their full name.
    A key's paths are a tuple: nearly every name is one file's, and a set per name would cost a
    vault of 50,000 notes some 25 MB.
    """

    def __init__(self) -> None:
        self.notes: set[str] = set()
        self.files: set[str] = set()
        self._by_folded_path: dict[str, tuple[str, ...]] = {}
        self._by_name: dict[str, tuple[str, ...]] = {}
        self._by_alias: dict[str, tuple[str, ...]] = {}
        self._aliases: dict[str, tuple[str, ...]] = {}
        self._shared = False  # the containers are another table's too: copy them before a change

    def __setstate__(self, state: dict[str, object]) -> None:
        """A table saved by an earlier version kept a set per key (in a `SharedMap`)."""
        for name in ("_by_folded_path", "_by_name", "_by_alias"):
            table = state[name]
            if isinstance(table, SharedMap):
                state[name] = {key: tuple(paths) for key, paths in table.items()}
        self.__dict__.update(state)

    def copy(self) -> NameTable:
        """A copy for the link graph's next revision (vault/link_graph.py `edited`): it reads this
        table's containers until its first change, which copies them (most edits change no name,
        and copying every name of 10,000 notes costs more than the edit)."""
        twin = NameTable.__new__(NameTable)
        twin.notes, twin.files = self.notes, self.files
        twin._by_folded_path, twin._by_name = self._by_folded_path, self._by_name
        twin._by_alias, twin._aliases = self._by_alias, self._aliases
        twin._shared = self._shared = True
        return twin

    def _own(self) -> None:
        if not self._shared:
            return
        self.notes, self.files = set(self.notes), set(self.files)
        self._by_folded_path = dict(self._by_folded_path)
        self._by_name = dict(self._by_name)
        self._by_alias = dict(self._by_alias)
        self._aliases = dict(self._aliases)
        self._shared = False

    @property
    def names_token(self) -> object:
        """An object that stays the same (`is`) between two revisions of the table exactly when
        no name or alias changed between them: a change copies the containers first (`_own`).
        Only a frozen graph's table may be compared: a writable one changes in place."""
        return self._aliases

    @staticmethod
    def lookup_path(path: str) -> str:
        """The key a path is found under: notes lose their suffix."""
        return name_key(strip_note_suffix(path) if is_note_path(path) else path)

    @staticmethod
    def names_of(path: str, aliases: tuple[str, ...] = ()) -> set[str]:
        """The name keys under which a file can be found: its name, and its aliases (prefixed)."""
        keys = {name_key(file_name(path))}
        keys.update("alias:" + name_key(alias) for alias in aliases)
        return keys

    def add(self, path: str, aliases: tuple[str, ...] = ()) -> None:
        self._own()
        (self.notes if is_note_path(path) else self.files).add(path)
        add_to(self._by_folded_path, self.lookup_path(path), path)
        add_to(self._by_name, name_key(file_name(path)), path)
        self._aliases[path] = aliases
        for alias in aliases:
            add_to(self._by_alias, name_key(alias), path)

    def remove(self, path: str) -> None:
        self._own()
        self.notes.discard(path)
        self.files.discard(path)
        discard_from(self._by_folded_path, self.lookup_path(path), path)
        discard_from(self._by_name, name_key(file_name(path)), path)
        for alias in self._aliases.pop(path, ()):
            discard_from(self._by_alias, name_key(alias), path)

    def rows(self) -> Iterator[tuple[str, str, str]]:
        """Every (kind, key, path) of the tables links resolve by, kind "folded", "name" or
        "alias" (`by_folded_path`, `by_name`, `by_alias`)."""
        for kind, table in (
            ("folded", self._by_folded_path),
            ("name", self._by_name),
            ("alias", self._by_alias),
        ):
            for key, paths in table.items():
                for path in paths:
                    yield kind, key, path

    def exists(self, path: str) -> bool:
        return path in self.notes or path in self.files

    def by_folded_path(self, path: str) -> frozenset[str]:
        return frozenset(self._by_folded_path.get(self.lookup_path(path), ()))

    def by_name(self, name: str) -> frozenset[str]:
        return frozenset(self._by_name.get(name_key(name), ()))

    def by_alias(self, alias: str) -> frozenset[str]:
        return frozenset(self._by_alias.get(name_key(alias), ()))
