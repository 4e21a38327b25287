"""The real vaults in ../shared/data: every note parses, the link graph builds, counts are printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.config import Settings
from memlsp.model import LinkStatus
from memlsp.parse.files import parse_file
from memlsp.sync.scan import read_text, scan_vault
from memlsp.vault.graph import LinkGraph
from memlsp.vault.rules import VaultRules

VAULTS = Path(__file__).resolve().parents[2] / "shared" / "data" / "vaults"
NAMES = ["knowledge-garden", "vaultofknowledge", "foam-docs", "kepano-obsidian"]


@pytest.mark.realdata
@pytest.mark.parametrize("name", NAMES)
def test_real_vault_parses_and_links(name: str) -> None:
    root = VAULTS / name
    if not root.is_dir():
        pytest.skip(f"real vault {name} not found under {VAULTS} (shared test data absent)")
    settings = Settings(embedder="none")
    rules = VaultRules.of(settings)
    scan = scan_vault(root, settings)
    notes = []
    for stat in scan.indexable.values():
        content = read_text(root, stat, settings)
        if content.text is not None:
            records = rules.is_records(stat.path)
            parsed = parse_file(stat.path, content.text, settings.max_chunk_tokens, records=records)
            notes.append(parsed.note)
    graph = LinkGraph()
    graph.load(notes, scan.files)
    counts = graph.counts()
    resolved = counts["links"] - counts["unresolved"] - counts["ambiguous"]
    print(
        f"\n{name}: {len(notes)} notes, {counts['links']} links: {resolved} resolved, "
        f"{counts['unresolved']} unresolved, {counts['ambiguous']} ambiguous; "
        f"{len(scan.skipped)} skipped"
    )
    assert len(notes) >= 0.99 * len(scan.indexable)  # only binary or oversized files are left out
    assert counts["links"] == sum(len(note.links) for note in notes)
    assert resolved > 0
    for item in graph.links_with_status(LinkStatus.AMBIGUOUS):
        assert len(item.resolution.candidates) > 1
        assert item.resolution.targets[0] in item.resolution.candidates
