"""What an index shows, as plain data, so a live index can be compared with a fresh one.

The state of an index is what its users can observe: for every note its outlinks (with where each
resolves, or why not), its inlinks, its unresolved and ambiguous links; the attachments it knows;
and which chunks (path and line range) a keyword search finds for each of a list of probe words.
The generated notes of the consistency tests each carry a unique word, so a probe per word tells
exactly which text of which note the index holds.

Asked for, a state also holds the views of some notes (tests/helpers/views.py): the graph around
each, its unlinked mentions and its related notes.

A state is captured from an `Engine` in this process, from a running server over stdio
(`memlsp/links`, `memlsp/search`, tests/helpers/stdio_server.py), or from the command line. The
reference is always a new Engine on a new, empty cache folder over the same files: what any index
of that disk should show.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlsp.embed.base import Embedder
from memlsp.engine.engine import Engine
from memlsp.model import ResolvedLink, SearchRequest
from memlsp.settings.table import Settings
from tests.helpers.engine import embed_all
from tests.helpers.views import engine_views, server_views

if TYPE_CHECKING:
    from tests.helpers.stdio_server import StdioServer

# Well above the hits any probe has in the generated vaults; a full page is marked as such,
# since scores (and so which hits make the page) may differ between a live and a fresh index.
PROBE_LIMIT = 100
# A probe lists every matching section (`sections`), not each note at its best one: which
# section of a note is best may differ between a live and a fresh index of the same text, since
# BM25 counts words of deleted documents until the keyword index merges its segments.
TRUNCATED = "(page full: more hits may exist)"
HANG_GUARD = 60.0  # seconds; only ever reached when something hangs


# -- the state ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoteLinkState:
    """One note's links, each written as one line of text (see `link_row`)."""

    outlinks: tuple[str, ...] = ()
    inlinks: tuple[str, ...] = ()
    unresolved: tuple[str, ...] = ()
    ambiguous: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.outlinks or self.inlinks or self.unresolved or self.ambiguous)


GROUPS = ("outlinks", "inlinks", "unresolved", "ambiguous")


@dataclass(frozen=True)
class IndexState:
    """`links` holds only notes with some link in or out (an unknown path has none); `notes` and
    `attachments` are None when the capture cannot see them (over stdio or the command line);
    `views` holds the views of the notes asked for (`views.py`: "graph of a.md" -> rows)."""

    links: Mapping[str, NoteLinkState] = field(default_factory=dict)
    search: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    notes: tuple[str, ...] | None = None
    attachments: tuple[str, ...] | None = None
    views: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def link_row(
    source: str,
    line: int,
    column: int,
    kind: str,
    embed: bool,
    target: str,
    anchor: str,
    status: str,
    targets: Sequence[str],
    candidates: Sequence[str],
) -> str:
    """`source 3:5 wiki 'name'#Sec -> ambiguous x/name.md among x/name.md,y/name.md`, with the
    line and column 1-based, as an editor shows them."""
    written = f"{target!r}" + (f"#{anchor}" if anchor else "")
    row = f"{source} {line}:{column} {kind}{'!' if embed else ''} {written} -> {status}"
    if targets:
        row += " " + ",".join(targets)
    if candidates:
        row += " among " + ",".join(candidates)
    return row


def _engine_row(item: ResolvedLink) -> str:
    link, resolution = item.link, item.resolution
    return link_row(
        item.source,
        link.span.line + 1,
        link.span.start + 1,
        link.kind.value,
        link.embed,
        link.target,
        link.anchor,
        resolution.status.value,
        resolution.targets,
        resolution.candidates,
    )


def _json_row(item: Mapping[str, Any]) -> str:
    """A link as `memlsp/links` (a 0-based `range`) or `memlsp links --json` (1-based `line`
    and `column`) sends it. The generated notes are ASCII, so columns are the same in every
    position encoding."""
    if "range" in item:
        start = item["range"]["start"]
        line, column = start["line"] + 1, start["character"] + 1
    else:
        line, column = item["line"], item["column"]
    return link_row(
        item["source"],
        line,
        column,
        item["kind"],
        item["embed"],
        item["target"],
        item["anchor"],
        item["status"],
        item["targets"],
        item["candidates"],
    )


def _json_links(answer: Mapping[str, Any] | None) -> NoteLinkState:
    if not answer:
        return NoteLinkState()
    rows = {group: tuple(_json_row(item) for item in answer[group]) for group in GROUPS}
    return NoteLinkState(**rows)


def _hit_rows(results: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    rows = sorted({f"{r['path']}:{r['start_line']}-{r['end_line']}" for r in results})
    return tuple(rows)


def _page(rows: tuple[str, ...], count: int) -> tuple[str, ...]:
    return (*rows, TRUNCATED) if count >= PROBE_LIMIT else rows


# -- capturing ----------------------------------------------------------------------------------


def capture_engine(
    engine: Engine, paths: Iterable[str] = (), probes: Iterable[str] = (), views: Iterable[str] = ()
) -> IndexState:
    """The state of an Engine through its queries; `paths` are notes to ask about besides the
    ones it knows (notes it should know, or should have forgotten); `views`, the notes whose
    views to capture."""
    graph = engine.read().graph
    notes = tuple(sorted(graph.notes))
    attachments = tuple(sorted(p for p in graph.table.files if p not in notes))
    links = {}
    for path in sorted(set(paths) | set(notes)):
        found = engine.read().links(path)
        state = NoteLinkState(
            tuple(_engine_row(i) for i in found.outlinks),
            tuple(_engine_row(i) for i in found.inlinks),
            tuple(_engine_row(i) for i in found.unresolved),
            tuple(_engine_row(i) for i in found.ambiguous),
        )
        if state:
            links[path] = state
    search = {}
    for probe in sorted(set(probes)):
        request = SearchRequest(
            query=probe, limit=PROBE_LIMIT, expand=False, mode="keyword", sections=True
        )
        hits = engine.read().search(request).hits
        rows = tuple(
            sorted({f"{h.chunk.path}:{h.chunk.start_line}-{h.chunk.end_line}" for h in hits})
        )
        search[probe] = _page(rows, len(hits))
    shown = engine_views(engine.read(), views)
    return IndexState(links, search, notes, attachments, shown)


def open_engine(root: Path, cache: Path, embedder: Embedder | None = None) -> Engine:
    """An Engine as the suite opens one: no watcher, and keyword only unless given an embedder
    (the deterministic one of tests/helpers/fake_embedder.py)."""
    if embedder is None:
        return Engine.open(root, Settings(cache_dir=cache, embedder="none", watch=False))
    return Engine.open(root, Settings(cache_dir=cache, watch=False), embedder)


def capture_fresh(
    root: Path,
    paths: Iterable[str] = (),
    probes: Iterable[str] = (),
    views: Iterable[str] = (),
    embedder: Embedder | None = None,
) -> IndexState:
    """The reference: a new Engine on a new, empty cache folder over the files in `root`, every
    chunk embedded when there is an embedder."""
    with tempfile.TemporaryDirectory(prefix="memlsp-fresh-") as cache:
        engine = open_engine(root, Path(cache), embedder)
        try:
            engine.refresh()
            if embedder is not None:
                embed_all(engine)
            return capture_engine(engine, paths, probes, views)
        finally:
            engine.close()


def capture_server(
    server: StdioServer,
    paths: Iterable[str] = (),
    probes: Iterable[str] = (),
    views: Iterable[str] = (),
) -> IndexState:
    """The state as a client sees it: `memlsp/links` for each path, `memlsp/search` per probe,
    and the views (`memlsp/graph`, `memlsp/mentions`, `memlsp/related`) of `views`."""
    links = {}
    for path in sorted(set(paths)):
        state = _json_links(server.request("memlsp/links", {"uri": server.uri(path)}))
        if state:
            links[path] = state
    search = {}
    for probe in sorted(set(probes)):
        answer = server.request(
            "memlsp/search",
            {
                "query": probe,
                "limit": PROBE_LIMIT,
                "expand": False,
                "mode": "keyword",
                "sections": True,
            },
        )
        search[probe] = _page(_hit_rows(answer["results"]), len(answer["results"]))
    return IndexState(links, search, views=server_views(server, views))


@dataclass(frozen=True)
class CliRun:
    """Command line runs: the state they show, each probe's answer as printed, and the exact
    output of every run, for a failure message."""

    state: IndexState
    answers: Mapping[str, Mapping[str, Any]]
    output: str


def cli(*arguments: str, timeout: float = HANG_GUARD) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memlsp", *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def capture_cli(
    vault: Path, cache_dir: Path, paths: Iterable[str] = (), probes: Iterable[str] = ()
) -> CliRun:
    """`memlsp search --queries` once for every probe (the first process to open the cache), then
    `memlsp links` for each path, each over `cache_dir`."""
    common = ("--cache-dir", str(cache_dir), "--embedder", "none")
    output: list[str] = []
    search: dict[str, tuple[str, ...]] = {}
    answers: dict[str, dict[str, Any]] = {}
    wanted = sorted(set(probes))
    if wanted:
        with tempfile.TemporaryDirectory(prefix="memlsp-queries-") as folder:
            queries = Path(folder) / "probes.jsonl"
            lines = [json.dumps({"id": probe, "query": probe}) for probe in wanted]
            queries.write_text("\n".join(lines) + "\n", encoding="utf-8")
            run = cli(
                "search", str(vault), "--queries", str(queries), "--mode", "keyword", "--json",
                "--no-expand", "--sections", "--limit", str(PROBE_LIMIT), *common,
            )  # fmt: skip
        output.append(_transcript(run))
        assert run.returncode == 0, "\n".join(output)
        for line in run.stdout.splitlines():
            answer = json.loads(line)
            answers[answer["id"]] = answer
            search[answer["id"]] = _page(_hit_rows(answer["results"]), len(answer["results"]))
    links = {}
    for path in sorted(set(paths)):
        run = cli("links", str(vault), path, "--json", *common)
        output.append(_transcript(run))
        if run.returncode == 2 and "no note" in run.stderr:
            continue  # not a note of this index: no links either way
        assert run.returncode == 0, "\n".join(output)
        state = _json_links(json.loads(run.stdout))
        if state:
            links[path] = state
    return CliRun(IndexState(links, search), answers, "\n".join(output))


def _transcript(run: subprocess.CompletedProcess[str]) -> str:
    command = " ".join(["memlsp", *run.args[3:]])
    return f"$ {command}\n(exit {run.returncode})\n{run.stdout}{run.stderr}"


# -- comparing ----------------------------------------------------------------------------------


def only_paths(state: IndexState, paths: Iterable[str]) -> IndexState:
    """`state` with the links of `paths` alone: to compare with a capture that asked only them."""
    wanted = set(paths)
    links = {path: links for path, links in state.links.items() if path in wanted}
    return IndexState(links, state.search)


def differences(live: IndexState, fresh: IndexState, name: str = "live") -> list[str]:
    """What `live` shows that a fresh index does not, and the other way round, one line each."""
    found: list[str] = []

    def compare(what: str, mine: Iterable[str], theirs: Iterable[str]) -> None:
        mine, theirs = set(mine), set(theirs)
        for row in sorted(mine - theirs):
            found.append(f"{what}: only {name}: {row}")
        for row in sorted(theirs - mine):
            found.append(f"{what}: only fresh: {row}")

    for kind in ("notes", "attachments"):
        mine, theirs = getattr(live, kind), getattr(fresh, kind)
        if mine is not None and theirs is not None:
            compare(kind, mine, theirs)
    empty = NoteLinkState()
    for path in sorted(set(live.links) | set(fresh.links)):
        mine_links, theirs_links = live.links.get(path, empty), fresh.links.get(path, empty)
        for group in GROUPS:
            compare(f"{group} of {path}", getattr(mine_links, group), getattr(theirs_links, group))
    for probe in sorted(set(live.search) & set(fresh.search)):
        compare(f"search {probe!r}", live.search[probe], fresh.search[probe])
    if live.views and fresh.views:
        for view in sorted(set(live.views) | set(fresh.views)):
            compare(view, live.views.get(view, ()), fresh.views.get(view, ()))
    return found


# -- files --------------------------------------------------------------------------------------


def vault_files(root: Path) -> list[str]:
    """Every file under `root` as a vault-relative path, as the scan sees them (no dot-folders)."""
    if not root.is_dir():
        return []
    found = []
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if path.is_file() and not any(part.startswith(".") for part in relative.parts):
            found.append(relative.as_posix())
    return sorted(found)


def disk_with_buffers(vault: Path, buffers: Mapping[str, str], destination: Path) -> Path:
    """A copy of the vault where each open buffer's text is written to its file: what a fresh
    index must show for a live index with those buffers open."""
    shutil.copytree(vault, destination, symlinks=True)
    for path, text in buffers.items():
        full = destination / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text, encoding="utf-8")
    return destination


def tell_engine(engine: Engine, paths: Sequence[str]) -> None:
    """Apply what the file watcher reported, as `LiveVault._apply` does: re-index the reported
    paths, and scan the whole vault when one of them is a folder that exists."""
    engine.refresh_paths(list(paths))
    if any((engine.root / path).is_dir() for path in paths):
        engine.refresh(progressive=True)
