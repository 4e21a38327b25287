"""Which files of a vault count: the one answer the scan, the watcher, the live vault, the editor's
file-watch registration and the tests all ask for.

Paths are vault-relative with forward slashes. Only the part of a path inside the vault is looked
at, so a vault that is itself under a dot-folder (`~/.notes/vault`) is read like any other.
"""

from __future__ import annotations

from dataclasses import dataclass

from memlsp.settings.table import DEFAULTS, Settings


@dataclass(frozen=True, slots=True)
class VaultRules:
    # Suffixes are compared without regard to case (`Note.MD` is a note, as on the case-folding
    # file systems Obsidian vaults often live on); they are held lower-case.
    note_suffixes: tuple[str, ...] = DEFAULTS.note_suffixes
    record_suffixes: tuple[str, ...] = DEFAULTS.record_suffixes
    exclude: tuple[str, ...] = DEFAULTS.exclude  # folder or file names skipped at any depth

    @classmethod
    def of(cls, settings: Settings) -> VaultRules:
        return cls(
            tuple(suffix.lower() for suffix in settings.note_suffixes),
            tuple(suffix.lower() for suffix in settings.record_suffixes),
            settings.exclude,
        )

    def ignored(self, path: str) -> bool:
        """Never indexed nor watched: a dot-file, anything in a dot-folder (`.obsidian/`,
        `.trash/`, `.git/`) or under an excluded name. A single name is a path of one part."""
        return any(part.startswith(".") or part in self.exclude for part in path.split("/"))

    def ignored_name(self, name: str) -> bool:
        """`ignored` for one file or folder name (a scan asks it of every entry)."""
        return name.startswith(".") or name in self.exclude

    def indexable(self, path: str) -> bool:
        """A note or a records file by its suffix (whether it is also ignored is `ignored`)."""
        return path.lower().endswith(self.note_suffixes + self.record_suffixes)

    def is_note(self, path: str) -> bool:
        return path.lower().endswith(self.note_suffixes)

    def is_records(self, path: str) -> bool:
        """A file of records (`.jsonl`), chunked by size rather than parsed as Markdown."""
        return path.lower().endswith(self.record_suffixes)

    def watch_glob(self) -> str:
        """The glob an editor is asked to report file events for: every indexable suffix.

        Written as the suffixes are (lower-case), as clients were always asked: LSP globs have no
        case-insensitive form short of a `[mM]` class per letter; the server's own watcher and its
        rescans see the other spellings.
        """
        names = [suffix.removeprefix(".") for suffix in self.note_suffixes + self.record_suffixes]
        return f"**/*.{names[0]}" if len(names) == 1 else "**/*.{" + ",".join(names) + "}"


DEFAULT_RULES = VaultRules()
