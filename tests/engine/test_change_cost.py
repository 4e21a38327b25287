"""A change costs what changed, not what the vault holds: what a request or a batch would build
over every note is built only when it is needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.model import SearchRequest
from memlsp.vault.link_graph import LinkGraph
from tests.helpers.engine import indexed_engine

NOTES = {
    "a.md": "---\nstatus: draft\n---\n# Apples\n\nApples grow on trees. [[b]]\n",
    "b.md": "# Bananas\n\nBananas are yellow.\n",
}


def test_a_search_without_a_property_filter_reads_no_property(tmp_path: Path) -> None:
    engine = indexed_engine(tmp_path, NOTES)
    try:
        snapshot = engine.read()
        assert snapshot.search(SearchRequest("apples")).hits
        assert "properties" not in snapshot._memo
        filtered = snapshot.search(SearchRequest("apples", where=("status = draft",)))
        assert [h.chunk.path for h in filtered.hits] == ["a.md"]
        assert "properties" in snapshot._memo
    finally:
        engine.close()


def test_a_batch_copies_the_link_graph_only_when_it_changes_a_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = indexed_engine(tmp_path, NOTES)
    copies = 0
    edited = LinkGraph.edited

    def counted(graph: LinkGraph) -> LinkGraph:
        nonlocal copies
        copies += 1
        return edited(graph)

    monkeypatch.setattr(LinkGraph, "edited", counted)
    try:
        engine.apply_text("b.md", "# Bananas\n\nBananas are yellow, see [[a]].\n")
        assert copies == 1  # one edit, one copy: none for after the batch
        assert [i.source for i in engine.read().graph.inlinks("a.md")] == ["b.md"]
        (tmp_path / "vault" / "a.md").touch()  # touched, not changed
        engine.refresh_paths(["a.md"])
        engine.refresh()
        assert copies == 1
    finally:
        engine.close()


def test_buffers_given_together_are_one_revision(tmp_path: Path) -> None:
    notes = {f"n{i}.md": f"# N{i}\n\nplain {i}\n" for i in range(20)}
    engine = indexed_engine(tmp_path, notes)
    try:
        before = engine.read().revision
        engine.apply_texts({path: f"# N\n\nrenamed zq{i} [[x]]\n" for i, path in enumerate(notes)})
        snapshot = engine.read()
        assert snapshot.revision == before + 1
        assert sorted(snapshot.buffers) == sorted(notes)
        found = snapshot.search(SearchRequest("zq7", mode="keyword")).hits
        assert [hit.chunk.path for hit in found] == ["n7.md"]
        assert len(snapshot.graph.outlinks("n3.md")) == 1
    finally:
        engine.close()
