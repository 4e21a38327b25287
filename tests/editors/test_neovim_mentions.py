"""Unlinked mentions and related notes in a real headless Neovim 0.11 attached to memlsp.

`tests/nvim/check_mentions.lua` does the work inside Neovim (diagnostics, quick fixes applied with
Neovim's own `apply_workspace_edit`, code lenses run through the bindings of docs/editors.md) and prints one
JSON line per check; this test writes a small vault with a case of each rule of docs/mentions.md,
runs it, and asserts on those lines what each case must give.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.editors import (
    find_nvim,
    headless_neovim,
    isolated_env,
    recipe_snippet,
    run_bounded,
)
from tests.helpers.paths import REPO

SCRIPT = REPO / "tests" / "nvim" / "check_mentions.lua"
TIMEOUT_SECONDS = 180
NOTE = "search log.md"  # the note Neovim opens first: it mentions the others
MENTIONED = "Reciprocal Rank Fusion.md"

pytestmark = pytest.mark.e2e  # starts Neovim and memlsp

SEARCH_LOG = (
    "---\n"
    "tags: [bm25]\n"
    "summary: BM25 and Reciprocal Rank Fusion, tried\n"  # frontmatter: never a mention
    "---\n"
    "# Search log\n"
    "\n"
    "Today I tuned bm25 and compared BM25 with BM25s, a Python port.\n"
    "Then I read about reciprocal rank fusion and RRF for merging lists.\n"
    "我们用向量检索找相近的段落，也在学人工智能。\n"  # 向量检索 a word; 智能 inside 人工智能
    "The roadmap says ship it; the old Roadmap disagrees.\n"  # two notes are named Roadmap
    "AI helps, but this search log is only for me.\n"  # AI too short; its own name
    "Linked already: [[bm25]], [BM25](bm25.md) and [[bm25|BM25 scores]].\n"
    "Code `bm25`, https://example.com/bm25 and <https://example.com/BM25>.\n"
    "Tagged #bm25 <!-- BM25 in a comment -->\n"
    "\n"
    "```python\n"
    "scores = BM25(corpus)\n"
    "```\n"
)

NOTES = {
    NOTE: SEARCH_LOG,
    "bm25.md": "# BM25\n\nOkapi BM25 ranks documents by term frequency and inverse document "
    "frequency.\n",
    MENTIONED: "---\naliases: [RRF]\n---\n# Reciprocal Rank Fusion\n\nMerges several ranked "
    "result lists into one: a document scores the sum of one over k plus its rank in each list.\n",
    "hybrid search.md": "# Hybrid search\n\nKeyword ranking and vector ranking side by side: "
    "their two ranked result lists are merged into one list with RRF.\n",
    "论文摘录.md": "# 论文摘录\n\n今天读了Reciprocal Rank Fusion的论文，还有 reciprocal rank fusion "
    "的例子。\n",
    "向量检索.md": "# 向量检索\n\n把文本变成向量，用余弦相似度找相近的文本。\n",
    "智能.md": "# 智能\n\n智能是什么？\n",
    "AI.md": "# AI\n\nArtificial intelligence.\n",
    "projects/Roadmap.md": "# Roadmap\n\nWhat ships next quarter.\n",
    "archive/Roadmap.md": "# Roadmap\n\nWhat we planned last year.\n",
}

# What is flagged in `search log.md`, in order; nothing in links, code, URLs, frontmatter, tags or
# comments, not BM25s, AI, 智能 (inside 人工智能) or the note's own name.
FLAGGED = ["bm25", "BM25", "reciprocal rank fusion", "RRF", "向量检索", "roadmap", "Roadmap"]
ROADMAPS = ["archive/Roadmap.md", "projects/Roadmap.md"]

LINKED_HERE = SEARCH_LOG.replace(
    "tuned bm25 and compared BM25 with", "tuned [[bm25]] and compared [[bm25|BM25]] with"
)
LINKED_EVERYWHERE = {
    NOTE: LINKED_HERE.replace(
        "about reciprocal rank fusion and RRF for",
        "about [[Reciprocal Rank Fusion|reciprocal rank fusion]] and "
        "[[Reciprocal Rank Fusion|RRF]] for",
    ),
    "hybrid search.md": NOTES["hybrid search.md"].replace(
        "with RRF.", "with [[Reciprocal Rank Fusion|RRF]]."
    ),
    "论文摘录.md": "# 论文摘录\n\n今天读了[[Reciprocal Rank Fusion]]的论文，还有 "
    "[[Reciprocal Rank Fusion|reciprocal rank fusion]] 的例子。\n",
}


def write_vault(vault: Path) -> None:
    (vault / ".obsidian").mkdir(parents=True)
    for rel, text in NOTES.items():
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def spot(text: str, needle: str) -> tuple[int, int]:
    """1-based line and 1-based byte column of `needle` in `text`, as a quickfix item has them."""
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number, len(line[: line.index(needle)].encode("utf-8")) + 1
    raise AssertionError(f"{needle!r} not in the text")


def quickfix_item(rel: str, text: str, needle: str) -> dict[str, Any]:
    line, column = spot(text, needle)
    return {"file": rel, "lnum": line, "col": column, "text": text.splitlines()[line - 1]}


def place(item: dict[str, Any]) -> tuple[str, int, int]:
    return item["file"], item["lnum"], item["col"]


def run_neovim(tmp_path: Path, vault: Path) -> subprocess.CompletedProcess[str]:
    recipe = tmp_path / "recipe.lua"
    recipe.write_text(recipe_snippet("Neovim: related notes", "lua"), encoding="utf-8")
    args = headless_neovim(find_nvim(), SCRIPT, vault, tmp_path / "cache", sys.executable, recipe)
    return run_bounded(args, REPO, isolated_env(tmp_path / "home"), TIMEOUT_SECONDS)


CHECKS = (
    "initialized",
    "indexed",
    "diagnostics",
    "actions at a shared name",
    "actions at a mention",
    "link all in this note",
    "diagnostics after linking",
    "code lenses",
    "recipe bindings load",
    "show unlinked",
    "show related",
    "link all unlinked mentions",
    "no mentions left",
    "client stopped",
    "done",
)


@dataclass(frozen=True, slots=True)
class Session:
    """What one Neovim session printed: its checks by name, and all its output for messages."""

    checks: dict[str, dict[str, Any]]
    report: str

    def __getitem__(self, name: str) -> dict[str, Any]:
        assert name in self.checks, f"no {name!r} check\n{self.report}"
        return self.checks[name]


@pytest.fixture(scope="module")
def neovim(tmp_path_factory: pytest.TempPathFactory) -> Session:
    """One Neovim session over the vault, shared by the tests below."""
    tmp_path = tmp_path_factory.mktemp("neovim-mentions")
    vault = tmp_path / "vault"
    write_vault(vault)
    process = run_neovim(tmp_path, vault)
    records = [json.loads(line) for line in process.stdout.splitlines() if line.startswith("{")]
    report = f"exit {process.returncode}\nstdout:\n{process.stdout}\nstderr:\n{process.stderr}"
    return Session({record["check"]: record for record in records}, report)


def test_every_check_ran_and_passed(neovim: Session) -> None:
    assert [record for record in neovim.checks.values() if not record["ok"]] == [], neovim.report
    assert [name for name in CHECKS if name not in neovim.checks] == [], neovim.report


def test_diagnostics_flag_exactly_the_mentions(neovim: Session) -> None:
    report = neovim.report
    flagged = neovim["diagnostics"]["flagged"]
    assert [item["text"] for item in flagged] == FLAGGED, report
    assert {item["severity"] for item in flagged} == {4}, report  # Hint
    by_text = {item["text"]: item for item in flagged}
    assert by_text["BM25"]["message"] == "“BM25” could link to [[bm25]]", report
    assert by_text["BM25"]["candidates"] == ["bm25.md"], report
    assert by_text["RRF"]["candidates"] == [MENTIONED], report
    roadmap = by_text["roadmap"]
    assert roadmap["candidates"] == ROADMAPS, report
    assert roadmap["message"] == (
        "“roadmap” could link to [[archive/Roadmap]] or [[projects/Roadmap]]"
    ), report


def test_a_shared_name_is_offered_once_per_note_and_never_linked_all(neovim: Session) -> None:
    report = neovim.report
    titles = neovim["actions at a shared name"]["titles"]
    assert [title for title in titles if "roadmap" in title.lower()] == [
        "Link “roadmap” to [[archive/Roadmap]]",
        "Link “roadmap” to [[projects/Roadmap]]",
    ], report
    assert not [title for title in titles if title.startswith("Link all")], report


def test_link_all_in_this_note_keeps_the_text_as_written(neovim: Session) -> None:
    report = neovim.report
    actions = neovim["actions at a mention"]
    assert "Link “BM25” to [[bm25]]" in actions["titles"], report
    assert set(actions["kinds"]) == {"quickfix"}, report
    linked = neovim["link all in this note"]
    assert linked["title"] == "Link all 2 mentions of “BM25” in this note", report
    assert linked["kind"] == "quickfix", report
    assert linked["text"] == LINKED_HERE, report
    # the linked name leaves the diagnostics; the shared name stays, as does everything else
    assert neovim["diagnostics after linking"]["flagged"] == FLAGGED[2:], report


def test_code_lenses_on_the_mentioned_note(neovim: Session) -> None:
    report = neovim.report
    lenses = neovim["code lenses"]
    assert lenses["unlinked"] and lenses["related"], report
    uri = lenses["unlinked"]["arguments"][0]
    assert uri.endswith("/Reciprocal%20Rank%20Fusion.md"), report
    assert lenses["unlinked"] == {
        "title": "5 unlinked",
        "command": "memlsp.showUnlinked",
        "arguments": [uri],
    }, report
    assert lenses["related"]["command"] == "memlsp.showRelated", report
    assert lenses["related"]["arguments"] == [uri], report


def test_the_recipe_binding_lists_the_unlinked_mentions(neovim: Session) -> None:
    report = neovim.report
    assert neovim["recipe bindings load"]["ok"], report
    shown = neovim["show unlinked"]
    assert shown["title"] == "Mentions of Reciprocal Rank Fusion", report
    assert shown["window"], report
    # the open note as Neovim holds it (its bm25 already linked), the others as on disk
    expected = [
        quickfix_item(NOTE, LINKED_HERE, "reciprocal rank fusion"),
        quickfix_item(NOTE, LINKED_HERE, "RRF"),
        quickfix_item("hybrid search.md", NOTES["hybrid search.md"], "RRF"),
        quickfix_item("论文摘录.md", NOTES["论文摘录.md"], "Reciprocal Rank Fusion"),
        quickfix_item("论文摘录.md", NOTES["论文摘录.md"], "reciprocal rank fusion"),
    ]
    assert sorted(shown["items"], key=place) == sorted(expected, key=place), report


def test_the_recipe_binding_lists_the_related_notes(neovim: Session) -> None:
    report = neovim.report
    shown = neovim["show related"]
    assert shown["title"] == "Related to Reciprocal Rank Fusion", report
    files = [item["file"] for item in shown["items"]]
    assert MENTIONED not in files and set(files) <= set(NOTES), report
    assert "hybrid search.md" in files, report  # merging ranked lists, in other words
    assert all(item["lnum"] == 1 and item["col"] == 1 for item in shown["items"]), report


def test_link_all_unlinked_mentions_edits_open_and_closed_notes(neovim: Session) -> None:
    report = neovim.report
    linked = neovim["link all unlinked mentions"]
    assert linked["title"] == "Link all 5 unlinked mentions of Reciprocal Rank Fusion", report
    assert linked["kind"] == "refactor.rewrite", report
    versions = {change["file"]: change["version"] for change in linked["changes"]}
    assert set(versions) == set(LINKED_EVERYWHERE), report
    assert isinstance(versions[NOTE], int), report  # open in Neovim: the version it has
    assert versions["hybrid search.md"] is None and versions["论文摘录.md"] is None, report
    assert linked["texts"] == LINKED_EVERYWHERE, report
    assert neovim["no mentions left"]["left"] == [], report
