"""The rules the code relies on are written in `docs/`, and the code cites them there: every cited
`docs/*.md` file exists, and so does the section a citation names (`(docs/links.md, "Resolution")`).
No file cites a design document outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.paths import REPO

ROOT = REPO
CITING = ("memlsp", "tests", "benchmarks")
SUFFIXES = {".py", ".md", ".toml", ".txt"}
# Written in two pieces so that this file does not match itself.
OUTSIDE_DESIGN = "DESIGN" + " §"
# `docs/<name>.md`, optionally followed by `, "Section"`. A name starts with a letter: test data such
# as `docs/123.md` or `docs/a%20b.md` is not a citation.
CITATION = re.compile(r"\bdocs/([A-Za-z][A-Za-z0-9_-]*\.md)(?:`?, \"([^\"\n]+)\")?")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _files() -> list[Path]:
    return sorted(
        path
        for folder in CITING
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and path.suffix in SUFFIXES and "node_modules" not in path.parts
    )


def _citations() -> list[tuple[str, str, str | None]]:
    """(citing file, cited docs file, cited section or None)."""
    found = []
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in CITATION.finditer(text):
            found.append((str(path.relative_to(ROOT)), match.group(1), match.group(2)))
    return found


def test_no_file_cites_the_design_document() -> None:
    citing = [
        str(path.relative_to(ROOT))
        for path in _files()
        if OUTSIDE_DESIGN in path.read_text(encoding="utf-8", errors="replace")
    ]
    assert citing == []


def test_the_rules_are_cited() -> None:
    cited = {doc for _, doc, _ in _citations()}
    assert {"links.md", "chunks.md", "vault-safety.md", "ARCHITECTURE.md"} <= cited


@pytest.mark.parametrize(("source", "doc", "section"), _citations())
def test_cited_docs_and_sections_exist(source: str, doc: str, section: str | None) -> None:
    path = ROOT / "docs" / doc
    assert path.is_file(), f"{source} cites docs/{doc}, which does not exist"
    if section is not None:
        headings = HEADING.findall(path.read_text(encoding="utf-8"))
        assert section in headings, f"{source} cites docs/{doc} section “{section}”: not a heading"
