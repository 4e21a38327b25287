"""Why a file is not a note: one path at a time (`why_not_a_note`), and every file a scan met
(`not_notes`), by the rules the scan itself follows."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from memlsp.index.manifest import FileRecord
from memlsp.settings.files import load_vault_settings
from memlsp.settings.table import Settings
from memlsp.sync.not_notes import REASONS, NotNote, not_notes, why_not_a_note
from memlsp.sync.scan import problem_kind, problem_kinds, read_text, scan_vault, stat_path
from tests.helpers.vault import write

# As a user config file would give them: `exclude` is empty by default.
SETTINGS = Settings(
    max_file_bytes=1000,
    exclude=("node_modules",),
    sources=(("exclude", "user config"), ("max_file_bytes", "user config")),
)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root, "note.md", "# A note\n")
    write(root, "folder/deeper.md", "# Deeper\n")
    write(root, ".obsidian/app.json", "{}")
    write(root, ".hidden.md", "# hidden\n")
    write(root, "node_modules/pkg/readme.md", "# not mine\n")
    write(root, "big.md", "x" * 2000)
    write(root, "picture.png", "not really a picture")
    (root / "binary.md").write_bytes(b"# Title\n\0\0\0binary")
    (root / "latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    write(root, "bad.md", "---\ntitle: [unclosed\n---\n# Bad\n")
    return root


def reason(root: Path, path: str, settings: Settings = SETTINGS) -> str | None:
    found = why_not_a_note(root, path, settings, None)
    return None if found is None else found.reason


def test_a_note_is_a_note(vault: Path) -> None:
    for path in ("note.md", "folder/deeper.md", "bad.md"):
        assert why_not_a_note(vault, path, SETTINGS, None) is None


def test_a_file_not_valid_utf8_is_a_note_read_with_replacement(vault: Path) -> None:
    # The scan reads it (a warning, not a skip): so it is a note, and its warning is a problem.
    assert why_not_a_note(vault, "latin1.md", SETTINGS, None) is None
    stat = stat_path(vault, "latin1.md", SETTINGS)
    assert stat is not None
    text = read_text(vault, stat, SETTINGS)
    assert text.text is not None and problem_kind(text.problem or "") == "not_utf8"


def test_missing(vault: Path) -> None:
    assert why_not_a_note(vault, "nowhere.md", SETTINGS, None) == NotNote("missing", "no such file")


def test_ignored_by_a_dot_folder_or_dot_file(vault: Path) -> None:
    found = why_not_a_note(vault, ".obsidian/app.json", SETTINGS, None)
    assert found is not None and found.reason == "ignored"
    assert (found.rule, found.source) == ("dot files and folders", "built in")
    assert reason(vault, ".hidden.md") == "ignored"
    assert reason(vault, ".obsidian") == "ignored"


def test_ignored_by_exclude_names_the_rule_and_where_it_comes_from(vault: Path) -> None:
    found = why_not_a_note(vault, "node_modules/pkg/readme.md", SETTINGS, None)
    assert found is not None and found.reason == "ignored"
    assert (found.rule, found.source) == ("exclude = node_modules", "user config")
    write(vault, ".memlsp.toml", 'exclude = ["folder"]\n')
    settings, problems = load_vault_settings(vault, SETTINGS)
    assert problems == []
    found = why_not_a_note(vault, "folder/deeper.md", settings, None)
    assert found is not None and found.rule == "exclude = folder"
    assert found.source == "vault (.memlsp.toml)"


def test_too_large(vault: Path) -> None:
    found = why_not_a_note(vault, "big.md", SETTINGS, None)
    assert found is not None and found.reason == "too_large" and "limit" in found.detail
    assert why_not_a_note(vault, "big.md", replace(SETTINGS, max_file_bytes=5000), None) is None


def test_not_markdown(vault: Path) -> None:
    assert reason(vault, "picture.png") == "not_markdown"


def test_binary(vault: Path) -> None:
    assert reason(vault, "binary.md") == "binary"


def test_a_folder_is_not_a_file(vault: Path) -> None:
    assert reason(vault, "folder") == "not_a_file"


def test_bad_paths(vault: Path) -> None:
    assert reason(vault, "../outside.md") == "bad_name"
    assert reason(vault, "caf\udce9.md") == "bad_name"


def test_symlinks(vault: Path, tmp_path: Path) -> None:
    write(tmp_path, "outside.md", "# Outside\n")
    os.symlink(tmp_path / "outside.md", vault / "out.md")
    os.symlink(vault / "gone.md", vault / "broken.md")
    os.symlink(vault / "note.md", vault / "inside.md")
    assert reason(vault, "out.md") == "symlink_outside"
    assert reason(vault, "broken.md") == "broken_symlink"
    assert reason(vault, "inside.md") is None


def test_unreadable(vault: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    (vault / "note.md").chmod(0)
    assert reason(vault, "note.md") == "unreadable"


def test_a_record_as_the_index_read_it_is_its_answer(vault: Path) -> None:
    stat = (vault / "note.md").stat()
    record = FileRecord("note.md", stat.st_mtime_ns, stat.st_size, "", None, (), "binary file (x)")
    assert why_not_a_note(vault, "note.md", SETTINGS, record) == NotNote(
        "binary", "binary file (x)"
    )
    stale = replace(record, size=record.size + 1)  # the file changed since: read it again
    assert why_not_a_note(vault, "note.md", SETTINGS, stale) is None


def test_every_reason_of_the_scan_has_a_kind() -> None:
    assert problem_kind("too large (12.0 MB > 10 MB limit)") == "too_large"
    assert problem_kind("symlink points outside the vault; not followed") == "symlink_outside"
    assert problem_kind("name is not valid UTF-8; skipped — rename it to index it") == "bad_name"
    assert problem_kinds("frontmatter has no closing '---'; indexed as text") == (
        "invalid_frontmatter",
    )
    assert problem_kinds(
        "not valid UTF-8 at byte 4; decoded with replacement; invalid YAML "
        "frontmatter at frontmatter line 2: x"
    ) == ("not_utf8", "invalid_frontmatter")
    assert problem_kinds("something new") == ("other",)


def test_the_groups_of_a_scan_agree_with_one_path_at_a_time(vault: Path) -> None:
    scan = scan_vault(vault, SETTINGS)
    assert ".obsidian/" in scan.ignored and "node_modules/" in scan.ignored
    assert [p for p in scan.ignored if p.startswith(".obsidian/")] == [".obsidian/"]  # not walked
    records = {}
    for path, stat in scan.indexable.items():
        text = read_text(vault, stat, SETTINGS)
        records[path] = (
            FileRecord(path, stat.mtime_ns, stat.size, text.digest, None, (), text.problem)
            if text.text is None
            else None
        )
    groups = not_notes(scan, {p: r for p, r in records.items() if r}, SETTINGS).groups
    by_reason: dict[str, set[str]] = {}
    for group, paths in groups:
        assert group.reason in REASONS
        by_reason.setdefault(group.reason, set()).update(paths)
    assert by_reason == {
        "ignored": {".obsidian/", ".hidden.md", "node_modules/"},
        "too_large": {"big.md"},
        "not_markdown": {"picture.png"},
        "binary": {"binary.md"},
    }
    for found in by_reason.values():
        for path in found:
            one = why_not_a_note(vault, path.rstrip("/"), SETTINGS, None)
            assert one is not None and one.reason in by_reason and path in by_reason[one.reason]
