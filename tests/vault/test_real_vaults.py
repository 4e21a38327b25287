"""The real vaults in ../shared/data: every note parses, the link graph builds, counts are printed."""

from __future__ import annotations

import time

import pytest

from memlsp.model import LinkStatus
from memlsp.settings.table import Settings
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.rules import VaultRules
from tests.helpers.paths import REPO
from tests.helpers.vault import parse_scanned

VAULTS = REPO.parent / "shared" / "data" / "vaults"
NAMES = ["knowledge-garden", "vaultofknowledge", "foam-docs", "kepano-obsidian"]


@pytest.mark.realdata
@pytest.mark.parametrize("name", NAMES)
def test_real_vault_parses_and_links(name: str) -> None:
    root = VAULTS / name
    if not root.is_dir():
        pytest.skip(f"real vault {name} not found under {VAULTS} (shared test data absent)")
    notes, scan = parse_scanned(root, Settings(embedder="none"))
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


@pytest.mark.realdata
@pytest.mark.parametrize("name", NAMES)
def test_renaming_the_most_linked_notes_and_moving_a_folder_keep_every_link(name: str) -> None:
    """Each of the five most-linked notes renamed, the edits applied and the vault indexed again:
    every link leads where it led; the reverse rename gives back every byte but for links that
    write the name in another case than the file's (rewritten with the name as given). The
    largest folder moved: the same."""
    from memlsp.model import Span
    from memlsp.navigation.edits import Change
    from memlsp.navigation.relink import relink
    from memlsp.navigation.rename import Renamable, Subject, rename
    from memlsp.vault.names import file_name, name_key
    from tests.helpers.memory_vault import applied, memory_view, targets

    root = VAULTS / name
    if not root.is_dir():
        pytest.skip(f"real vault {name} not found under {VAULTS} (shared test data absent)")
    rules = VaultRules.of(Settings(embedder="none"))
    files = {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8", errors="replace")
        if rules.is_note(path.name)
        else ""
        for path in sorted(root.rglob("*"))
        if path.is_file() and not rules.ignored(path.relative_to(root).as_posix())
    }
    view = memory_view(files)
    before = targets(view)
    edits, slowest, case_only = 0, 0.0, 0

    def kept(after: dict[str, str], moves: dict[str, str]) -> bool:
        wanted = sorted(tuple(moves.get(t, t) for t in found) for found in before.values())
        return sorted(targets(memory_view(after)).values()) == wanted

    for path in sorted(view.graph.notes, key=lambda p: (-view.graph.inlink_count(p), p))[:5]:
        old = file_name(path)
        started = time.perf_counter()
        forward = rename(view, Renamable(Subject.NOTE, Span(0, 0, 0), old, path), old + " 改名")
        slowest = max(slowest, time.perf_counter() - started)
        edits += len(forward.edits)
        after = applied(files, forward)
        new = forward.moves[0].new
        assert kept(after, {path: new}), path
        again = memory_view(after)
        back = applied(
            after, rename(again, Renamable(Subject.NOTE, Span(0, 0, 0), old + " 改名", new), old)
        )
        differing = [p for p in files if back[p] != files[p]]
        case_only += len(differing)
        for changed in differing:
            for was, now in zip(files[changed].split("\n"), back[changed].split("\n"), strict=True):
                assert was == now or name_key(was) == name_key(now), (changed, was, now)
    folder = max(
        {p.rsplit("/", 1)[0] for p in view.graph.notes if "/" in p},
        key=lambda f: sum(p.startswith(f + "/") for p in files),
    )
    moves = {p: "moved/" + p for p in files if p.startswith(folder + "/")}
    started = time.perf_counter()
    moved_edits = relink(view, moves)
    seconds = time.perf_counter() - started
    after = applied(files, Change(tuple(moved_edits)))
    assert kept({moves.get(p, p): text for p, text in after.items()}, moves)
    print(
        f"\n{name}: 5 most-linked notes renamed: {edits} edits, slowest {slowest * 1000:.0f} ms, "
        f"every link kept; reversed: {case_only} notes differ (a name's case only); "
        f"{folder}/ ({len(moves)} files) moved: {len(moved_edits)} edits in "
        f"{seconds * 1000:.0f} ms, every link kept"
    )
