"""`memlsp/graph` through a real client: the graph `memlsp graph --json` gives, with each note's and
file's `uri`; meaning edges from a server whose vectors come from the deterministic test embedder
(behind an OpenAI-compatible endpoint), none and a warning from one without vectors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from pygls.exceptions import JsonRpcException

from memlsp import wire
from memlsp.queries.graph_walk import neighbourhood
from memlsp.search.related import NEEDS_VECTORS
from tests.helpers.fake_embedder import embedding_endpoint
from tests.helpers.vault import FIXTURE_VAULT, graph_of, read_vault
from tests.lsp.conftest import Session, served

pytestmark = pytest.mark.asyncio(loop_scope="module")

INVALID_PARAMS = -32602
NOTE = "search/hybrid-search.md"


def _walk(depth: int, direction: str = "both") -> wire.GraphJson:
    """The link part as `memlsp graph --json --meaning 0` gives it for the fixture vault."""
    notes, files = read_vault(FIXTURE_VAULT)
    answer = neighbourhood(graph_of(notes, files), NOTE, depth, direction)  # type: ignore[arg-type]
    return wire.graph_json(answer)


def _links(answer: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """Nodes with a distance (without their uri) and link edges: what the walk alone answers."""
    nodes = [
        {key: value for key, value in node.items() if key != "uri"}
        for node in answer["nodes"]
        if node["distance"] is not None
    ]
    return nodes, [edge for edge in answer["edges"] if edge["kind"] == "link"]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def keyword(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    """A server without vectors (embedder none)."""
    async with served(tmp_path_factory.mktemp("graph-keyword"), "vscode") as session:
        yield session


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def meaning(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    """A server whose every chunk has a vector from the test embedder."""
    with embedding_endpoint(64) as url:
        options = {"embedder": "endpoint", "embedder_url": url, "embedder_model": "fake-64"}
        folder = tmp_path_factory.mktemp("graph-meaning")
        async with served(folder, "neovim", options) as session:
            [vectors] = await session.wait_for("memlsp/vectors", timeout=120)
            assert vectors.vectors.state == "ready" and vectors.vectors.pending == 0, vectors
            yield session


async def test_the_graph_of_a_note_with_uris(keyword: Session) -> None:
    answer = await keyword.request("memlsp/graph", {"uri": keyword.uri(NOTE), "depth": 2})
    walked = _walk(2)
    assert _links(answer) == (walked["nodes"], walked["edges"])
    assert (answer["note"], answer["depth"], answer["direction"]) == (NOTE, 2, "both")
    assert answer["left_out"] == walked["left_out"] and answer["cut"] == walked["cut"]
    for node in answer["nodes"]:
        if node["kind"] == "unresolved":
            assert "uri" not in node
        else:
            assert node["uri"] == keyword.uri(node["id"])
    assert {node["kind"] for node in answer["nodes"]} == {"note", "file", "unresolved"}
    # No vectors: no meaning edges, and why.
    assert answer["warning"] == NEEDS_VECTORS
    assert all(edge["kind"] == "link" for edge in answer["edges"])


async def test_direction_caps_and_no_meaning(keyword: Session) -> None:
    params = {"uri": keyword.uri(NOTE), "direction": "in", "max_per_node": 1, "meaning": 0}
    answer = await keyword.request("memlsp/graph", params)
    notes, files = read_vault(FIXTURE_VAULT)
    capped = neighbourhood(graph_of(notes, files), NOTE, 1, "in", 1)
    assert _links(answer) == _links(dict(wire.graph_json(capped)))
    assert answer["warning"] is None and answer["cut"] == capped.cut
    # A view's answer holds at most `max_nodes` (600 unless asked), the nearest first.
    small = await keyword.request("memlsp/graph", {"uri": keyword.uri(NOTE), "max_nodes": 2})
    assert [node["distance"] for node in small["nodes"]] == [0, 1]
    assert small["left_out"]["nodes"] > 0 and small["cut"]


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({}, "'uri'"),
        ({"uri": 7}, "'uri'"),
        ({"depth": 0}, "'depth' must be from 1 to 5, not 0"),
        ({"depth": 6}, "'depth'"),
        ({"depth": "2"}, "'depth'"),
        ({"depth": True}, "'depth'"),
        ({"meaning": -1}, "'meaning' must be from 0 to 100, not -1"),
        ({"meaning": 1.5}, "'meaning'"),
        ({"max_per_node": 0}, "'max_per_node' must be from 1 to 2000, not 0"),
        ({"max_nodes": 2001}, "'max_nodes' must be from 1 to 2000, not 2001"),
        ({"direction": "up"}, "'direction' must be one of both, out, in, not 'up'"),
        ({"direction": 3}, "'direction'"),
    ],
    ids=str,
)
async def test_bad_params_name_the_field(
    keyword: Session, params: dict[str, Any], named: str
) -> None:
    sent = params if "uri" in params or not params else {"uri": keyword.uri(NOTE), **params}
    with pytest.raises(JsonRpcException) as raised:
        await keyword.request("memlsp/graph", sent)
    assert raised.value.code == INVALID_PARAMS and named in str(raised.value)


async def test_the_server_announces_the_bounds_it_checks(keyword: Session) -> None:
    assert keyword.result is not None
    experimental = keyword.result.capabilities.experimental
    assert experimental == {
        "memlspGraph": {"min_depth": 1, "max_depth": 5, "max_per_node": 2000, "max_nodes": 2000}
    }
    # The deepest it announces is answered; one deeper is refused.
    deepest = {"uri": keyword.uri(NOTE), "depth": 5, "meaning": 0}
    assert (await keyword.request("memlsp/graph", deepest))["depth"] == 5
    with pytest.raises(JsonRpcException) as raised:
        await keyword.request("memlsp/graph", {**deepest, "depth": 6})
    assert raised.value.code == INVALID_PARAMS


async def test_no_graph_outside_the_notes(keyword: Session) -> None:
    outside = (keyword.vault.parent / "elsewhere.md").as_uri()
    assert await keyword.request("memlsp/graph", {"uri": outside}) is None
    attachment = next(path for path in read_vault(FIXTURE_VAULT)[1])
    assert await keyword.request("memlsp/graph", {"uri": keyword.uri(attachment)}) is None


async def test_meaning_edges_and_the_notes_only_meaning_reaches(meaning: Session) -> None:
    uri = meaning.uri(NOTE)
    answer = await meaning.request("memlsp/graph", {"uri": uri, "meaning": 20})
    assert answer["warning"] is None
    edges = [edge for edge in answer["edges"] if edge["kind"] == "meaning"]
    related = await meaning.request("memlsp/related", {"uri": uri, "limit": 20})
    assert [edge["target"] for edge in sorted(edges, key=lambda e: e["target"])] == sorted(
        result["path"] for result in related["results"]
    )
    for edge in edges:
        assert (edge["source"], edge["count"], edge["line"]) == (NOTE, 0, None)
        assert 0 <= edge["similarity"] <= 1
    for result in related["results"]:
        edge = next(e for e in edges if e["target"] == result["path"])
        assert edge["similarity"] == round(min(max(result["closest"]["similarity"], 0), 1), 3)
    nodes = {node["id"]: node for node in answer["nodes"]}
    assert all(edge["target"] in nodes for edge in edges)
    # The links are all there, as without meaning; what only meaning reached has no distance.
    walked = _walk(1)
    assert _links(answer) == (walked["nodes"], walked["edges"])
    linked = {node["id"] for node in walked["nodes"]}
    for edge in edges:
        node = nodes[edge["target"]]
        assert node["uri"] == meaning.uri(node["id"])
        assert (node["distance"] is None) == (edge["target"] not in linked)
    assert any(node["distance"] is None for node in nodes.values())
