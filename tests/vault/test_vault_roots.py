"""Which folder is taken as the vault (memlsp/vault/roots.py), on real folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.vault.roots import marked_root, vault_of_lone_note, vault_root


def test_a_folder_inside_a_marked_vault_belongs_to_that_vault(tmp_path: Path) -> None:
    (tmp_path / "kg" / ".obsidian").mkdir(parents=True)
    inner = tmp_path / "kg" / "Calendar" / "posts"
    inner.mkdir(parents=True)
    assert vault_root(inner) == tmp_path / "kg"
    assert vault_root(tmp_path / "kg") == tmp_path / "kg"


def test_the_nearest_marker_wins_and_memlsp_toml_counts(tmp_path: Path) -> None:
    (tmp_path / "outer" / ".obsidian").mkdir(parents=True)
    inner = tmp_path / "outer" / "inner"
    (inner / "notes").mkdir(parents=True)
    (inner / ".memlsp.toml").write_text("", encoding="utf-8")
    assert vault_root(inner / "notes") == inner


def test_a_folder_with_no_marker_is_a_vault_by_itself(tmp_path: Path) -> None:
    folder = tmp_path / "plain" / "sub"
    folder.mkdir(parents=True)
    assert marked_root(folder) is None
    assert vault_root(folder) == folder


def test_a_lone_note_opens_its_marked_vault_or_its_own_folder(tmp_path: Path) -> None:
    (tmp_path / "kg" / ".obsidian").mkdir(parents=True)
    (tmp_path / "kg" / "a" / "b").mkdir(parents=True)
    assert vault_of_lone_note(tmp_path / "kg" / "a" / "b" / "n.md") == tmp_path / "kg"
    (tmp_path / "loose").mkdir()
    assert vault_of_lone_note(tmp_path / "loose" / "n.md") == tmp_path / "loose"


def test_home_and_the_filesystem_root_are_never_guessed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".obsidian").mkdir(parents=True)  # a marker in the home folder does not count
    (home / "notes").mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert vault_root(home / "notes") == home / "notes"
    assert vault_of_lone_note(home / "n.md") is None
    assert vault_of_lone_note(Path("/n.md")) is None
    assert vault_root(home) == home  # marked, it is a vault like any other
    (home / ".obsidian").rmdir()
    assert vault_root(home) is None  # an editor started in the home folder: not a vault
    assert vault_root(Path("/")) is None
