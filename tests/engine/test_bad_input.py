"""Bad files: each is one clear line in the summary, the rest of the vault still indexes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlsp.engine.engine import Engine
from memlsp.model import IndexSummary, LinkStatus
from tests.helpers.engine import open_engine, paths_found
from tests.helpers.vault import snapshot, write


@pytest.fixture(scope="module")
def indexed(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Engine, IndexSummary, Path]]:
    tmp_path = tmp_path_factory.mktemp("bad-input")
    vault = tmp_path / "vault"
    outside = tmp_path / "outside"
    write(outside, "secret.md", "# Secret\n\nclassified words\n")
    write(
        vault,
        "good.md",
        "# Good\n\nperfectly ordinary note about gardening [[../outside/secret]]\n",
    )
    write(
        vault, "bad-yaml.md", "---\ntitle: [unclosed\n---\n# Bad yaml\n\nstill searchable tulips\n"
    )
    (vault / "latin1.md").write_bytes(
        "# Café\n\nna\xefve cr\xe8me br\xfbl\xe9e\n".encode("latin-1")
    )
    (vault / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    (vault / "huge.md").write_bytes(b"word " * (4_200_000))  # 21 MB
    write(vault, "long.md", "".join(f"line {n} of a very long note\n" for n in range(100_000)))
    (vault / "loop").mkdir()
    os.symlink("..", vault / "loop" / "back")  # a folder that contains itself
    os.symlink(outside, vault / "escape")  # a folder outside the vault
    os.symlink(outside / "secret.md", vault / "leak.md")  # a file outside the vault
    os.symlink(vault / "missing.md", vault / "dangling.md")
    os.mkfifo(vault / "pipe.md")  # reading it would block forever
    write(vault, "folder.md/inside.md", "# Inside a folder named like a note\n\nmarigolds\n")
    before = snapshot(vault)
    engine = open_engine(vault, tmp_path / "cache")
    summary = engine.refresh()
    assert snapshot(vault) == before
    yield engine, summary, vault
    engine.close()


def _reasons(items: tuple[object, ...]) -> dict[str, str]:
    return {item.path: item.reason for item in items}  # type: ignore[attr-defined]


def test_every_problem_is_one_line_and_the_rest_indexes(
    indexed: tuple[Engine, IndexSummary, Path],
) -> None:
    _engine, summary, _ = indexed
    skipped = _reasons(summary.skipped)
    problems = _reasons(summary.problems)
    assert "binary" in skipped["binary.md"]
    assert "too large" in skipped["huge.md"]
    assert "outside the vault" in skipped["escape"]
    assert "outside the vault" in skipped["leak.md"]
    assert "broken symlink" in skipped["dangling.md"]
    assert "not a regular file" in skipped["pipe.md"]
    assert "symlink" in skipped["loop/back"]
    assert "invalid YAML" in problems["bad-yaml.md"]
    assert "UTF-8" in problems["latin1.md"]
    assert all("\n" not in reason for reason in (*skipped.values(), *problems.values()))
    assert summary.notes == 5  # good, bad-yaml, latin1, long, folder.md/inside


def test_searches_still_work_around_bad_files(indexed: tuple[Engine, IndexSummary, Path]) -> None:
    engine, _, _ = indexed
    assert paths_found(engine, "gardening") == ["good.md"]
    assert paths_found(engine, "tulips") == ["bad-yaml.md"]
    assert paths_found(engine, "marigolds") == ["folder.md/inside.md"]
    assert paths_found(engine, "na") == ["latin1.md"]  # "na\ufffdve": the rest decoded
    assert paths_found(engine, "99999", expand=False) == ["long.md"]


def test_nothing_outside_the_vault_is_read_or_linked(
    indexed: tuple[Engine, IndexSummary, Path],
) -> None:
    engine, _, _ = indexed
    assert paths_found(engine, "classified") == []
    [link] = engine.read().links("good.md").outlinks
    assert link.resolution.status is LinkStatus.OUTSIDE


def test_invalid_yaml_note_keeps_its_frontmatter_as_text(
    indexed: tuple[Engine, IndexSummary, Path],
) -> None:
    engine, _, _ = indexed
    assert paths_found(engine, "unclosed") == ["bad-yaml.md"]


def test_a_fixed_file_is_picked_up_again(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "binary.md").write_bytes(b"\x00\x01 not text")
    engine = open_engine(vault, tmp_path / "cache")
    assert "binary.md" in _reasons(engine.refresh().skipped)
    (vault / "binary.md").write_text("# Repaired\n\nbegonias\n")
    summary = engine.refresh()
    assert summary.modified == 1
    assert "binary.md" not in _reasons(summary.skipped)
    assert paths_found(engine, "begonias") == ["binary.md"]
    engine.close()
