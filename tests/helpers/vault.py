"""Vaults for tests: the fixture vault, notes written into a folder, and notes, links and graphs
parsed in memory for the tests of the pure layers."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from memlsp.model import Link, Note, ResolvedLink
from memlsp.navigation.places import Place
from memlsp.parse.files import parse_file
from memlsp.parse.markdown import parse_markdown
from memlsp.settings.table import Settings
from memlsp.sync.scan import VaultScan, read_text, scan_vault
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.rules import DEFAULT_RULES, VaultRules
from tests.helpers.paths import REPO

FIXTURE_VAULT = REPO / "fixtures" / "vault"

# Two notes in English: indexed in a blink, without loading the Chinese segmenter.
TWO_NOTES = {
    "alpha.md": "# Alpha\n\nLinks to [[beta]].\n",
    "beta.md": "# Beta\n\nThe second note.\n",
}


def write(vault: Path, path: str, text: str) -> Path:
    """Write one file of a vault (folders made as needed), as another program would."""
    full = vault / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_text(text, encoding="utf-8")
    return full


def write_notes(vault: Path, files: Mapping[str, str]) -> Path:
    """Write every file (vault-relative path -> text) into `vault`; the vault's folder."""
    for path, text in files.items():
        write(vault, path, text)
    return vault


def touch_later(path: Path) -> None:
    """Move the mtime forward so a rewrite within the same clock tick still counts as a change."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its size and mtime: proof that nothing was written there."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            stat = path.stat()
            found[str(path.relative_to(folder))] = (stat.st_size, stat.st_mtime_ns)
    return found


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


def place_uri(place: Place) -> str:
    """A made-up URI for a place, as navigation asks of its caller: path and line show in it."""
    return f"mem:{place.path}:{place.span.line}"


def parse_scanned(root: Path, settings: Settings) -> tuple[list[Note], VaultScan]:
    """Every note of a vault on disk, parsed as the indexer parses it, and its scan."""
    rules = VaultRules.of(settings)
    scan = scan_vault(root, settings)
    notes = []
    for stat in scan.indexable.values():
        content = read_text(root, stat, settings)
        if content.text is not None:
            records = rules.is_records(stat.path)
            parsed = parse_file(stat.path, content.text, settings.max_chunk_tokens, records=records)
            notes.append(parsed.note)
    return notes, scan


def live_threads(vault: Path) -> list[str]:
    """The names of the threads of a live vault of the folder `vault` still running (writer,
    watcher, embedding: each is named after the folder)."""
    names = {f"{kind} {vault.name}" for kind in ("index", "watch", "vectors")}
    return sorted(t.name for t in threading.enumerate() if t.name in names)
