"""The rules the code relies on are written in `docs/`, and the code cites them there: every cited
`docs/*.md` file exists, and so does the section a citation names (`(docs/links.md, "Resolution")`).
No file cites a design document outside the repository. Every relative link of README.md and of
the pages in docs/ leads to a file that exists, and to a heading of it when it names one; the
README stays under 200 lines."""

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
# The pages a reader follows links through; `[text](target)` and `![alt](target)`.
PAGES = (
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "benchmarks" / "README.md",
)
LINK = re.compile(r"!?\[[^\]\n]*\]\(([^()\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")


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


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _links() -> list[tuple[str, str]]:
    """(page, relative link target) for every link of the pages, outside code."""
    found = []
    for page in PAGES:
        text = CODE_SPAN.sub("", FENCE.sub("", page.read_text(encoding="utf-8")))
        for match in LINK.finditer(text):
            target = match.group(1)
            if not re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, mailto:, ...
                found.append((str(page.relative_to(ROOT)), target))
    return found


def test_the_pages_have_links() -> None:
    pages = {page for page, _ in _links()}
    assert {"README.md", "docs/cli.md", "docs/editors.md", "docs/settings.md"} <= pages


@pytest.mark.parametrize(("page", "target"), _links())
def test_relative_links_lead_to_files_and_headings(page: str, target: str) -> None:
    path_part, _, anchor = target.partition("#")
    path = (ROOT / page).parent / path_part if path_part else ROOT / page
    assert path.exists(), f"{page} links to {target}: no such file"
    if anchor and path.suffix == ".md":
        headings = HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8")))
        assert anchor in {_slug(heading) for heading in headings}, (
            f"{page} links to {target}: no such heading in {path.relative_to(ROOT)}"
        )


def test_the_readme_is_short_and_keeps_the_test_command() -> None:
    """A newcomer reads the README in minutes; the rest is in docs/. CI runs its test command."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert '\npython -m pip install -e ".[test]" && python -m pytest -q\n' in readme
