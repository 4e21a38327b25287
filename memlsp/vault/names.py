"""The lookup tables link resolution consults: paths, file names and aliases, normalised."""

from __future__ import annotations

import unicodedata
from collections import defaultdict

from memlsp.text import basename as basename
from memlsp.vault.rules import DEFAULT_RULES

# Link resolution knows notes by the default suffixes: `note_suffixes` is not a setting a user or
# a vault can change (config.USER_SETTINGS), so the table needs no settings.


def name_key(text: str) -> str:
    """How Obsidian compares names: Unicode NFC, case-insensitive."""
    return unicodedata.normalize("NFC", text).casefold()


def strip_note_suffix(path: str) -> str:
    lowered = path.lower()
    for suffix in DEFAULT_RULES.note_suffixes:
        if lowered.endswith(suffix):
            return path[: -len(suffix)]
    return path


def is_note_path(path: str) -> bool:
    return DEFAULT_RULES.is_note(path)


class NameTable:
    """Every file of the vault by exact path, by case-insensitive path, by name and by alias.

    Notes are looked up without their `.md` suffix; other files (attachments) by their full name.
    """

    def __init__(self) -> None:
        self.notes: set[str] = set()
        self.files: set[str] = set()
        self._by_folded_path: dict[str, set[str]] = defaultdict(set)
        self._by_name: dict[str, set[str]] = defaultdict(set)
        self._by_alias: dict[str, set[str]] = defaultdict(set)
        self._aliases: dict[str, tuple[str, ...]] = {}

    @staticmethod
    def lookup_path(path: str) -> str:
        """The key a path is found under: notes lose their suffix."""
        return name_key(strip_note_suffix(path) if is_note_path(path) else path)

    @staticmethod
    def names_of(path: str, aliases: tuple[str, ...] = ()) -> set[str]:
        """The name keys under which a file can be found: its name, and its aliases (prefixed)."""
        name = basename(path)
        keys = {name_key(strip_note_suffix(name) if is_note_path(path) else name)}
        keys.update("alias:" + name_key(alias) for alias in aliases)
        return keys

    def add(self, path: str, aliases: tuple[str, ...] = ()) -> None:
        (self.notes if is_note_path(path) else self.files).add(path)
        self._by_folded_path[self.lookup_path(path)].add(path)
        self._by_name[name_key(self._name(path))].add(path)
        self._aliases[path] = aliases
        for alias in aliases:
            self._by_alias[name_key(alias)].add(path)

    def remove(self, path: str) -> None:
        self.notes.discard(path)
        self.files.discard(path)
        _discard(self._by_folded_path, self.lookup_path(path), path)
        _discard(self._by_name, name_key(self._name(path)), path)
        for alias in self._aliases.pop(path, ()):
            _discard(self._by_alias, name_key(alias), path)

    def exists(self, path: str) -> bool:
        return path in self.notes or path in self.files

    def by_folded_path(self, path: str) -> set[str]:
        return self._by_folded_path.get(self.lookup_path(path), set())

    def by_name(self, name: str) -> set[str]:
        return self._by_name.get(name_key(name), set())

    def by_alias(self, alias: str) -> set[str]:
        return self._by_alias.get(name_key(alias), set())

    @staticmethod
    def _name(path: str) -> str:
        name = basename(path)
        return strip_note_suffix(name) if is_note_path(path) else name


def _discard(table: dict[str, set[str]], key: str, path: str) -> None:
    paths = table.get(key)
    if paths is not None:
        paths.discard(path)
        if not paths:
            del table[key]
