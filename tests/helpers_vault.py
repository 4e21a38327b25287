"""Helpers for tests of the pure layers: read the fixture vault, build notes and links in memory."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from memlsp.model import Link, Note, ResolvedLink
from memlsp.parse.markdown import parse_markdown
from memlsp.vault.graph import LinkGraph
from memlsp.vault.rules import DEFAULT_RULES, VaultRules

FIXTURE_VAULT = Path(__file__).resolve().parent.parent / "fixtures" / "vault"


def read_vault(root: Path, rules: VaultRules = DEFAULT_RULES) -> tuple[dict[str, Note], list[str]]:
    """Every Markdown note parsed (by vault-relative path) and every other file's path, skipping
    what the vault ignores; the rules see the path inside the vault only, as the scan does."""
    notes: dict[str, Note] = {}
    files: list[str] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or rules.ignored(rel):
            continue
        if rules.is_note(rel):
            notes[rel] = parse_markdown(rel, path.read_text(encoding="utf-8"))
        else:
            files.append(rel)
    return notes, files


def graph_of(notes: dict[str, Note] | Iterable[Note], files: Iterable[str] = ()) -> LinkGraph:
    graph = LinkGraph()
    graph.load(list(notes.values()) if isinstance(notes, dict) else notes, files)
    return graph


def only_link(source: str, written: str) -> Link:
    """The one link in a note whose whole text is `written`."""
    links = parse_markdown(source, written).links
    assert len(links) == 1, f"expected one link in {written!r}, got {links}"
    return links[0]


def outlink(graph: LinkGraph, source: str, target: str) -> ResolvedLink:
    """The first outlink of `source` written with `target` as its target text."""
    found = [item for item in graph.outlinks(source) if item.link.target == target]
    assert found, f"{source} has no link to {target!r}: {graph.outlinks(source)}"
    return found[0]
