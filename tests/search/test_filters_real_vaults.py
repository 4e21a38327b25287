"""Property filters on copies of the real vaults in ../shared/data: for several properties of
knowledge-garden (Chinese values, dates, numbers) and kepano-obsidian (list- and link-valued
properties, template placeholders), a search by filters alone lists exactly the notes whose
frontmatter, as python-frontmatter reads it, holds them (precision and recall 1.0), through the
command line and MCP alike; a filtered keyword search finds only such notes."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import frontmatter
import pytest

from memlsp.agent.source import VaultSource
from memlsp.agent.tools import Memory
from memlsp.cli import main
from memlsp.settings.table import Settings
from tests.helpers.paths import REPO

VAULTS = REPO.parent / "shared" / "data" / "vaults"
LINK = re.compile(r"\[\[([^\[\]|#]*)[^\[\]]*\]\]")


def fold(value: object) -> str:
    return unicodedata.normalize("NFC", str(value)).strip().casefold()


def elements(meta: dict[str, Any], key: str) -> list[Any] | None:
    """The property's values, a list flattened; None when the note has no such property."""
    for name, value in meta.items():
        if fold(name) == key:
            values = value if isinstance(value, list) else [value]
            return [item for item in values if item is not None and item != ""]
    return None


def names(item: Any) -> set[str]:
    """What a value is called: its text, and for a link its target and the target's name."""
    text = fold(item)
    found = LINK.fullmatch(text)
    if found is None:
        return {text}
    target = found.group(1).strip()
    return {text, target, target.rsplit("/", 1)[-1]}


def equal(key: str, wanted: str) -> Callable[[dict[str, Any]], bool]:
    def holds(meta: dict[str, Any]) -> bool:
        return any(fold(wanted) in names(item) for item in elements(meta, key) or [])

    return holds


def present(key: str) -> Callable[[dict[str, Any]], bool]:
    return lambda meta: elements(meta, key) is not None


def not_equal(key: str, wanted: str) -> Callable[[dict[str, Any]], bool]:
    return lambda meta: not equal(key, wanted)(meta)


def at_least(key: str, number: float) -> Callable[[dict[str, Any]], bool]:
    def holds(meta: dict[str, Any]) -> bool:
        values = elements(meta, key) or []
        return any(
            isinstance(item, int | float) and not isinstance(item, bool) and item >= number
            for item in values
        )

    return holds


def before(key: str, day: dt.date) -> Callable[[dict[str, Any]], bool]:
    def holds(meta: dict[str, Any]) -> bool:
        values = elements(meta, key) or []
        days = [item.date() if isinstance(item, dt.datetime) else item for item in values]
        return any(isinstance(item, dt.date) and item < day for item in days)

    return holds


# (vault, the filter as the command line writes it, the same as an MCP `where` object, what
# python-frontmatter's reading of a note must hold)
CASES = [
    ("knowledge-garden", ["--type", "Movie"], {"type": "Movie"}, equal("type", "Movie")),
    ("knowledge-garden", ["--where", "state=想看"], {"state": "想看"}, equal("state", "想看")),
    (
        "knowledge-garden",
        ["--where", "state=看过", "--type", "movie"],
        {"state": "看过", "type": "movie"},
        lambda meta: equal("state", "看过")(meta) and equal("type", "movie")(meta),
    ),
    ("knowledge-garden", ["--where", "author=刘慈欣"], {"author": "刘慈欣"}, equal("author", "刘慈欣")),
    ("knowledge-garden", ["--where", "author"], {"author": None}, present("author")),
    ("knowledge-garden", ["--where", "myRating>=4"], {"myRating": ">=4"}, at_least("myrating", 4)),
    (
        "knowledge-garden",
        ["--where", "datePublished<2000-01-01"],
        {"datePublished": "<2000-01-01"},
        before("datepublished", dt.date(2000, 1, 1)),
    ),
    ("knowledge-garden", ["--where", "type!=Movie"], {"type": "!=Movie"}, not_equal("type", "Movie")),
    ("kepano-obsidian", ["--where", "categories=Books"], {"categories": "Books"}, equal("categories", "Books")),
    (
        "kepano-obsidian",
        ["--where", "categories=[[Places]]"],
        {"categories": "[[Places]]"},
        equal("categories", "Places"),
    ),
    ("kepano-obsidian", ["--where", "author=Steph Ango"], {"author": "Steph Ango"}, equal("author", "Steph Ango")),
    ("kepano-obsidian", ["--type", "[[Game studios]]"], {"type": "[[Game studios]]"}, equal("type", "Game studios")),
    ("kepano-obsidian", ["--where", "rating>=6"], {"rating": ">=6"}, at_least("rating", 6)),
    ("kepano-obsidian", ["--where", "rating"], {"rating": None}, present("rating")),
    ("kepano-obsidian", ["--where", "year>=2000"], {"year": ">=2000"}, at_least("year", 2000)),
]  # fmt: skip


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """A real vault copied into tmp and indexed (keyword side only), once per module."""
    made: dict[str, Path] = {}

    def copy(name: str) -> Path:
        if name not in made:
            source = VAULTS / name
            if not source.is_dir():
                pytest.skip(f"real vault {name} not found under {VAULTS} (shared test data absent)")
            vault = tmp_path_factory.mktemp(name) / "vault"
            shutil.copytree(source, vault)
            (vault / ".memlsp.toml").write_text('embedder = "none"\n', encoding="utf-8")
            made[name] = vault
        return made[name]

    return copy


def frontmatter_notes(vault: Path, indexed: set[str]) -> dict[str, dict[str, Any]]:
    """Each indexed note's frontmatter as python-frontmatter reads it ({} when it cannot)."""
    found = {}
    for path in indexed:
        try:
            found[path] = frontmatter.load(vault / path).metadata
        except Exception:  # a template's `{{title}}` is no YAML mapping: no properties
            found[path] = {}
    return found


def listed(capsys: pytest.CaptureFixture[str], vault: Path, *args: str) -> list[str]:
    cache = vault.parent / "cache"
    code = main(["search", str(vault), *args, "--json", "--limit", "100000", "--no-expand",
                 "--cache-dir", str(cache), "--no-daemon"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    return [result["path"] for result in json.loads(out)["results"]]


@pytest.mark.realdata
@pytest.mark.e2e  # indexing a real vault parses it in worker processes
@pytest.mark.parametrize(
    ("name", "flags", "where", "holds"),
    CASES,
    ids=[" ".join(case[1]) for case in CASES],
)
def test_a_list_by_filters_is_exactly_the_notes_whose_frontmatter_holds_them(
    copies: Callable[[str], Path],
    capsys: pytest.CaptureFixture[str],
    name: str,
    flags: list[str],
    where: dict[str, Any],
    holds: Callable[[dict[str, Any]], bool],
) -> None:
    copied = copies(name)
    indexed = set(listed(capsys, copied, "--path", "."))  # every note, listed
    wanted = {path for path, meta in frontmatter_notes(copied, indexed).items() if holds(meta)}
    assert wanted, "a case that no note holds proves nothing"
    found = listed(capsys, copied, *flags)
    assert len(found) == len(set(found))
    assert set(found) == wanted
    if len(wanted) < len(indexed):  # keyword searches among them find only them
        found_any = False
        for some in sorted(wanted)[:5]:  # their names as queries (a few notes have no text)
            searched = listed(capsys, copied, Path(some).stem, "--mode", "keyword", *flags)
            assert set(searched) <= wanted, Path(some).stem
            found_any = found_any or bool(searched)
        assert found_any
    settings = Settings(cache_dir=copied.parent / "cache", embedder="none")
    source = VaultSource(copied, settings)
    source.start()
    try:
        memory = Memory(source, allow_writes=False)
        answer = memory.search("", 100_000, "hybrid", None, None, None, None, 10**9, where=where)
    finally:
        source.close()
    assert [result["path"] for result in answer["results"]] == found
    print(f"\n{name} {' '.join(flags)}: {len(found)} notes of {len(indexed)}")
