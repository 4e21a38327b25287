"""The vaults a server has open, and which of them a document belongs to.

A workspace folder opens the vault it belongs to (the folder itself, or the nearest folder above it
marked as a vault); a client that names no folder gets the vault of each note it opens. A document
belongs to the innermost open vault that holds it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memlsp.live.vault import Listener, LiveVault
from memlsp.lsp import convert
from memlsp.settings.files import load_vault_settings
from memlsp.settings.table import Settings, needs_reopen
from memlsp.sync.activity import Activity
from memlsp.vault.roots import VAULT_MARKERS, vault_of_lone_note, vault_root

Tell = Callable[[str], None]


class Vaults:
    def __init__(
        self,
        listener: Listener,
        activity: Activity,
        *,
        tell: Tell,
        warn: Tell,
        say: Tell,
        opened: Callable[[LiveVault], None],
        closed: Callable[[Path], None],
    ) -> None:
        """`tell` logs for the client, `warn` logs a warning, `say` shows the user a decision
        they did not make; `opened` and `closed` hear of each vault that opens or closes."""
        self._listener = listener
        self._activity = activity
        self._tell, self._warn, self._say = tell, warn, say
        self._opened, self._closed = opened, closed
        self._by_root: dict[Path, LiveVault] = {}
        self._folders: dict[Path, Path] = {}  # workspace folder -> the vault it belongs to
        self._told_incomplete: set[Path] = set()
        self.lone_notes = False  # no workspace folder given: each opened note opens its vault

    def all(self) -> list[LiveVault]:
        return list(self._by_root.values())

    def get(self, root: Path) -> LiveVault | None:
        return self._by_root.get(root)

    def route(self, uri: str) -> tuple[LiveVault, str] | None:
        """The vault holding a document, and the document's vault-relative path."""
        path = convert.path_of(uri)
        if path is None:
            return None
        for root in sorted(self._by_root, key=lambda r: (-len(r.parts), r)):
            if path.is_relative_to(root):
                return self._by_root[root], path.relative_to(root).as_posix()
        return None

    def warn_if_incomplete(self, vault: LiveVault) -> None:
        """A request answered while the vault is still opening may miss notes: say so, once per
        vault, rather than let an empty answer look like the truth."""
        why = vault.incomplete()
        if why and vault.root not in self._told_incomplete:
            self._told_incomplete.add(vault.root)
            self._warn(f"memlsp: {why}")

    # -- opening and closing -------------------------------------------------------------------

    def open_folder(self, folder: Path, settings: Settings) -> None:
        folder = folder.resolve()
        if not folder.is_dir():
            self._tell(f"memlsp: workspace folder {folder} does not exist; not indexed")
            return
        root = vault_root(folder)
        if root is None:
            self._say(
                f"memlsp: not indexing {folder}: it is the home folder or the filesystem root, "
                "with no .obsidian or .memlsp.toml. Each note you open will open its own vault "
                "(the nearest folder marked with one of those, else the note's folder)."
            )
            self.lone_notes = True
            return
        self._folders[folder] = root
        if root != folder and root not in self._by_root:
            self._tell(f"memlsp: {folder} is inside the vault {root} (it has {_marker(root)})")
        self.open_vault(root, settings)

    def close_folder(self, folder: Path) -> None:
        """A workspace folder went away: its vault closes unless another folder still uses it."""
        root = self._folders.pop(folder.resolve(), None)
        if root is not None and root not in self._folders.values():
            self.close_vault(root)

    def open_lone_note(self, uri: str, settings: Settings) -> None:
        """The client named no folder (a single file opened): the note's vault opens, and the
        user is told which folder that is, since nobody chose it."""
        path = convert.path_of(uri)
        if path is None or self.route(uri) is not None:
            return
        root = vault_of_lone_note(path)
        if root is None:
            self._say(
                f"memlsp: {path.name} is not inside a vault (no .obsidian or .memlsp.toml above "
                "it) and its folder is too wide to index; open the vault's folder as the "
                "workspace instead."
            )
            return
        marker = _marker(root)
        why = f"it has {marker}" if marker else "the note's folder"
        self._say(f"memlsp: the editor named no workspace folder; indexing {root} ({why}).")
        self.open_vault(root, settings)

    def open_vault(self, root: Path, settings: Settings) -> None:
        root = root.resolve()
        if root in self._by_root:
            return
        settings, problems = load_vault_settings(root, settings)
        for problem in problems:
            self._warn(f"memlsp: {problem}")
        vault = LiveVault(
            root, settings, self._listener, watch=settings.watch, activity=self._activity
        )
        self._by_root[root] = vault
        vault.start()
        self._opened(vault)

    def close_vault(self, root: Path) -> None:
        vault = self._by_root.pop(root.resolve(), None)
        if vault is not None:
            vault.stop()
        self._told_incomplete.discard(root.resolve())  # opened again, it may be partial again
        self._closed(root.resolve())  # only now: the vault's threads have stopped

    def use_settings(self, settings: Settings) -> list[LiveVault]:
        """New settings from the client: a vault whose settings now differ in what needs a
        reopen starts again with them (a warm start, about a second); the others take them from
        the next request on. The vaults whose settings changed in place."""
        changed = []
        for root, vault in list(self._by_root.items()):
            settings_now, _ = load_vault_settings(root, settings)
            if needs_reopen(vault.settings, settings_now):
                self.close_vault(root)
                self.open_vault(root, settings)
            elif settings_now != vault.settings:
                vault.use_settings(settings_now)
                changed.append(vault)
        return changed

    def close_all(self) -> None:
        for root in list(self._by_root):
            self.close_vault(root)


def _marker(root: Path) -> str:
    return " and ".join(m for m in VAULT_MARKERS if (root / m).exists())
