"""Which files a vault counts, a path's stem and which characters are CJK: one answer each, the
same for the scan, the watcher, the live vault, the editor's watch registration and the tests."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from lsprotocol import types

from memlsp.embed.bilingual import cjk_share
from memlsp.lsp.features import lifecycle
from memlsp.model import Note
from memlsp.parse.markdown import parse_markdown
from memlsp.parse.tokens import has_cjk, segment
from memlsp.settings.table import Settings
from memlsp.sync.scan import is_indexable, scan_vault, stat_path
from memlsp.sync.watcher import VaultWatcher
from memlsp.text import basename, cjk_letters, stem
from memlsp.vault.names import NameTable, is_note_path
from memlsp.vault.rules import DEFAULT_RULES, VaultRules
from tests.helpers.vault import read_vault

RULES = VaultRules.of(Settings(exclude=("Templates", "archive")))


@pytest.mark.parametrize(
    ("path", "ignored"),
    [
        ("notes/a.md", False),
        (".obsidian/workspace.md", True),
        (".obsidian", True),
        ("notes/deep/er/.trash/old.md", True),  # a dot-folder deep inside
        ("notes/.hidden.md", True),  # a dot-file
        ("Templates/daily.md", True),  # an excluded folder at the top
        ("projects/archive/2023.md", True),  # and deeper down
        ("projects/archived/2023.md", False),  # a name only starting like an excluded one
        ("templates/daily.md", False),  # exclude names are matched as written
        ("notes/v1.2 release.md", False),  # a dot inside a name is not a dot-file
        ("Templates", True),  # a single name is a one-part path (the scan asks per entry)
    ],
)
def test_ignored_looks_at_every_part_of_the_relative_path(path: str, ignored: bool) -> None:
    assert RULES.ignored(path) is ignored
    # The scan asks each entry by its name alone, as a path of one part.
    name = path.rsplit("/", 1)[-1]
    assert RULES.ignored_name(name) is RULES.ignored(name)


@pytest.mark.parametrize(
    ("path", "indexable", "note", "records"),
    [
        ("a.md", True, True, False),
        ("a/B.MD", True, True, False),  # suffixes are compared without case
        ("a/b.Markdown", True, True, False),
        ("c.markdown", True, True, False),
        ("memory/log.jsonl", True, False, True),
        ("memory/LOG.JSONL", True, False, True),
        ("image.png", False, False, False),
        ("md", False, False, False),
        ("notes.md.bak", False, False, False),
        ("a.jsonl.md", True, True, False),
    ],
)
def test_indexable_by_suffix_whatever_its_case(
    path: str, indexable: bool, note: bool, records: bool
) -> None:
    assert (RULES.indexable(path), RULES.is_note(path), RULES.is_records(path)) == (
        indexable,
        note,
        records,
    )
    assert is_indexable(path, Settings()) is indexable
    assert is_note_path(path) is note  # link resolution knows notes by the same suffixes


def test_rules_follow_the_settings() -> None:
    rules = VaultRules.of(Settings(note_suffixes=(".MD", ".txt"), record_suffixes=()))
    assert rules.indexable("a.txt") and rules.indexable("a.md")
    assert not rules.indexable("a.jsonl") and not rules.indexable("a.markdown")
    assert VaultRules.of(Settings()) == DEFAULT_RULES


def _glob_suffixes(glob: str) -> set[str]:
    """The suffixes a `**/*.x` or `**/*.{x,y}` glob matches."""
    found = re.fullmatch(r"\*\*/\*\.(?:\{([^{}]+)\}|([^{},]+))", glob)
    assert found, glob
    return {"." + name for name in (found.group(1) or found.group(2)).split(",")}


@pytest.mark.parametrize(
    "settings",
    [
        Settings(),
        Settings(note_suffixes=(".md",), record_suffixes=()),
        Settings(note_suffixes=(".md", ".txt"), record_suffixes=(".jsonl", ".ndjson")),
    ],
)
def test_watch_glob_is_made_of_the_indexable_suffixes(settings: Settings) -> None:
    glob = VaultRules.of(settings).watch_glob()
    assert _glob_suffixes(glob) == set(settings.note_suffixes + settings.record_suffixes)


def test_default_watch_glob_is_the_one_clients_got_before() -> None:
    assert DEFAULT_RULES.watch_glob() == "**/*.{md,markdown,jsonl}"


def test_the_client_is_asked_to_watch_the_rules_glob() -> None:
    asked: list[types.RegistrationParams] = []

    async def register(params: types.RegistrationParams) -> None:
        asked.append(params)

    watched = types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
    server: Any = SimpleNamespace(
        client_settings=SimpleNamespace(
            current=Settings(note_suffixes=(".md",), record_suffixes=())
        ),
        client_capabilities=types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(did_change_watched_files=watched)
        ),
        client_register_capability_async=register,
    )
    asyncio.run(lifecycle._watch_files_on_client(server))
    options = asked[0].registrations[0].register_options
    assert isinstance(options, types.DidChangeWatchedFilesRegistrationOptions)
    assert [w.glob_pattern for w in options.watchers] == ["**/*.md"]


def _tricky_vault(root: Path) -> None:
    files = {
        "a.md": "# A\n",
        "notes/B.MD": "# B\n",
        "notes/c.markdown": "# C\n",
        "memory/log.jsonl": '{"a": 1}\n',
        "assets/picture.png": "png",
        ".obsidian/workspace.md": "# no\n",
        "notes/deep/.trash/old.md": "# no\n",
        "notes/.hidden.md": "# no\n",
        "Templates/daily.md": "# no\n",
        "projects/archive/2023.md": "# no\n",
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


def test_scan_watcher_and_helpers_agree_on_a_vault_under_a_dot_folder(tmp_path: Path) -> None:
    # The vault's own absolute path goes through a dot-folder (a checkout under `~/.local/...`):
    # only the part inside the vault may decide what is ignored.
    root = tmp_path / ".config" / "vault"
    _tricky_vault(root)
    settings = Settings(exclude=("Templates", "archive"))
    rules = VaultRules.of(settings)
    expected = {"a.md", "notes/B.MD", "notes/c.markdown", "memory/log.jsonl"}

    scan = scan_vault(root, settings)
    assert set(scan.indexable) == expected
    assert scan.files == ["assets/picture.png"]

    notes, files = read_vault(root, rules)
    assert set(notes) == expected - {"memory/log.jsonl"}
    assert sorted(files) == ["assets/picture.png", "memory/log.jsonl"]

    watcher = VaultWatcher(root, settings, lambda paths: None)
    every = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    reported = {p for p in every if watcher.relative(str(root / p)) is not None}
    assert reported == expected | {"assets/picture.png"}
    # A single path the watcher or an editor reports is stat'ed like the scan's files (the
    # ignored ones were filtered out before, by the watcher or the live vault).
    kept = [p for p in every if not rules.ignored(p)]
    assert {p for p in kept if stat_path(root, p, settings) is not None} == expected


def test_the_fixture_vault_reads_the_same_from_under_a_dot_folder(tmp_path: Path) -> None:
    root = tmp_path / ".hidden" / "vault"
    root.mkdir(parents=True)
    (root / "note.md").write_text("# Note\n\n[[other]]\n", encoding="utf-8")
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.md").write_text("# no\n", encoding="utf-8")
    notes, files = read_vault(root)
    assert list(notes) == ["note.md"] and files == []


@pytest.mark.parametrize(
    ("path", "name", "expected_stem"),
    [
        ("a/b/c.md", "c.md", "c"),
        ("c.md", "c.md", "c"),
        ("notes/v1.2 release.md", "v1.2 release.md", "v1.2 release"),
        ("folder.with.dots/note", "note", "note"),
        ("memory/log.jsonl", "log.jsonl", "log"),
        ("数据/向量检索.markdown", "向量检索.markdown", "向量检索"),
        ("README", "README", "README"),
    ],
)
def test_basename_and_stem(path: str, name: str, expected_stem: str) -> None:
    assert basename(path) == name
    assert stem(path) == expected_stem


def test_every_stem_is_the_same_stem() -> None:
    path = "notes/v1.2 release.md"
    note: Note = parse_markdown(path, "no heading here\n")
    assert note.stem == stem(path) == note.title  # the title falls back to the stem
    assert NameTable.names_of(path) == {"v1.2 release"}


@pytest.mark.parametrize(
    ("text", "cjk"),
    [
        ("笔记", True),  # CJK Unified Ideographs
        ("㐀", True),  # Extension A
        ("豈", True),  # a compatibility ideograph
        ("ひらがな", True),  # Japanese hiragana
        ("カタカナ", True),  # Japanese katakana
        ("한국어", True),  # Korean Hangul syllables
        ("ㄅㄆㄇ", False),  # Bopomofo: left out (see memlsp/text.py)
        ("ㅋㅋㅋ", False),  # Hangul compatibility jamo: left out too
        ("café naïve", False),
    ],
)
def test_one_cjk_class_for_the_tokenizer_and_the_embedder(text: str, cjk: bool) -> None:
    assert has_cjk(text) is cjk
    assert cjk_share(text) == (1.0 if cjk else 0.0)
    # The keyword side sets CJK runs apart; other text passes through untouched.
    assert (segment(text) != text) is cjk


def test_cjk_share_counts_letters_only() -> None:
    assert cjk_share("abc 中文!!") == pytest.approx(2 / 5)
    assert cjk_share("・") == 0.0 and cjk_letters("カ・カ") == 2  # the middle dot is no letter
    assert cjk_share("12 + 3") == 0.0
