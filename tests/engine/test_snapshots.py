"""Readers hold immutable snapshots: the writer's changes never reach a graph or snapshot a
request already holds, a reader never waits for the writer, and never sees half of a batch."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlsp.engine.engine import Engine
from memlsp.model import SearchRequest
from memlsp.parse.markdown import parse_markdown
from memlsp.sync.prepare import prepare_text
from memlsp.sync.scan import FileStat
from memlsp.vault.link_graph import LinkGraph
from tests.helpers.engine import open_engine, paths_found
from tests.helpers.vault import graph_of, write

NAMES = ["a", "b", "c", "d", "e"]


def state(graph: LinkGraph) -> dict[str, Any]:
    """Everything a reader can ask of a graph, for every name it could be asked about."""
    paths = sorted({f"{name}.md" for name in NAMES} | set(graph.notes) | graph.table.files)
    return {
        "notes": dict(graph.notes),
        "files": sorted(graph.table.files),
        "outlinks": {p: graph.outlinks(p) for p in paths},
        "inlinks": {p: graph.inlinks(p) for p in paths},
        "names": {n: sorted(graph.table.by_name(n)) for n in NAMES},
        "aliases": {n: sorted(graph.table.by_alias("alias " + n)) for n in NAMES},
        "counts": graph.counts(),
    }


def note_text(links: list[str], alias: str | None) -> str:
    front = f"---\naliases: [{alias}]\n---\n" if alias else ""
    return front + "# Note\n\n" + " ".join(f"[[{target}]]" for target in links) + "\n"


edits = st.lists(
    st.tuples(
        st.sampled_from(["upsert", "remove", "file"]),
        st.sampled_from(NAMES),
        st.lists(st.sampled_from(NAMES + [f"alias {n}" for n in NAMES] + ["x.png"]), max_size=4),
        st.one_of(st.none(), st.sampled_from([f"alias {n}" for n in NAMES])),
    ),
    max_size=12,
)


def apply(graph: LinkGraph, edit: tuple[str, str, list[str], str | None]) -> None:
    kind, name, links, alias = edit
    if kind == "upsert":
        graph.upsert(parse_markdown(f"{name}.md", note_text(links, alias)))
    elif kind == "remove":
        graph.remove(f"{name}.md")
    else:
        graph.add_file("x.png")


@settings(max_examples=150, deadline=None)
@given(first=edits, second=edits)
def test_a_frozen_graph_never_changes_and_its_copy_matches_a_fresh_build(
    first: list[Any], second: list[Any]
) -> None:
    graph = LinkGraph()
    for edit in first:
        apply(graph, edit)
    frozen = graph.freeze()
    before = state(frozen)
    copy = frozen.edited()
    for edit in second:
        apply(copy, edit)
    assert state(frozen) == before
    # The copy-on-write copy answers as a graph built at once from its notes does.
    rebuilt = graph_of(copy.notes, copy.table.files - copy.notes.keys())
    assert state(copy) == state(rebuilt)
    # A copy of the copy, changed again, leaves both earlier revisions alone.
    after = state(copy.freeze())
    third = copy.edited()
    for edit in first:
        apply(third, edit)
    assert state(frozen) == before and state(copy) == after


def test_a_frozen_graph_refuses_changes() -> None:
    graph = LinkGraph().freeze()
    with pytest.raises(RuntimeError):
        graph.upsert(parse_markdown("a.md", "# A\n"))


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    vault = tmp_path / "vault"
    write(vault, "hub.md", "# Hub\n\n[[spoke]] and [[moon]].\n")
    write(vault, "spoke.md", "# Spoke\n\nWheels turn.\n")
    opened = open_engine(vault, tmp_path / "cache")
    opened.refresh()
    return opened


def test_a_snapshot_held_by_a_request_stays_as_it_was(engine: Engine) -> None:
    held = engine.read()
    engine.apply_text("moon.md", "# Moon\n\nCraters and tides.\n")
    engine.apply_text("spoke.md", "# Spoke\n\nSpokes in a lunar wheel.\n")
    now = engine.read()
    assert now.revision > held.revision
    assert [i.resolution.status.value for i in now.graph.outlinks("hub.md")] == [
        "resolved",
        "resolved",
    ]
    assert [i.resolution.status.value for i in held.graph.outlinks("hub.md")] == [
        "resolved",
        "unresolved",
    ]
    assert "moon.md" not in held.graph.notes and "moon.md" not in held.records
    assert held.read("spoke.md") == "# Spoke\n\nWheels turn.\n"  # the disk: no buffer then
    assert now.read("spoke.md") == "# Spoke\n\nSpokes in a lunar wheel.\n"
    # The keyword reader is the index as committed for that revision.
    assert held.keyword.search(held.keyword.query_terms("craters"), 10) == []
    assert [h.chunk.path for h in now.keyword.search(now.keyword.query_terms("craters"), 10)] == [
        "moon.md"
    ]


def test_readers_answer_while_a_batch_is_half_applied(engine: Engine) -> None:
    """A batch that has changed one note and not yet the next is invisible, and holding it
    open (the writer's lock taken) keeps no request waiting."""
    writer = engine.writer
    started, finish = threading.Event(), threading.Event()

    def half_a_batch() -> None:
        settings = engine.read().settings
        with writer._lock, writer._batch() as batch:
            text = "# Spoke\n\nHalfway.\n"
            batch.upsert(prepare_text(settings, FileStat("spoke.md", -1, -1), text))
            started.set()
            finish.wait(10)
            text = "# Moon\n\nHalfway too.\n"
            batch.upsert(prepare_text(settings, FileStat("moon.md", -1, -1), text))

    thread = threading.Thread(target=half_a_batch)
    thread.start()
    try:
        assert started.wait(10)
        answers: list[Any] = []
        reader = threading.Thread(
            target=lambda: answers.extend(
                [
                    paths_found(engine, "halfway", mode="keyword"),
                    engine.read().links("hub.md").outlinks[0].resolution.targets,
                    engine.read().view.read("spoke.md"),
                    engine.read().counts(),
                ]
            )
        )
        reader.start()
        reader.join(10)
        assert not reader.is_alive(), "a reader waited for the writer"
        assert answers[0] == []  # the batch's first note is not visible yet
        assert answers[1] == ("spoke.md",)
        assert answers[2] == "# Spoke\n\nWheels turn.\n"
    finally:
        finish.set()
        thread.join(10)
    assert sorted(paths_found(engine, "halfway", mode="keyword")) == ["moon.md", "spoke.md"]
    assert engine.read().links("hub.md").outlinks[1].resolution.targets == ("moon.md",)


def test_search_and_navigation_read_one_revision(engine: Engine) -> None:
    """A search's hits and the graph it joins them with come from the same snapshot."""
    response = engine.read().search(SearchRequest("wheels", mode="keyword"))
    assert [hit.chunk.path for hit in response.hits] == ["spoke.md"]
    assert response.hits[0].title == "Spoke"


def test_a_closed_buffer_leaves_the_next_snapshot_even_when_its_text_is_the_files(
    engine: Engine,
) -> None:
    text = engine.read().view.read("spoke.md")
    assert text is not None
    engine.apply_text("spoke.md", text + "Typed.\n")
    engine.apply_text("spoke.md", text)  # typed back to what the file holds
    assert engine.read().buffers == {"spoke.md": text}
    engine.release_text("spoke.md")
    assert dict(engine.read().buffers) == {}
    assert paths_found(engine, "typed", mode="keyword") == []


def test_a_snapshot_computes_what_it_memoises_once_and_the_next_one_afresh(engine: Engine) -> None:
    calls: list[int] = []

    def count_notes() -> int:
        calls.append(1)
        return len(held.graph.notes)

    held = engine.read()
    assert held.memo("notes", count_notes) == 2
    assert held.memo("notes", count_notes) == 2
    assert len(calls) == 1
    engine.apply_text("moon.md", "# Moon\n\nCraters.\n")
    later = engine.read()
    assert later.memo("notes", lambda: len(later.graph.notes)) == 3
    assert held.memo("notes", count_notes) == 2 and len(calls) == 1
