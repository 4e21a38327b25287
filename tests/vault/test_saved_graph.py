"""A link graph saved in the manifest loads as it was, whether saved by this version or by the
one that kept a set per name key, and answers the same afterwards."""

from __future__ import annotations

import io
import pickle

from memlsp.index import manifest
from memlsp.parse.markdown import parse_markdown
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.shared import SharedMap
from tests.helpers.vault import graph_of

NOTES = [
    parse_markdown("a.md", "# A\n\n[[b]] and [[Hub]]\n"),
    parse_markdown("b.md", "---\naliases: [Bee]\n---\n# B\n\n[[Hub]]\n"),
    parse_markdown("x/Hub.md", "# Hub\n"),
    parse_markdown("c.md", "# C\n\n[[Bee]] [[hub]]\n"),
]


def loaded(graph: LinkGraph) -> LinkGraph:
    data = pickle.dumps(graph, protocol=pickle.HIGHEST_PROTOCOL)
    copy = manifest._Unpickler(io.BytesIO(data)).load()
    assert isinstance(copy, LinkGraph)
    return copy


def answers(graph: LinkGraph) -> tuple[object, ...]:
    return (
        graph.inlink_sources("x/Hub.md"),
        graph.inlink_sources("b.md"),
        sorted(graph.sources_looking_up({"hub", "alias:bee"})),
        sorted(graph.table.by_name("HUB")),
        sorted(graph.table.by_alias("bee")),
        sorted(graph.table.by_folded_path("X/hub.md")),
    )


def as_earlier_versions_saved_it(graph: LinkGraph) -> LinkGraph:
    """The same graph with a set per key in `SharedMap`s, as versions before saved it."""

    def shared(table: dict[str, tuple[str, ...]]) -> SharedMap[str, set[str]]:
        old: SharedMap[str, set[str]] = SharedMap()
        for key, values in table.items():
            old.writable(key, set).update(values)
        return old

    old = loaded(graph)
    old._dependents = shared(dict(old._dependents.items()))  # type: ignore[arg-type,assignment]
    for name in ("_by_folded_path", "_by_name", "_by_alias"):
        setattr(old.table, name, shared(getattr(old.table, name)))
    return old


def test_a_saved_graph_answers_as_before() -> None:
    graph = graph_of(NOTES)
    expected = (
        ["a.md", "b.md", "c.md"],
        ["a.md", "c.md"],
        ["a.md", "b.md", "c.md"],
        ["x/Hub.md"],
        ["b.md"],
        ["x/Hub.md"],
    )
    assert answers(graph) == expected
    assert answers(loaded(graph)) == expected
    earlier = loaded(as_earlier_versions_saved_it(graph))
    assert answers(earlier) == expected
    edited = earlier.edited()  # and it goes on being edited
    edited.remove("c.md")
    edited.upsert(parse_markdown("d.md", "# D\n\n[[Hub]]\n"))
    assert edited.inlink_sources("x/Hub.md") == ["a.md", "b.md", "d.md"]
    assert sorted(edited.sources_looking_up({"alias:bee"})) == []


def test_a_name_linked_from_many_notes_is_held_once() -> None:
    """Parsed in other processes (the index's workers) or loaded from the manifest alike."""
    graph = graph_of(NOTES)
    for copy in (graph, loaded(graph)):
        targets = [item.link.target for s in ("a.md", "b.md") for item in copy.outlinks(s)]
        hubs = [target for target in targets if target == "Hub"]
        assert len(hubs) == 2 and hubs[0] is hubs[1]
