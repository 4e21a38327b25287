"""The link graph kept current note by note: attach, detach, rename, ambiguity, aliases, cost."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import memlsp.vault.link_graph
from memlsp.model import LinkStatus, Note
from memlsp.parse.markdown import parse_markdown
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.resolve import resolve
from tests.helpers.vault import graph_of, outlink


def note(path: str, text: str) -> Note:
    return parse_markdown(path, text)


def statuses(graph: LinkGraph, source: str) -> list[tuple[str, LinkStatus, tuple[str, ...]]]:
    return [
        (item.link.target, item.resolution.status, item.resolution.targets)
        for item in graph.outlinks(source)
    ]


@pytest.fixture
def resolve_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call the graph makes to `resolve`, as the source path it resolved for."""
    calls: list[str] = []
    real: Callable[..., Any] = resolve  # the one memlsp.vault.link_graph imports

    def counting(link: Any, source: str, table: Any) -> Any:
        calls.append(source)
        return real(link, source, table)

    monkeypatch.setattr(memlsp.vault.link_graph, "resolve", counting)
    return calls


def test_outlinks_and_inlinks() -> None:
    graph = graph_of(
        [
            note("a.md", "See [[b]] and [[c]].\n\nAgain [[b#Part]], and [[#Top]].\n\n# Top\n"),
            note("b.md", "# Part\nBack to [[a]]."),
            note("c.md", "Nothing here."),
        ]
    )
    assert statuses(graph, "a.md") == [
        ("b", LinkStatus.RESOLVED, ("b.md",)),
        ("c", LinkStatus.RESOLVED, ("c.md",)),
        ("b", LinkStatus.RESOLVED, ("b.md",)),
        ("", LinkStatus.RESOLVED, ("a.md",)),
    ]
    inlinks_b = graph.inlinks("b.md")
    assert [(item.source, item.link.headings) for item in inlinks_b] == [
        ("a.md", ()),
        ("a.md", ("Part",)),
    ]
    assert graph.inlink_sources("b.md") == ["a.md"]
    assert graph.inlink_count("b.md") == 1  # sources, not links
    assert graph.inlink_sources("a.md") == ["a.md", "b.md"]  # [[#Top]] links a note to itself
    assert graph.inlinks("c.md")[0].source == "a.md"
    assert graph.outlinks("c.md") == ()
    assert graph.inlinks("missing.md") == []


def test_unresolved_link_attaches_when_the_note_appears() -> None:
    graph = graph_of([note("a.md", "Later: [[Learning to Rank]] and [[other]].")])
    assert outlink(graph, "a.md", "Learning to Rank").resolution.status is LinkStatus.UNRESOLVED
    assert graph.counts() == {"links": 2, "unresolved": 2, "ambiguous": 0}

    graph.upsert(note("ml/Learning to Rank.md", "# Learning to Rank\n"))

    resolved = outlink(graph, "a.md", "Learning to Rank").resolution
    assert resolved.status is LinkStatus.RESOLVED
    assert resolved.targets == ("ml/Learning to Rank.md",)
    assert graph.inlink_sources("ml/Learning to Rank.md") == ["a.md"]
    assert outlink(graph, "a.md", "other").resolution.status is LinkStatus.UNRESOLVED
    assert graph.counts() == {"links": 2, "unresolved": 1, "ambiguous": 0}


def test_link_detaches_when_the_note_is_removed() -> None:
    graph = graph_of([note("a.md", "[[b]]"), note("b.md", "[[a]]")])
    assert graph.inlink_sources("b.md") == ["a.md"]

    graph.remove("b.md")

    assert statuses(graph, "a.md") == [("b", LinkStatus.UNRESOLVED, ())]
    assert graph.inlinks("b.md") == []
    assert graph.outlinks("b.md") == ()
    assert graph.inlink_sources("a.md") == []  # b's own link to a went with it
    assert "b.md" not in graph.notes
    graph.remove("b.md")  # removing twice is harmless
    assert graph.counts() == {"links": 1, "unresolved": 1, "ambiguous": 0}


def test_rename_is_remove_then_upsert() -> None:
    graph = graph_of(
        [
            note("a.md", "Old name [[draft]], new name [[final]]."),
            note("draft.md", "Points to [[a]]."),
        ]
    )
    assert outlink(graph, "a.md", "draft").resolution.targets == ("draft.md",)

    renamed = note("notes/final.md", "Points to [[a]].")
    graph.remove("draft.md")
    graph.upsert(renamed)

    assert outlink(graph, "a.md", "draft").resolution.status is LinkStatus.UNRESOLVED
    assert outlink(graph, "a.md", "final").resolution.targets == ("notes/final.md",)
    assert graph.inlink_sources("notes/final.md") == ["a.md"]
    assert graph.inlink_sources("draft.md") == []
    assert graph.inlink_sources("a.md") == ["notes/final.md"]
    assert graph.outlinks("draft.md") == ()


def test_second_note_with_the_same_name_makes_links_ambiguous() -> None:
    graph = graph_of([note("index.md", "[[plan]]"), note("work/plan.md", "# Plan")])
    assert statuses(graph, "index.md") == [("plan", LinkStatus.RESOLVED, ("work/plan.md",))]

    graph.upsert(note("p/plan.md", "# Shorter path"))

    resolution = outlink(graph, "index.md", "plan").resolution
    assert resolution.status is LinkStatus.AMBIGUOUS
    assert resolution.targets == ("p/plan.md",)  # shortest path wins
    assert resolution.candidates == ("p/plan.md", "work/plan.md")
    assert graph.inlink_sources("p/plan.md") == ["index.md"]
    assert graph.inlink_sources("work/plan.md") == []  # the inlink moved
    assert graph.counts()["ambiguous"] == 1
    assert [item.source for item in graph.links_with_status(LinkStatus.AMBIGUOUS)] == ["index.md"]

    graph.remove("p/plan.md")

    assert statuses(graph, "index.md") == [("plan", LinkStatus.RESOLVED, ("work/plan.md",))]
    assert graph.counts()["ambiguous"] == 0


def test_alias_added_later_resolves_links() -> None:
    graph = graph_of(
        [
            note("index.md", "My method: [[Second Brain]]."),
            note("pkm/知识管理.md", "# 知识管理\n"),
        ]
    )
    assert outlink(graph, "index.md", "Second Brain").resolution.status is LinkStatus.UNRESOLVED

    graph.upsert(note("pkm/知识管理.md", "---\naliases: [Second Brain]\n---\n# 知识管理\n"))
    assert outlink(graph, "index.md", "Second Brain").resolution.targets == ("pkm/知识管理.md",)

    # a second note with the same alias (another case): both are targets
    graph.upsert(note("pkm/basb.md", "---\naliases: second brain\n---\n# BASB\n"))
    resolution = outlink(graph, "index.md", "Second Brain").resolution
    assert resolution.status is LinkStatus.RESOLVED
    assert resolution.targets == ("pkm/basb.md", "pkm/知识管理.md")
    assert graph.inlink_sources("pkm/basb.md") == ["index.md"]
    assert graph.inlink_sources("pkm/知识管理.md") == ["index.md"]

    # the alias is dropped again from one of them
    graph.upsert(note("pkm/知识管理.md", "# 知识管理\n"))
    assert outlink(graph, "index.md", "Second Brain").resolution.targets == ("pkm/basb.md",)
    assert graph.inlink_sources("pkm/知识管理.md") == []


def test_attachment_added_and_removed() -> None:
    graph = graph_of([note("index.md", "![[pipeline.png]]")])
    assert statuses(graph, "index.md") == [("pipeline.png", LinkStatus.UNRESOLVED, ())]

    graph.add_file("assets/pipeline.png")
    assert statuses(graph, "index.md") == [
        ("pipeline.png", LinkStatus.RESOLVED, ("assets/pipeline.png",))
    ]
    assert graph.inlink_sources("assets/pipeline.png") == ["index.md"]

    graph.remove("assets/pipeline.png")
    assert statuses(graph, "index.md") == [("pipeline.png", LinkStatus.UNRESOLVED, ())]


def test_content_edit_of_a_hub_does_not_reresolve_other_notes(resolve_calls: list[str]) -> None:
    spokes = [note(f"spoke/{i:03}.md", f"Back to [[hub]] from {i}.") for i in range(50)]
    hub = note("hub.md", "---\naliases: [Home]\n---\n# Hub\n[[spoke/000]] [[spoke/001]]\n")
    graph = graph_of([hub, *spokes])
    # load resolves each distinct (target, folder) once: the 50 spokes share one "hub" link
    assert len(resolve_calls) == 3
    assert graph.inlink_count("hub.md") == 50

    resolve_calls.clear()
    graph.upsert(note("hub.md", "---\naliases: [Home]\n---\n# Hub\nEdited. [[spoke/000]]\n"))

    assert resolve_calls == ["hub.md"]  # only the hub's own (now one) link
    assert graph.inlink_count("hub.md") == 50
    assert graph.inlink_sources("spoke/001.md") == []


def test_alias_change_reresolves_only_the_notes_that_use_it(resolve_calls: list[str]) -> None:
    graph = graph_of(
        [
            note("hub.md", "# Hub\n"),
            note("a.md", "[[Start here]]"),
            note("b.md", "[[hub]]"),
            note("c.md", "[[something else]]"),
        ]
    )
    resolve_calls.clear()

    graph.upsert(note("hub.md", "---\naliases: [Start here]\n---\n# Hub\n"))

    assert sorted(resolve_calls) == ["a.md"]  # the hub itself has no links
    assert outlink(graph, "a.md", "Start here").resolution.targets == ("hub.md",)


def test_counts() -> None:
    graph = graph_of(
        [
            note("index.md", "[[plan]] [[missing]] [old](../outside.md) [[a]] ![[pic.png]]"),
            note("a.md", "[[index]] [[#Top]]\n# Top"),
            note("x/plan.md", ""),
            note("y/plan.md", ""),
        ],
        ["img/pic.png"],
    )
    # outside counts as unresolved: it can never resolve
    assert graph.counts() == {"links": 7, "unresolved": 2, "ambiguous": 1}
    assert [i.link.target for i in graph.links_with_status(LinkStatus.OUTSIDE)] == ["../outside.md"]
    assert [i.link.target for i in graph.links_with_status(LinkStatus.UNRESOLVED)] == ["missing"]
