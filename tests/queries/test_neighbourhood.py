"""The link graph around a note (queries/graph_walk.py) and `memlsp graph`: checked against
`memlsp links` and a hop-by-hop walk over it, written here on its own."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from pathlib import Path

import pytest

from memlsp.cli import main
from memlsp.commands.graph_view_text import FLAGS
from memlsp.engine.snapshot import NoteLinks, Snapshot
from memlsp.model import DIRECTIONS, Direction, LinkStatus, ResolvedLink
from memlsp.queries.graph_walk import Neighbourhood, cut_sentence, neighbourhood
from memlsp.settings.table import Settings
from memlsp.vault.link_graph import LinkGraph
from tests.helpers.engine import indexed_engine
from tests.helpers.memory_vault import memory_view
from tests.helpers.vault import parse_scanned
from tests.vault.test_real_vaults import NAMES, VAULTS

Key = tuple[str, str]  # (id, kind)
Links = Callable[[str], NoteLinks]
UNCAPPED = 10**9

# Every case the walk meets: a cycle (a -> b -> c -> a), a self link and a link to a heading of
# the note itself, an ambiguous name (dup), an alias two notes share (shared), an unresolved name
# three notes write, a link outside the vault, an embedded attachment, an island.
FILES = {
    "a.md": "# Apples\n\n[[b]] and [[b#Part]] and [[missing]].\n\n![[pic.png]] [[#Apples]] [[a]]\n",
    "b.md": "# Bananas\n\n## Part\n\n[[c]] [text](../../outside.md)\n",
    "c.md": "# Cherries\n\n[[a]] [[dup]] [[shared]] [[missing]]\n",
    "x/dup.md": "# Dup one\n\n[[nothing here]]\n",
    "y/dup.md": "# Dup two\n",
    "s1.md": "---\naliases: [shared]\n---\n# S one\n\n[[y/dup]]\n",
    "s2.md": "---\naliases: [Shared]\n---\n# S two\n",
    "d.md": "# Dates\n\n![[pic.png]] and [[c]]\n",
    "island.md": "# Island\n",
    "lone.md": "# Lone\n\n[[missing]]\n",
    "pic.png": "",
}


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Snapshot]:
    engine = indexed_engine(tmp_path_factory.mktemp("neighbourhood"), FILES)
    yield engine.read()
    engine.close()


def _ends(item: ResolvedLink, notes: Collection[str]) -> list[Key]:
    """Where a link leads as `memlsp links` reports it; nothing for a link outside the vault."""
    status = item.resolution.status
    if status is LinkStatus.OUTSIDE:
        return []
    if status is LinkStatus.UNRESOLVED:
        return [(item.link.target, "unresolved")]
    return [(t, "note" if t in notes else "file") for t in item.resolution.targets]


def hop_by_hop(
    links: Links,
    notes: Collection[str],
    start: str,
    depth: int,
    direction: Direction = "both",
) -> tuple[dict[Key, int], dict[tuple[Key, Key], tuple[int, int]]]:
    """The reference: each reached note's `links` read in turn, level by level, no caps (an
    attachment is a "file", which `memlsp links` does not answer for, so never read). Nodes
    with their distances, and the links read between two of them: (count, first line) per
    (source, target), the same whichever end it was read from."""
    distance: dict[Key, int] = {(start, "note"): 0}
    # (source, target, the note read, its outlinks or inlinks) -> the links' lines
    read: dict[tuple[Key, Key, Key, str], list[int]] = {}
    level = [start]
    for step in range(1, depth + 1):
        reached: list[Key] = []
        for path in level:
            here: Key = (path, "note")
            answer = links(path)
            pairs = []
            if direction in ("both", "out"):
                pairs += [(here, e, "out", i) for i in answer.outlinks for e in _ends(i, notes)]
            if direction in ("both", "in"):
                pairs += [((i.source, "note"), here, "in", i) for i in answer.inlinks]
            for source, target, way, item in pairs:
                read.setdefault((source, target, here, way), []).append(item.link.span.line + 1)
                other = target if source == here else source
                if other not in distance:
                    distance[other] = step
                    reached.append(other)
        level = [path for path, kind in reached if kind == "note"]
    edges: dict[tuple[Key, Key], tuple[int, int]] = {}
    for (source, target, _, _), lines in read.items():
        if source in distance and target in distance:
            weight = (len(lines), min(lines))
            assert edges.setdefault((source, target), weight) == weight
    return distance, edges


def _nodes(answer: Neighbourhood) -> dict[Key, int]:
    """The nodes links reached (those of meaning alone have no distance), with their distance."""
    return {
        (node.id, node.kind): node.distance for node in answer.nodes if node.distance is not None
    }


def _edge_keys(answer: Neighbourhood) -> set[tuple[str, str]]:
    return {(edge.source, edge.target) for edge in answer.edges if edge.kind == "link"}


def _edges(answer: Neighbourhood) -> dict[tuple[str, str], tuple[int, int | None]]:
    """The link edges: (count, first line) per (source, target)."""
    return {
        (edge.source, edge.target): (edge.count, edge.line)
        for edge in answer.edges
        if edge.kind == "link"
    }


def _ids(
    edges: dict[tuple[Key, Key], tuple[int, int]],
) -> dict[tuple[str, str], tuple[int, int | None]]:
    return {(source[0], target[0]): weight for (source, target), weight in edges.items()}


def _walk(snapshot: Snapshot, path: str, depth: int, direction: Direction) -> Neighbourhood:
    return neighbourhood(snapshot.graph, path, depth, direction, UNCAPPED, UNCAPPED)


# -- what the walk finds ---------------------------------------------------------------------------


def test_depth_one_is_what_memlsp_links_lists(snapshot: Snapshot) -> None:
    for path in snapshot.graph.notes:
        links = snapshot.links(path)
        wanted = {(path, "note")}
        for item in links.outlinks:
            if item.resolution.status in (LinkStatus.RESOLVED, LinkStatus.AMBIGUOUS):
                wanted |= set(_ends(item, snapshot.graph.notes))
        wanted |= {(item.source, "note") for item in links.inlinks}
        for item in links.unresolved:  # and outside the vault, which the graph leaves out
            if item.resolution.status is LinkStatus.UNRESOLVED:
                wanted.add((item.link.target, "unresolved"))
        answer = neighbourhood(snapshot.graph, path, 1)
        assert set(_nodes(answer)) == wanted, path
        assert answer.left_out.nodes == answer.left_out.edges == 0 and answer.cut is None


def test_depth_one_of_a_note_every_case_meets(snapshot: Snapshot) -> None:
    answer = neighbourhood(snapshot.graph, "a.md", 1)
    assert [(n.id, n.kind, n.title, n.distance, n.inlinks) for n in answer.nodes] == [
        ("a.md", "note", "Apples", 0, 2),  # itself and c.md link here
        ("b.md", "note", "Bananas", 1, 1),
        ("c.md", "note", "Cherries", 1, 2),
        ("missing", "unresolved", "missing", 1, 3),  # a.md, c.md and lone.md write it
        ("pic.png", "file", "pic.png", 1, 2),  # an embed counts, as in `memlsp links`
    ]
    assert [(e.source, e.target, e.count, e.line, e.kind) for e in answer.edges] == [
        ("a.md", "a.md", 2, 5, "link"),  # [[#Apples]] and [[a]]
        ("a.md", "b.md", 2, 3, "link"),  # [[b]] and [[b#Part]]: one edge, two links
        ("a.md", "missing", 1, 3, "link"),
        ("a.md", "pic.png", 1, 5, "link"),
        ("c.md", "a.md", 1, 3, "link"),  # reached by its inlink, pointing as written
    ]


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_every_depth_and_direction_is_the_hop_by_hop_walk(
    snapshot: Snapshot, depth: int, direction: Direction
) -> None:
    for path in snapshot.graph.notes:
        distance, edges = hop_by_hop(snapshot.links, snapshot.graph.notes, path, depth, direction)
        answer = _walk(snapshot, path, depth, direction)
        assert _nodes(answer) == distance, (path, depth, direction)
        assert _edges(answer) == _ids(edges), (path, depth, direction)


def test_directions_follow_links_as_written(snapshot: Snapshot) -> None:
    out = _walk(snapshot, "b.md", 2, "out")
    assert _nodes(out) == {
        ("b.md", "note"): 0,
        ("c.md", "note"): 1,
        ("a.md", "note"): 2,
        ("missing", "unresolved"): 2,
        ("s1.md", "note"): 2,
        ("s2.md", "note"): 2,
        ("x/dup.md", "note"): 2,  # where the ambiguous [[dup]] resolves: y/dup.md is not reached
    }
    into = _walk(snapshot, "b.md", 2, "in")
    assert _nodes(into) == {("b.md", "note"): 0, ("a.md", "note"): 1, ("c.md", "note"): 2}
    # Reached against the links, the edges still point as the links are written.
    assert _edge_keys(into) == {("a.md", "b.md"), ("c.md", "a.md"), ("a.md", "a.md")}


def test_a_cycle_ends_and_each_note_keeps_its_nearest_distance(snapshot: Snapshot) -> None:
    answer = _walk(snapshot, "a.md", 5, "out")
    distances = _nodes(answer)
    assert (distances[("b.md", "note")], distances[("c.md", "note")]) == (1, 2)
    assert distances[("a.md", "note")] == 0 and ("c.md", "a.md") in _edge_keys(answer)


def test_an_alias_two_notes_share_leads_to_both(snapshot: Snapshot) -> None:
    answer = _walk(snapshot, "c.md", 1, "out")
    assert {"s1.md", "s2.md", "x/dup.md"} <= {node.id for node in answer.nodes}
    assert "y/dup.md" not in {node.id for node in answer.nodes}  # only a candidate of [[dup]]


def test_an_unresolved_target_is_never_followed(snapshot: Snapshot) -> None:
    """a.md and c.md write [[missing]] too, but a name nothing has leads nowhere."""
    answer = _walk(snapshot, "lone.md", 3, "both")
    assert _nodes(answer) == {("lone.md", "note"): 0, ("missing", "unresolved"): 1}
    assert _edges(answer) == {("lone.md", "missing"): (1, 3)}
    island = _walk(snapshot, "island.md", 3, "both")
    assert [node.id for node in island.nodes] == ["island.md"] and island.edges == ()


def test_a_link_outside_the_vault_is_no_node(snapshot: Snapshot) -> None:
    answer = _walk(snapshot, "b.md", 1, "out")
    assert all("outside" not in node.id for node in answer.nodes)


def test_the_answer_is_the_same_whatever_order_the_vault_was_read_in() -> None:
    forward = memory_view(FILES).graph
    backward = memory_view(dict(reversed(FILES.items()))).graph
    for path in FILES:
        if path.endswith(".md"):
            first = neighbourhood(forward, path, 3, "both", max_per_node=2, max_nodes=6)
            assert first == neighbourhood(backward, path, 3, "both", max_per_node=2, max_nodes=6)
            order = [(node.distance, node.id) for node in first.nodes]
            assert order == sorted(order)
            pairs = [(edge.source, edge.target) for edge in first.edges]
            assert pairs == sorted(pairs)


def test_bad_arguments_raise() -> None:
    graph = memory_view(FILES).graph
    for depth, per_node in ((0, 1), (1, 0)):
        with pytest.raises(ValueError, match="at least 1"):
            neighbourhood(graph, "a.md", depth, max_per_node=per_node)
    with pytest.raises(ValueError, match="direction must be one of both, out, in"):
        neighbourhood(graph, "a.md", 1, "up")  # type: ignore[arg-type]


# -- hubs ----------------------------------------------------------------------------------------

HUB = {
    "hub.md": "# Hub\n\n[[n03]] [[n07]]\n",
    **{
        f"n{number:02d}.md": f"# N{number}\n\n[[hub]] [[n{number + 1:02d}]]\n"
        for number in range(10)
    },
}


def test_a_hub_brings_its_first_neighbours_and_counts_the_rest() -> None:
    graph = memory_view(HUB).graph
    answer = neighbourhood(graph, "hub.md", 1, "in", max_per_node=3)
    assert [node.id for node in answer.nodes] == ["hub.md", "n00.md", "n01.md", "n02.md"]
    assert (answer.left_out.nodes, answer.left_out.edges) == (7, 7)
    # The answer names the parameter as every surface takes it; the command line, its flag.
    assert answer.cut == (
        "Left out 7 nodes and 7 edges: 7 past the first 3 neighbours a note has in one direction "
        "(a larger max_per_node shows more)."
    )
    assert cut_sentence(answer.left_out, FLAGS) == (
        "Left out 7 nodes and 7 edges: 7 past the first 3 neighbours a note has in one direction "
        "(a larger --max-per-node shows more)."
    )
    # Per direction: its two outlinks come besides; n03 is both, taken as an outlink.
    both = neighbourhood(graph, "hub.md", 1, "both", max_per_node=3)
    assert [node.id for node in both.nodes] == ["hub.md", *(f"n0{n}.md" for n in (0, 1, 2, 3, 7))]
    assert (both.left_out.nodes, both.left_out.edges) == (5, 5)
    # An edge read to a node that came in another way is kept: n03 -> hub as well as hub -> n03.
    assert {("hub.md", "n03.md"), ("n03.md", "hub.md")} <= _edge_keys(both)


def test_the_whole_answer_is_capped_nearest_first() -> None:
    graph = memory_view(HUB).graph
    answer = neighbourhood(graph, "n00.md", 3, "out", max_nodes=4)
    assert [(node.id, node.distance) for node in answer.nodes] == [
        ("n00.md", 0),
        ("hub.md", 1),
        ("n01.md", 1),
        ("n02.md", 2),  # n03 and n07 (from hub) are at distance 2 too, later in path order
    ]
    # n02 is followed all the same (its links are read): hub -> n03, hub -> n07, n02 -> n03.
    assert (answer.left_out.nodes, answer.left_out.edges) == (2, 3)
    assert answer.cut == (
        "Left out 2 nodes and 3 edges: 2 past 4 nodes in all (a smaller depth or one "
        "direction keeps to the nearest)."
    )
    assert cut_sentence(answer.left_out, FLAGS) == (
        "Left out 2 nodes and 3 edges: 2 past 4 nodes in all (a smaller --depth or one "
        "--direction keeps to the nearest)."
    )


def test_one_left_out_is_said_in_the_singular() -> None:
    graph = memory_view(HUB).graph
    answer = neighbourhood(graph, "hub.md", 1, "out", max_per_node=1)
    assert answer.cut is not None and answer.cut.startswith("Left out 1 node and 1 edge: 1 past")


# -- the command ---------------------------------------------------------------------------------


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for path, text in {".memlsp.toml": 'embedder = "none"\n', **FILES}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def _graph(
    capsys: pytest.CaptureFixture[str], vault: Path, cache: Path, *args: str
) -> tuple[int, str, str]:
    code = main(["graph", str(vault), *args, "--cache-dir", str(cache), "--no-daemon"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


LONE = "2 nodes and 1 edge within 1 link of lone.md (both ways)"


def test_memlsp_graph_prints_each_edge_then_a_summary(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _graph(capsys, vault, tmp_path / "c", "b", "--direction", "in", "--depth", "2")
    assert code == 0
    assert out.splitlines() == [
        "a.md -> a.md",
        "a.md -> b.md",
        "c.md -> a.md",
        "3 nodes and 3 edges within 2 links of b.md (inlinks)",
        "note: related notes need vectors (embedder = none)",  # why no meaning edges came
    ]
    code, out, _ = _graph(capsys, vault, tmp_path / "c", "c", "--max-per-node", "2")
    # Its outlinks a.md and missing come first in path order; s1.md, s2.md and x/dup.md do not
    # come; a.md's link to missing is not read (a.md is as far as the walk goes).
    assert out.splitlines() == [
        "b.md -> c.md",
        "c.md -> a.md",
        "c.md -> missing (unresolved)",
        "d.md -> c.md",
        "5 nodes and 4 edges within 1 link of c.md (both ways). Left out 3 nodes and 3 edges: 3 "
        "past the first 2 neighbours a note has in one direction (a larger --max-per-node shows "
        "more).",
        "note: related notes need vectors (embedder = none)",
    ]
    code, out, _ = _graph(capsys, vault, tmp_path / "c", "lone", "--meaning", "0")
    assert out.splitlines() == ["lone.md -> missing (unresolved)", LONE]  # none asked, no note


def test_memlsp_graph_json(vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _graph(capsys, vault, tmp_path / "c", "d", "--json", "--direction", "out")
    assert code == 0
    assert json.loads(out) == {
        "note": "d.md",
        "depth": 1,
        "direction": "out",
        "nodes": [
            {"id": "d.md", "kind": "note", "title": "Dates", "distance": 0, "inlinks": 0,
             "description": "pic.png and c", "tags": []},  # its first line, as a search shows
            {"id": "c.md", "kind": "note", "title": "Cherries", "distance": 1, "inlinks": 2,
             "description": "a dup shared missing", "tags": []},
            {"id": "pic.png", "kind": "file", "title": "pic.png", "distance": 1, "inlinks": 2,
             "description": "", "tags": []},
        ],
        "edges": [
            {"source": "d.md", "target": "c.md", "kind": "link", "count": 1, "line": 3,
             "similarity": None},
            {"source": "d.md", "target": "pic.png", "kind": "link", "count": 1, "line": 3,
             "similarity": None},
        ],
        "left_out": {"nodes": 0, "edges": 0},
        "cut": None,
        "warning": "related notes need vectors (embedder = none)",
    }  # fmt: skip
    # --json is --format json; no meaning asked, no warning.
    code, out, _ = _graph(capsys, vault, tmp_path / "c", "d", "--format", "json", "--meaning", "0")
    assert code == 0 and json.loads(out)["warning"] is None
    code, out, _ = _graph(capsys, vault, tmp_path / "c", "hub", "--json")
    assert code == 2 and out == ""


def test_memlsp_graph_refuses_what_it_cannot_answer(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "c"
    assert _graph(capsys, vault, cache, "nope")[::2] == (2, f"memlsp: no note 'nope' in {vault}\n")
    for depth in ("0", "6"):
        code, _, err = _graph(capsys, vault, cache, "a", "--depth", depth)
        assert (code, err) == (2, f"memlsp: --depth must be from 1 to 5, not {depth}\n")
    for most in ("0", "2001"):  # no more neighbours than an answer holds nodes
        code, _, err = _graph(capsys, vault, cache, "a", "--max-per-node", most)
        assert (code, err) == (2, f"memlsp: --max-per-node must be from 1 to 2000, not {most}\n")
    for meaning in ("-1", "101"):
        code, _, err = _graph(capsys, vault, cache, "a", "--meaning", meaning)
        assert (code, err) == (2, f"memlsp: --meaning must be from 0 to 100, not {meaning}\n")
    with pytest.raises(SystemExit) as exited:
        _graph(capsys, vault, cache, "a", "--format", "svg")
    assert exited.value.code == 2 and "invalid choice: 'svg'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        _graph(capsys, vault, cache, "a", "--direction", "up")
    assert exited.value.code == 2 and "invalid choice: 'up'" in capsys.readouterr().err


# -- the real vaults -----------------------------------------------------------------------------


def _real_graph(root: Path) -> LinkGraph:
    notes, scan = parse_scanned(root, Settings(embedder="none"))
    graph = LinkGraph()
    graph.load(notes, scan.files)
    return graph.freeze()


@pytest.mark.realdata
@pytest.mark.parametrize("name", NAMES)
def test_real_vaults_walk_as_memlsp_links_does_hop_by_hop(name: str) -> None:
    root = VAULTS / name
    if not root.is_dir():
        pytest.skip(f"real vault {name} not found under {VAULTS} (shared test data absent)")
    graph = _real_graph(root)

    def links(path: str) -> NoteLinks:  # what Snapshot.links answers of this graph
        return NoteLinks(path, graph.outlinks(path), tuple(graph.inlinks(path)))

    paths = sorted(graph.notes)
    chosen = paths[:: max(1, len(paths) // 20)][:20]  # spread over the vault's folders
    # and the most linked, where the caps would bite
    chosen += sorted(paths, key=lambda p: (-graph.inlink_count(p), p))[:2]
    for path in chosen:
        for depth in (1, 2):
            distance, edges = hop_by_hop(links, graph.notes, path, depth)
            answer = neighbourhood(graph, path, depth, "both", UNCAPPED, UNCAPPED)
            assert _nodes(answer) == distance, (path, depth)
            assert _edges(answer) == _ids(edges), (path, depth)
