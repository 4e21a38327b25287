"""Random edits to a vault, then the live index compared with a fresh index of the same files.

Each seed drives a sequence of operations on a temp vault (tests/helpers/edit_ops.py): notes
written (links of every form to names that several folders share, in several cases, aliases),
modified, deleted, renamed, moved between folders; folders renamed or deleted; notes and folders
moved out of the vault or into Obsidian's `.trash/`, and back in; attachments created and
deleted; the index closed and opened again; editor buffers opened (on notes, and on paths with no
file yet), changed and closed, their files written and deleted by another program; in the server
test also the server killed with -9 and started again. The generator looks at the files as they
are, so a seed always makes the same operations.

At checkpoints the live index's state (tests/helpers/consistency.py: links of every note,
attachments, keyword hits of probe words) must equal a fresh Engine's on a new cache over the same
files and buffers (tests/helpers/edit_replay.py). A divergence is shrunk by delta debugging (the
operations replayed from an empty vault, dropping what is not needed to diverge) and printed as
the operations left and the parts that differ.

For a longer look than the suite's, `MEMLSP_RANDOM_EDITS=10x150` (or `11-20x150`) sets the seeds
and the live operations of each.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from tests.helpers.edit_ops import Generator, Op
from tests.helpers.edit_replay import ENDPOINT_DIMENSION, EngineReplay, ServerReplay
from tests.helpers.edit_scenarios import Scenario, play_random, report, reproduce, run_scenario
from tests.helpers.fake_embedder import FakeEmbedder, embedding_endpoint


def _longer(seeds: tuple[int, ...], operations: int) -> tuple[tuple[int, ...], int]:
    """For a longer look than the suite's: `MEMLSP_RANDOM_EDITS=10x150` runs seeds 1 to 10 with
    150 live operations each, `MEMLSP_RANDOM_EDITS=11-20x150` seeds 11 to 20."""
    wanted = os.environ.get("MEMLSP_RANDOM_EDITS", "")
    if not wanted:
        return seeds, operations
    numbers, _, length = wanted.partition("x")
    first, _, last = numbers.rpartition("-")
    return tuple(range(int(first or 1), int(last) + 1)), int(length or operations)


# -- the engine in this process -----------------------------------------------------------------

ENGINE_SEEDS, ENGINE_OPERATIONS = _longer((1, 2, 3, 4), 120)
ENGINE_BEFORE = 10
ENGINE_CHECK_EVERY = 10
ENGINE_SHRINK_SECONDS = 8.0


@pytest.mark.parametrize("seed", ENGINE_SEEDS)
def test_engine_equals_a_fresh_index_after_random_edits(seed: int, tmp_path: Path) -> None:
    """With editor buffers too, as the server is told of them; every other seed is told of disk
    changes together, as the server's change queue merges them. Every fourth embeds every chunk
    with the test embedder, so that related notes and meaning edges are compared too."""
    generator = Generator(seed, server=False, buffers=True)
    embedder = FakeEmbedder() if seed % 4 == 3 else None
    engine_replay = partial(EngineReplay, together=seed % 2 == 0, embedder=embedder)
    replay = engine_replay(tmp_path / "run")
    try:
        run = play_random(generator, replay, ENGINE_BEFORE, ENGINE_OPERATIONS, ENGINE_CHECK_EVERY)
        reopened = [] if run.found else replay.reopened_differences()
    finally:
        replay.close()
    if reopened:
        pytest.fail(
            f"seed {seed}: after {ENGINE_OPERATIONS} operations, closed and opened again on the "
            "same cache, the engine differs from a fresh index:\n"
            + "\n".join(f"  {line}" for line in reopened),
            pytrace=False,
        )
    if not run.found:
        return
    shrunk, shrunk_found, how = reproduce(
        engine_replay, run.scenario, tmp_path / "shrink", ENGINE_SHRINK_SECONDS
    )
    title = (
        f"seed {seed}: the engine differs from a fresh index after operation "
        f"{len(run.scenario.during)} of {ENGINE_OPERATIONS}"
    )
    pytest.fail(
        report(title, shrunk, how, ("differences (live vs fresh) after them", shrunk_found)),
        pytrace=False,
    )


# -- the real server ----------------------------------------------------------------------------

SERVER_SEEDS, SERVER_OPERATIONS = _longer((1, 2, 3), 48)
SERVER_BEFORE = 6
SERVER_CHECK_EVERY = 4
SERVER_SHRINK_SECONDS = 25.0


@pytest.mark.e2e  # a server over stdio
@pytest.mark.parametrize("seed", SERVER_SEEDS)
def test_server_equals_a_fresh_index_after_random_edits(seed: int, tmp_path: Path) -> None:
    """Buffers open at a checkpoint stay open: the reference is a fresh index of a copy of the
    vault with each open buffer's text written to its file. Every third seed's client reports
    file changes too; another third embeds every chunk, through an embedding endpoint in this
    process, so that related notes and meaning edges are compared too."""
    with contextlib.ExitStack() as stack:
        url = None
        if seed % 3 == 2:
            url = stack.enter_context(embedding_endpoint(ENDPOINT_DIMENSION))
        _server_run(
            seed, partial(ServerReplay, client_events=seed % 3 == 0, embedder_url=url), tmp_path
        )


def _server_run(seed: int, server_replay: Callable[[Path], ServerReplay], tmp_path: Path) -> None:
    generator = Generator(seed, server=True)
    replay = server_replay(tmp_path / "run")
    try:
        run = play_random(generator, replay, SERVER_BEFORE, SERVER_OPERATIONS, SERVER_CHECK_EVERY)
    finally:
        replay.close()
    if not run.found:
        return
    scenario, found = run.scenario, run.found
    title = (
        f"seed {seed}: the server differs from a fresh index after operation "
        f"{len(scenario.during)} of {SERVER_OPERATIONS}"
    )
    # Shrink in this process when the engine there diverges too (fast), and keep the result if
    # it diverges on a real server as well; else shrink with real servers, as time allows. The
    # engine is told of disk changes together, as the server's queue merges them.
    in_process = partial(EngineReplay, together=True, embedder=replay.embedder)
    started = time.monotonic()
    sections: list[tuple[str, list[str]]] = []
    on_server: list[str] = []
    if run_scenario(in_process(tmp_path / "in-process"), scenario):
        shrunk, in_process_found, how = reproduce(
            in_process, scenario, tmp_path / "shrink", SERVER_SHRINK_SECONDS / 2
        )
        on_server = run_scenario(server_replay(tmp_path / "confirm"), shrunk)
        how += f" with the engine in-process, {time.monotonic() - started:.0f} s"
        sections.append(("differences in-process (told as the server tells it)", in_process_found))
    if on_server:
        sections.append(("differences on a real server, playing the same operations", on_server))
    else:
        if sections:
            sections.append(("that list on a real server", []))
            sections.append(("operations of it", [str(op) for op in shrunk.before + shrunk.during]))
        shrunk, on_server, how = reproduce(
            server_replay, scenario, tmp_path / "shrink-server", SERVER_SHRINK_SECONDS
        )
        how += f" with real servers, {time.monotonic() - started:.0f} s"
        sections.append(("differences (server vs fresh) after them", on_server))
    sections.append(("differences at the first divergent checkpoint of the whole run", found))
    pytest.fail(report(title, shrunk, how, *sections), pytrace=False)


# -- direct cases: divergences found before, each as the few operations that show it -------------


def _play(where: str, scenario: Scenario, probes: tuple[str, ...], tmp_path: Path) -> list[str]:
    """The differences after playing `scenario` on the engine in this process (told of disk
    changes together, as the server's queue merges them) or on a real server."""
    replay = EngineReplay(tmp_path, together=True) if where == "engine" else ServerReplay(tmp_path)
    replay.probes.update(probes)
    return run_scenario(replay, scenario)


def _fail(title: str, scenario: Scenario, found: list[str]) -> None:
    if found:
        pytest.fail(report(title, scenario, "not needed", ("differences", found)), pytrace=False)


FOLDER_MOVED_OUT = Scenario(
    before=(
        Op("write", "w/a.md", text="# A\n\nmovedtoken [[b]]\n"),
        Op("write", "b.md", text="# B\n\nplain\n"),
    ),
    during=(Op("move_out", "w", "outside/w"),),
    checkpoints=frozenset({0}),
)


@pytest.mark.e2e  # a server over stdio
@pytest.mark.parametrize("where", ["engine", "server"])
def test_a_folder_moved_out_of_the_vault_is_forgotten(where: str, tmp_path: Path) -> None:
    """`mv vault/w elsewhere`: w/a.md's text and links go, and b.md loses its inlink."""
    found = _play(where, FOLDER_MOVED_OUT, ("movedtoken",), tmp_path)
    _fail("a folder moved out", FOLDER_MOVED_OUT, found)


BUFFER_FILE_CAME_AND_WENT = Scenario(
    before=(Op("write", "y/shared.md", text="# Shared\n\nplain\n"),),
    during=(
        Op("open", "y/d.md", text="# D\n\ntoke [[shared]]\n"),
        Op("write", "y/d.md", text="# D\n\nwritten by another program\n"),
        Op("delete", "y/d.md"),
    ),
    checkpoints=frozenset({2}),
)


@pytest.mark.e2e  # a server over stdio
@pytest.mark.parametrize("where", ["engine", "server"])
def test_an_open_note_whose_first_file_came_and_went_is_not_a_note(
    where: str, tmp_path: Path
) -> None:
    """A buffer opened before its file existed; another program writes the file, then deletes
    it before the index looked (one batch of the watcher's events, the path gone by then). The
    buffer had a file, and lost it: neither its words nor its links are the vault's until the
    file is back."""
    found = _play(where, BUFFER_FILE_CAME_AND_WENT, ("toke",), tmp_path)
    _fail("a file written and deleted under an open buffer", BUFFER_FILE_CAME_AND_WENT, found)


CASE_VARIANT_GHOST = Scenario(
    before=(
        Op("write", "Shared.md", text="# Shared\n\nat the root\n"),
        Op("write", "y/shared.md", text="# shared\n\nin y\n"),
        Op("write", "x/z/other.md", text="# Other\n\nkeeps x/z\n"),
        Op("write", "c.md", text="# C\n\n[to z](/x/z/Shared.md)\n"),
        Op("write", "w/e.md", text="# E\n\n[to x](/x/Shared.md)\n"),
    ),
    during=(
        Op("open", "x/z/Shared.md", text="# Shared in z\n\ncasetoken\n"),
        Op("write", "x/z/Shared.md", text="# Shared in z\n\nwritten by another program\n"),
        Op("delete", "x/z/Shared.md"),
    ),
    checkpoints=frozenset({2}),
)


@pytest.mark.e2e  # a server over stdio
@pytest.mark.parametrize("where", ["engine", "server"])
def test_case_variant_names_resolve_as_in_a_fresh_index(where: str, tmp_path: Path) -> None:
    """`Shared.md`, `y/shared.md`, and for a moment `x/z/Shared.md`, the file of a buffer opened
    before it existed: once that file is gone, `c.md`'s link to `/x/z/Shared.md` falls back to
    the name (ambiguous between the other two) and `w/e.md`'s link to `/x/Shared.md` no longer
    lists `x/z/Shared.md` among its candidates."""
    found = _play(where, CASE_VARIANT_GHOST, ("casetoken",), tmp_path)
    _fail("case-variant names after a file came and went", CASE_VARIANT_GHOST, found)
