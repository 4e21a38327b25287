"""The graph view around a note with its closest notes by meaning (queries/graph_view.py: its
checked request `GraphAsk`, and `Snapshot.graph_view`) and
`memlsp graph --meaning`: real tantivy and Chroma on temporary vaults, vectors from the
deterministic test embedder; the link part still the hop-by-hop walk over `memlsp links`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlsp.cli import main
from memlsp.commands.arguments import DEPTHS
from memlsp.engine.engine import Engine
from memlsp.model import DIRECTIONS, MAX_DEPTH, MEANING, MIN_DEPTH, Direction
from memlsp.queries.graph_view import (
    GraphAsk,
    graph_ask,
    graph_view,
    with_meaning,
)
from memlsp.queries.graph_walk import neighbourhood
from memlsp.search.related import NEEDS_VECTORS, RelatedAnswer, RelatedNote, SectionPair
from tests.helpers.engine import embedded_vault, indexed_engine
from tests.helpers.fake_embedder import FakeEmbedder, user_config_for
from tests.helpers.fixtures import endpoint_fixture
from tests.helpers.memory_vault import memory_view
from tests.helpers.vault import write_notes
from tests.queries.test_neighbourhood import UNCAPPED, _edges, _ids, _nodes, hop_by_hop

# fusion links to rrf and is linked from inbound; bm25 and cooking link to nothing: meaning
# alone reaches them.
NOTES = {
    "fusion.md": (
        "---\ndescription: How rankings become one\ntags: [search, ranking]\n---\n# Fusion\n\n"
        "#search #fused Reciprocal rank fusion merges keyword rankings and vector rankings. "
        "See [[rrf]].\n"
    ),
    "rrf.md": (
        "# RRF\n\n#Search\n\n## Formula\n\nReciprocal rank fusion sums one over k plus rank of "
        "keyword and vector rankings.\n"
    ),
    "bm25.md": (
        "---\ndescription: Keyword scoring\ntags: [search]\n---\n# BM25\n\n"
        "Keyword rankings of documents, fused with vector rankings.\n"
    ),
    "inbound.md": "# Inbound\n\nRank fusion of rankings, as [[fusion]] says.\n",
    "cooking.md": "# Cooking\n\nBake bread with flour, water and yeast.\n",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = embedded_vault(tmp_path_factory.mktemp("graph-meaning"), NOTES, FakeEmbedder())
    yield engine
    engine.close()


def test_meaning_edges_go_from_the_note_to_its_closest_notes(engine: Engine) -> None:
    snapshot = engine.read()
    related = snapshot.related("fusion.md", 3)
    answer = graph_view(snapshot.graph, GraphAsk("fusion.md", meaning=3), snapshot.related)
    meaning = [edge for edge in answer.edges if edge.kind == "meaning"]
    assert len(related.results) == 3 and answer.warning is None
    assert {edge.target: edge.similarity for edge in meaning} == {
        note.path: round(note.closest.similarity, 3) for note in related.results
    }
    for edge in meaning:
        assert edge.source == "fusion.md" and (edge.count, edge.line) == (0, None)
        assert edge.similarity is not None and 0 <= edge.similarity <= 1
    links = [edge for edge in answer.edges if edge.kind == "link"]
    assert all(edge.similarity is None and edge.line is not None for edge in links)
    # Edges by (source, target, kind), nodes by distance with meaning's alone last.
    keys = [(edge.source, edge.target, edge.kind) for edge in answer.edges]
    assert keys == sorted(keys)
    distances = [node.distance for node in answer.nodes]
    assert distances == sorted(distances, key=lambda d: (d is None, d or 0))


def test_a_note_linked_and_close_in_meaning_has_both_edges(engine: Engine) -> None:
    answer = graph_view(engine.read().graph, GraphAsk("fusion.md"), engine.read().related)
    kinds = {
        edge.kind for edge in answer.edges if (edge.source, edge.target) == ("fusion.md", "rrf.md")
    }
    assert kinds == {"link", "meaning"}
    rrf = next(node for node in answer.nodes if node.id == "rrf.md")
    assert rrf.distance == 1  # the links reached it: it keeps its distance


def test_a_note_only_meaning_reaches_has_no_distance(engine: Engine) -> None:
    snapshot = engine.read()
    assert "bm25.md" not in {node.id for node in neighbourhood(snapshot.graph, "fusion.md").nodes}
    answer = graph_view(snapshot.graph, GraphAsk("fusion.md"), snapshot.related)
    bm25 = next(node for node in answer.nodes if node.id == "bm25.md")
    assert (bm25.kind, bm25.title, bm25.distance) == ("note", "BM25", None)
    assert (bm25.description, bm25.tags, bm25.inlinks) == ("Keyword scoring", ("search",), 0)
    alone = [node.id for node in answer.nodes if node.distance is None]
    assert alone == sorted(alone) and "cooking.md" in alone


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("depth", [1, 2])
def test_the_link_part_is_still_the_hop_by_hop_walk(
    engine: Engine, depth: int, direction: Direction
) -> None:
    snapshot = engine.read()
    for path in snapshot.graph.notes:
        distance, edges = hop_by_hop(snapshot.links, snapshot.graph.notes, path, depth, direction)
        ask = GraphAsk(path, depth, direction, UNCAPPED, UNCAPPED, meaning=5)
        answer = graph_view(snapshot.graph, ask, snapshot.related)
        assert any(edge.kind == "meaning" for edge in answer.edges), path
        assert _nodes(answer) == distance, (path, depth, direction)
        assert _edges(answer) == _ids(edges), (path, depth, direction)
        # Meaning adds, and takes nothing away from, the walk.
        links = neighbourhood(snapshot.graph, path, depth, direction, UNCAPPED, UNCAPPED)
        assert set(links.nodes) <= set(answer.nodes) and set(links.edges) <= set(answer.edges)


def test_no_meaning_asked_is_the_walk_alone(engine: Engine) -> None:
    snapshot = engine.read()
    answer = graph_view(snapshot.graph, GraphAsk("fusion.md", meaning=0), snapshot.related)
    assert answer == neighbourhood(snapshot.graph, "fusion.md")
    assert answer.warning is None
    with pytest.raises(ValueError, match="'meaning' must be from 0 to 100, not -1"):
        graph_ask("fusion.md", {"meaning": -1})


def test_the_snapshot_answers_a_graph_ask_as_the_pieces_do(engine: Engine) -> None:
    snapshot = engine.read()
    ask = graph_ask("fusion.md", {"depth": 2, "direction": "out", "meaning": 2})
    walk = neighbourhood(snapshot.graph, "fusion.md", 2, "out")
    assert snapshot.graph_view(ask) == with_meaning(
        snapshot.graph, walk, snapshot.related("fusion.md", 2)
    )
    walk = neighbourhood(snapshot.graph, "fusion.md")
    assert snapshot.graph_view(GraphAsk("fusion.md")) == with_meaning(
        snapshot.graph, walk, snapshot.related("fusion.md", MEANING)
    )


def test_a_graph_ask_is_checked_once_against_one_set_of_bounds() -> None:
    assert graph_ask("a.md", {}) == GraphAsk("a.md", 1, "both", 200, 2000, 5)
    assert graph_ask("a.md", {"depth": None, "direction": None}) == GraphAsk("a.md")
    assert graph_ask("a.md", {"depth": 5, "max_per_node": 2000, "meaning": 0}).depth == 5
    assert (MIN_DEPTH, MAX_DEPTH) == (1, 5)
    assert range(MIN_DEPTH, MAX_DEPTH + 1) == DEPTHS  # the command line's --depth
    bad = {
        "depth": (0, "'depth' must be from 1 to 5, not 0"),
        "max_per_node": (2001, "'max_per_node' must be from 1 to 2000, not 2001"),
        "max_nodes": (0, "'max_nodes' must be from 1 to 2000, not 0"),
        "meaning": (101, "'meaning' must be from 0 to 100, not 101"),
    }
    for name, (value, sentence) in bad.items():
        with pytest.raises(ValueError) as raised:
            graph_ask("a.md", {name: value})
        assert str(raised.value) == sentence
    for odd in (True, "2", 1.5):
        with pytest.raises(ValueError, match="'depth' must be a whole number from 1 to 5"):
            graph_ask("a.md", {"depth": odd})
    with pytest.raises(ValueError, match="'direction' must be one of both, out, in, not 'up'"):
        graph_ask("a.md", {"direction": "up"})
    with pytest.raises(ValueError) as raised:
        graph_ask("a.md", {"depth": 9}, lambda name: "--" + name.replace("_", "-"))
    assert str(raised.value) == "--depth must be from 1 to 5, not 9"  # as the CLI says it now


def test_without_vectors_no_meaning_edges_and_a_warning(tmp_path: Path) -> None:
    engine = indexed_engine(tmp_path, NOTES)  # embedder none
    try:
        snapshot = engine.read()
        answer = graph_view(snapshot.graph, GraphAsk("fusion.md"), snapshot.related)
        assert answer.warning == NEEDS_VECTORS
        assert all(edge.kind == "link" for edge in answer.edges)
        assert all(node.distance is not None for node in answer.nodes)
        assert answer.edges == neighbourhood(snapshot.graph, "fusion.md").edges
    finally:
        engine.close()


def _found(*paths: str, warning: str = "") -> RelatedAnswer:
    pair = SectionPair(("A",), 1, ("B",), 1, 1.2345)  # a pair's similarity can pass 1
    return RelatedAnswer(
        "a.md", tuple(RelatedNote(p, 0.5, False, pair, ()) for p in paths), warning
    )


def test_with_meaning_of_a_hand_made_answer() -> None:
    graph = memory_view({"a.md": "# A\n\n[[b]]\n", "b.md": "# B\n", "c.md": "# C\n"}).graph
    links = neighbourhood(graph, "a.md")
    answer = with_meaning(graph, links, _found("c.md", "gone.md", "b.md"))
    assert [(e.source, e.target, e.kind, e.similarity) for e in answer.edges] == [
        ("a.md", "b.md", "link", None),
        ("a.md", "b.md", "meaning", 1.0),  # held to 0..1
        ("a.md", "c.md", "meaning", 1.0),
    ]  # a note gone since the vectors answered is left out
    assert [(n.id, n.distance) for n in answer.nodes] == [("a.md", 0), ("b.md", 1), ("c.md", None)]
    assert with_meaning(graph, links, _found(warning="not made yet")).warning == "not made yet"
    none = with_meaning(graph, links, _found())
    assert none.warning == "no note is close in meaning to a.md" and none.edges == links.edges


def test_a_nodes_description_and_tags() -> None:
    graph = memory_view(NOTES).graph
    answer = neighbourhood(graph, "fusion.md")
    fusion, inbound, rrf = (
        next(node for node in answer.nodes if node.id == path)
        for path in ("fusion.md", "inbound.md", "rrf.md")
    )
    assert fusion.description == "How rankings become one"
    # The frontmatter's, then the text's: each once, in order, without '#'.
    assert fusion.tags == ("search", "ranking", "fused")
    assert rrf.tags == ("Search",)  # as written
    assert inbound.description.startswith("Rank fusion") and inbound.tags == ()


# -- the command ---------------------------------------------------------------------------------


endpoint = endpoint_fixture(64)


def test_memlsp_graph_with_meaning(
    tmp_path: Path,
    endpoint: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    user_config_for(endpoint, tmp_path / "config", 64)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    cache = ("--cache-dir", str(tmp_path / "cache"), "--no-daemon")
    # The command embeds what is missing first, as `related` does.
    assert main(["graph", str(vault), "Fusion", "--json", "--meaning", "2", *cache]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["warning"] is None
    meaning = [edge for edge in data["edges"] if edge["kind"] == "meaning"]
    assert len(meaning) == 2 and meaning[0]["source"] == "fusion.md"
    assert set(meaning[0]) == {"source", "target", "kind", "count", "line", "similarity"}
    assert all(edge["count"] == 0 and edge["line"] is None for edge in meaning)
    shown = {node["id"]: node for node in data["nodes"]}
    assert all(edge["target"] in shown for edge in meaning)

    assert main(["graph", str(vault), "Fusion", "--meaning", "2", *cache]) == 0
    lines = capsys.readouterr().out.splitlines()
    wanted = [f"fusion.md ~ {e['target']} ({e['similarity']:.2f})" for e in meaning]
    assert lines[-3:-1] == wanted
    assert lines[-1].endswith("(both ways), and its 2 closest notes by meaning")
    assert "fusion.md -> rrf.md" in lines and "inbound.md -> fusion.md" in lines

    assert (
        main(["graph", str(vault), "Fusion", "--meaning", "2", "--format", "mermaid", *cache]) == 0
    )
    mermaid = capsys.readouterr().out
    assert mermaid.count(" -.->|") == 2 and mermaid.startswith("flowchart LR\n")
    assert main(["graph", str(vault), "Fusion", "--meaning", "2", "--format", "dot", *cache]) == 0
    assert capsys.readouterr().out.count("[style=dashed, label=") == 2
