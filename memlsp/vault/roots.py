"""Which folder is the vault: the nearest one that says so, else the folder the editor gave.

Editors pick a workspace root by their own rules (project.el: the VC root or the note's folder;
Neovim: the first root marker found), which is often a folder inside the vault. Indexing that
subfolder makes every link out of it "missing", so the root is taken from the vault's own markers.
"""

from __future__ import annotations

from pathlib import Path

VAULT_MARKERS = (".obsidian", ".memlsp.toml")


def _too_wide(folder: Path) -> bool:
    """The filesystem root and the home folder are never taken as a vault nobody named."""
    return folder == Path(folder.anchor) or folder == Path.home().resolve()


def marked_root(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` holding a vault marker (`.obsidian` or
    `.memlsp.toml`); markers in the home folder or `/` count only when `folder` is that folder."""
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        if candidate != folder and _too_wide(candidate):
            continue
        if any((candidate / marker).exists() for marker in VAULT_MARKERS):
            return candidate
    return None


def vault_root(workspace_folder: Path) -> Path | None:
    """The vault an editor's workspace folder belongs to: its marked root, else the folder;
    None for an unmarked home folder or `/` (an editor started there, not a vault)."""
    folder = workspace_folder.resolve()
    root = marked_root(folder)
    if root is not None:
        return root
    return None if _too_wide(folder) else folder


def vault_of_lone_note(note: Path) -> Path | None:
    """The vault to open for a note when the editor named no folder at all: its marked root,
    else the note's own folder; None when that would be the home folder or `/`."""
    folder = note.resolve().parent
    root = marked_root(folder) or folder
    return None if _too_wide(root) else root
