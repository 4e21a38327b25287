"""`kill -9` of the server, then the index the next process opens equals a fresh index of the disk.

Two kinds of trial, each with its own seed and a kill at a random moment:

* edits: disk writes and editor buffers (didOpen with text that differs from the disk, didChange)
  in bursts; once a search finds every buffer's latest text (so it is surely committed to the
  index), maybe more edits, then the kill. The next process must show the disk: a word typed in a
  buffer and never saved is not found, the file's own words are, its links are the file's.
* cold index: the kill comes in the middle of a first index of a few thousand small notes;
* big re-index: thousands of notes changed while no server ran; the kill comes right after the
  server made the first part of its re-index searchable (before it saved its manifest).

Most kills are `kill -9`; some edit trials use SIGTERM, which an editor sends a server that does
not exit in time.

The next process is the command line (`memlsp search --queries`, `memlsp links`) or, for some
cold-index trials, the server again; the full state is then compared through an Engine in this
process on the same cache, and the reference is always a fresh index on a new cache.
"""

from __future__ import annotations

import random
import signal
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.helpers.consistency import (
    CliRun,
    IndexState,
    capture_cli,
    capture_engine,
    capture_fresh,
    capture_server,
    cli,
    differences,
    only_paths,
    open_engine,
    vault_files,
)
from tests.helpers.stdio_server import StdioServer, settle

pytestmark = pytest.mark.e2e  # servers over stdio, killed, and the CLI

TRIALS = 5
FOLDERS = ("", "a", "b/c")
NOTES = 12


# -- a vault whose every text carries its own word ----------------------------------------------


def note_text(word: str, links: Iterable[str]) -> str:
    return f"# {word}\n\n{word} is the word of this text\n\n" + " ".join(links) + "\n"


def note_path(number: int) -> str:
    folder = FOLDERS[number % len(FOLDERS)]
    return f"{folder}/n{number}.md" if folder else f"n{number}.md"


def random_links(rng: random.Random, count: int) -> list[str]:
    links = [f"[[n{rng.randrange(count)}]]" for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.3:
        links.append(f"[[gone{rng.randrange(3)}]]")  # unresolved
    if rng.random() < 0.3:
        links.append(f"[[{note_path(rng.randrange(count)).removesuffix('.md')}]]")
    return links


@dataclass
class EditedVault:
    """The vault on disk, and every word its files or buffers ever held."""

    root: Path
    rng: random.Random
    disk: dict[str, str] = field(default_factory=dict)  # path -> its file's word now
    typed: dict[str, str] = field(default_factory=dict)  # path -> the word its buffer has now
    words: set[str] = field(default_factory=set)
    never_saved: set[str] = field(default_factory=set)  # words only ever typed in buffers
    count: int = 0

    def word(self, prefix: str) -> str:
        self.count += 1
        word = f"{prefix}{self.count}"
        self.words.add(word)
        return word

    def write(self, path: str) -> None:
        word = self.word("disk")
        full = self.root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(note_text(word, random_links(self.rng, NOTES)), encoding="utf-8")
        self.disk[path] = word

    def buffer_text(self, path: str) -> str:
        word = self.word("buf")
        self.never_saved.add(word)
        self.typed[path] = word
        # Links of its own, so the links of a buffer differ from its file's too.
        return note_text(word, [f"[[typed{self.count}]]", *random_links(self.rng, NOTES)])


def edit(vault: EditedVault, server: StdioServer) -> str:
    """One random edit, made on disk or in a buffer; what it was."""
    rng = vault.rng
    open_paths = sorted(server.buffers)
    closed = sorted(set(vault.disk) - set(open_paths))
    kind = rng.choice(["write", "write", "new", "open", "open", "change", "change", "write open"])
    if kind == "change" and open_paths:
        path = rng.choice(open_paths)
        server.change(path, vault.buffer_text(path))
        return f"didChange {path}"
    if kind == "write open" and open_paths:
        path = rng.choice(open_paths)  # the file changes under its open buffer
        vault.write(path)
        return f"write {path} (open in a buffer)"
    if kind == "open" and closed:
        path = rng.choice(closed)
        server.open(path, vault.buffer_text(path))
        return f"didOpen {path}"
    if kind == "new":
        path = note_path(NOTES + vault.count)
        vault.write(path)
        return f"write {path} (new)"
    path = rng.choice(closed or sorted(vault.disk))
    vault.write(path)
    return f"write {path}"


def committed(vault: EditedVault, server: StdioServer) -> bool:
    """Every buffer's latest word is found in its note, and every closed file's word in its."""
    return all(server.finds(word, path) for path, word in server_words(vault, server))


def server_words(vault: EditedVault, server: StdioServer) -> list[tuple[str, str]]:
    words = [(path, vault.typed[path]) for path in sorted(server.buffers)]
    return words + [(p, w) for p, w in sorted(vault.disk.items()) if p not in server.buffers]


# -- what the next process shows ----------------------------------------------------------------


def word_problems(state: IndexState, vault: EditedVault, search_lines: dict[str, str]) -> list[str]:
    """The words that are wrong, said plainly: typed and never saved but found, or on disk but
    not found where they are."""
    problems = []
    for word in sorted(vault.never_saved):
        if state.search.get(word):
            problems.append(
                f"{word!r}, typed in a buffer and never saved, is found: {state.search[word]}"
                f"\n    {search_lines.get(word, '')}"
            )
    for path, word in sorted(vault.disk.items()):
        hits = state.search.get(word, ())
        if not any(hit.startswith(f"{path}:") for hit in hits):
            problems.append(
                f"{word!r}, the word of {path} on disk, is not found there: {hits}"
                f"\n    {search_lines.get(word, '')}"
            )
    return problems


def search_lines(run: CliRun) -> dict[str, str]:
    """The command line's answer for each word, shortened to its hits and their text."""
    lines = {}
    for word, answer in run.answers.items():
        hits = [(r["path"], r["start_line"], r["end_line"], r["text"]) for r in answer["results"]]
        lines[word] = f"memlsp search {word} -> {hits}"
    return lines


def compare_with_fresh(
    root: Path, cache: Path, paths: set[str], probes: set[str], fresh: IndexState | None = None
) -> list[str]:
    """An Engine on the same cache (the command line's engine) against a fresh one, in full."""
    engine = open_engine(root, cache)
    try:
        engine.refresh()
        live = capture_engine(engine, paths, probes)
    finally:
        engine.close()
    if fresh is None:
        fresh = capture_fresh(root, paths, probes)
    return differences(live, fresh, name="after the kill")


# -- kill -9 after disk and buffer edits --------------------------------------------------------


@pytest.mark.parametrize("seed", range(TRIALS))
def test_after_kill_during_edits_the_index_is_the_disk(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    vault = EditedVault(tmp_path / "vault", rng)
    vault.root.mkdir()
    for number in range(NOTES):
        vault.write(note_path(number))
    cache = tmp_path / "cache"
    story = [f"seed {seed}: {NOTES} notes written"]
    if rng.random() < 0.5:
        assert (
            cli(
                "index", str(vault.root), "--cache-dir", str(cache), "--embedder", "none"
            ).returncode
            == 0
        )
        story.append("memlsp index (the server starts warm)")

    server = StdioServer(vault.root, cache)
    try:
        server.open_vault()
        settle(server)  # the watcher is watching: no write is missed at its start
        for burst in range(rng.randint(1, 3)):
            edits = [edit(vault, server) for _ in range(rng.randint(3, 8))]
            if burst == 0 and not server.buffers:
                path = sorted(vault.disk)[0]
                server.open(path, vault.buffer_text(path))
                edits.append(f"didOpen {path}")
            story.append("burst: " + "; ".join(edits))
            server.until(lambda: committed(vault, server), "every edit indexed")
            story.append("searched: every buffer's and file's latest word is found")
        moment = rng.choice(["now", "after more edits", "after more edits and a change"])
        if moment != "now":
            more = [edit(vault, server) for _ in range(rng.randint(1, 3))]
            story.append("then: " + "; ".join(more))
            if moment.endswith("a change"):
                seen = server.count("memlsp/changed")
                server.wait_for("memlsp/changed", seen + 1, timeout=5)
        open_paths = sorted(server.buffers)
        how = signal.SIGTERM if rng.random() < 0.3 else signal.SIGKILL
        server.kill(how)
        story.append(f"{how.name} ({moment}) with buffers open: {', '.join(open_paths)}")
    finally:
        server.stop()

    paths = set(vault_files(vault.root))
    run = capture_cli(vault.root, cache, open_paths, vault.words)
    fresh = capture_fresh(vault.root, paths, vault.words)
    problems = word_problems(run.state, vault, search_lines(run))
    problems += differences(run.state, only_paths(fresh, open_paths), name="memlsp (CLI)")
    problems += compare_with_fresh(vault.root, cache, paths, vault.words, fresh)
    if problems:
        # The command line's own output for each note whose links differ.
        wrong = {path for path in open_paths if any(f" of {path}: " in p for p in problems)}
        shown = [part for part in run.output.split("$ ") if _links_of(part) in wrong]
        said = [*story, "after the kill, the command line over the same cache:", *problems]
        pytest.fail("\n".join([*said, *("$ " + part for part in shown)]), pytrace=False)


def _links_of(transcript: str) -> str | None:
    """The note a `memlsp links VAULT NOTE` transcript is about."""
    words = transcript.split("\n", 1)[0].split()
    return words[3] if words[:2] == ["memlsp", "links"] and len(words) > 3 else None


# -- kill -9 in the middle of a first index -----------------------------------------------------

COLD_NOTES = 2000
COLD_PROBES = 200


@dataclass(frozen=True)
class ColdVault:
    root: Path
    paths: frozenset[str]
    probes: frozenset[str]
    fresh: IndexState


@pytest.fixture(scope="module")
def cold_vault(tmp_path_factory: pytest.TempPathFactory) -> ColdVault:
    """Small notes in 30 folders, linking each other (and a few missing names); indexed fresh once."""
    root = tmp_path_factory.mktemp("cold") / "vault"
    rng = random.Random(0)
    for number in range(COLD_NOTES):
        path = root / f"f{number % 30}" / f"c{number}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        links = [f"[[c{rng.randrange(COLD_NOTES + 20)}]]" for _ in range(rng.randint(0, 3))]
        path.write_text(note_text(f"cold{number}", links), encoding="utf-8")
    paths = frozenset(vault_files(root))
    probes = frozenset(f"cold{n}" for n in rng.sample(range(COLD_NOTES), COLD_PROBES))
    return ColdVault(root, paths, probes, capture_fresh(root, paths, probes))


@pytest.mark.parametrize("seed", range(TRIALS))
def test_after_kill_during_a_first_index_the_index_is_the_disk(
    seed: int, cold_vault: ColdVault, tmp_path: Path
) -> None:
    rng = random.Random(seed)
    cache = tmp_path / "cache"
    threshold = rng.randrange(0, COLD_NOTES, 100)
    server = StdioServer(cold_vault.root, cache)
    try:
        server.open_vault(wait_indexed=False)

        def far_enough() -> bool:
            status = server.status()
            return bool(status["state"] == "ready" or status["indexed_files"] >= threshold)

        server.until(far_enough, f"{threshold} files indexed")
        reached = server.status()
        server.kill()
    finally:
        server.stop()
    story = (
        f"seed {seed}: kill -9 at {reached['indexed_files']} of {COLD_NOTES} files "
        f"(state {reached['state']}, revision {reached['revision']})"
    )

    restart_server = seed % 2 == 1
    if restart_server:
        again = StdioServer(cold_vault.root, cache)
        try:
            again.open_vault()
            sample = sorted(cold_vault.paths)[::60]
            seen = capture_server(again, sample, cold_vault.probes)
        finally:
            again.stop()
        problems = differences(seen, only_paths(cold_vault.fresh, sample), name="server restarted")
    else:
        run = capture_cli(cold_vault.root, cache, (), cold_vault.probes)
        problems = differences(run.state, only_paths(cold_vault.fresh, ()), name="memlsp (CLI)")
    problems += compare_with_fresh(
        cold_vault.root, cache, set(cold_vault.paths), set(cold_vault.probes), cold_vault.fresh
    )
    if problems:
        pytest.fail("\n".join([story, *problems[:80]]), pytrace=False)


# -- kill -9 in the middle of re-indexing many changed notes ------------------------------------

BIG_NOTES = 6000  # enough for the server to publish once before the end of its re-index


def test_after_kill_during_a_big_reindex_the_index_is_the_disk(tmp_path: Path) -> None:
    root, cache = tmp_path / "vault", tmp_path / "cache"
    rng = random.Random(0)

    def write_all(prefix: str) -> None:
        for number in range(BIG_NOTES):
            path = root / f"f{number % 30}" / f"c{number}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            links = [f"[[c{rng.randrange(BIG_NOTES + 20)}]]" for _ in range(rng.randint(0, 2))]
            path.write_text(note_text(f"{prefix}{number}", links), encoding="utf-8")

    write_all("before")
    first = open_engine(root, cache)
    first.refresh()
    first.close()
    write_all("after")  # every note changed, its links too, while no memlsp ran
    server = StdioServer(root, cache)
    try:
        server.open_vault(wait_indexed=False)

        def first_part_published() -> bool:
            status = server.status()
            return bool(status["state"] == "ready" or status["revision"] >= 1)

        server.until(first_part_published, "a part of the re-index searchable")
        reached = server.status()
        server.kill()
    finally:
        server.stop()
    story = (
        f"kill -9 at {reached['indexed_files']} of {BIG_NOTES} changed files re-indexed "
        f"(state {reached['state']}, revision {reached['revision']})"
    )
    numbers = rng.sample(range(BIG_NOTES), COLD_PROBES // 2)
    probes = {f"{prefix}{n}" for n in numbers for prefix in ("before", "after")}
    # The next process is an Engine here, as the command line's: it opens the cache first.
    problems = compare_with_fresh(root, cache, set(vault_files(root)), probes)
    if problems:
        pytest.fail("\n".join([story, *problems[:80]]), pytrace=False)


# -- the report's direct case: an open buffer, then kill -9 -------------------------------------


def test_after_kill_an_unsaved_buffer_is_not_in_the_index(tmp_path: Path) -> None:
    """disktoken on disk, buffertoken typed but never saved; after `kill -9` the next
    `memlsp search` finds the first and not the second."""
    root, cache = tmp_path / "vault", tmp_path / "cache"
    root.mkdir()
    (root / "a.md").write_text("# A\n\ndisktoken on disk\n", encoding="utf-8")
    (root / "b.md").write_text("# B\n\nother [[a]]\n", encoding="utf-8")
    assert cli("index", str(root), "--cache-dir", str(cache), "--embedder", "none").returncode == 0
    server = StdioServer(root, cache)
    try:
        server.open_vault()
        server.open("a.md", "# A\n\nbuffertoken typed but never saved [[c]]\n")
        server.until(lambda: server.finds("buffertoken", "a.md"), "the buffer indexed")
        server.kill()
    finally:
        server.stop()
    run = capture_cli(root, cache, ["a.md"], ["buffertoken", "disktoken"])
    fresh = capture_fresh(root, ["a.md", "b.md"], ["buffertoken", "disktoken"])
    problems = differences(run.state, only_paths(fresh, ["a.md"]), name="memlsp (CLI)")
    if problems:
        pytest.fail("\n".join([*problems, "", run.output]), pytrace=False)
