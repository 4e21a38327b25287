"""What a note's views show, as plain rows, so a live index can be compared with a fresh one: the
graph around it (`memlsp/graph`), its unlinked mentions (`memlsp/mentions`) and its related notes
(`memlsp/related`), asked of a running server over stdio or of an `Engine` in this process.

Both sides are normalised from the same JSON (the engine's answers go through the `wire`
functions the server sends), sorted, and stripped of what may legitimately differ between two
indexes of the same files, each said where it is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

from memlsp import wire
from memlsp.engine.snapshot import Snapshot
from memlsp.model import MOST_MEANING
from memlsp.queries.graph_view import graph_ask, graph_view
from memlsp.vault.linktext import wikilink_target

if TYPE_CHECKING:
    from tests.helpers.stdio_server import StdioServer

# Every closest note by meaning, not the first five: which five come first depends on scores, and
# a related note's score has a share of BM25 weights, which count words of deleted documents until
# the keyword index merges its segments. All of them is the same set in any index of these files.
GRAPH = {"depth": 2, "meaning": MOST_MEANING}
RELATED = {"limit": MOST_MEANING}
NOT_A_NOTE = "(not a note)"

Views = dict[str, tuple[str, ...]]


def graph_rows(answer: Mapping[str, Any] | None) -> tuple[str, ...]:
    """Nodes and edges as rows, sorted. Node order and the `uri`s are the answer's own."""
    if answer is None:
        return (NOT_A_NOTE,)
    rows = [
        f"node {n['id']} {n['kind']} {n['title']!r} distance {n['distance']} "
        f"inlinks {n['inlinks']} {n['description']!r} tags {n['tags']}"
        for n in answer["nodes"]
    ]
    rows += [
        f"edge {e['source']} -> {e['target']} {e['kind']} x{e['count']} line {e['line']} "
        f"similarity {e['similarity']}"
        for e in answer["edges"]
    ]
    rows.append(f"left out {answer['left_out']}; cut {answer['cut']}; {answer['warning']}")
    return tuple(sorted(rows))


def mention_rows(answer: Mapping[str, Any] | None) -> tuple[str, ...]:
    """Each mention as `path line:start-end 'text' -> targets`, 1-based; a `memlsp/mentions`
    range is 0-based (and in the client's encoding, the same here: the notes are ASCII)."""
    if answer is None:
        return (NOT_A_NOTE,)
    rows = []
    for m in answer["mentions"]:
        if "range" in m:
            start, end = m["range"]["start"], m["range"]["end"]
            line, first, last = start["line"] + 1, start["character"] + 1, end["character"] + 1
        else:
            line, first, last = m["line"], m["start"], m["end"]
        rows.append(f"{m['path']} {line}:{first}-{last} {m['text']!r} -> {m['targets']}")
    rows.append(f"left out {answer['left_out']}; {answer.get('warning', '')}")
    return tuple(sorted(rows))


def related_rows(answer: Mapping[str, Any] | None) -> tuple[str, ...]:
    """Each related note with what it shares and how close its closest pair of sections is,
    sorted by path. Left out: the order, the score and the reason (which says "mentions" from a
    share of BM25 weights: see GRAPH), and which pair is the closest: two sections as close to
    a third in float32 (a vector made in another batch differs in its last bits) may swap."""
    if answer is None:
        return (NOT_A_NOTE,)
    rows = []
    for r in answer["results"]:
        closest = round(r["closest"]["similarity"], 3)
        rows.append(
            f"{r['path']} {r['title']!r} [[{r['link']}]] linked {r['linked']} "
            f"tags {r['shared_tags']} closest {closest}"
        )
    rows.append(answer.get("warning", ""))
    return tuple(sorted(rows))


def engine_views(snapshot: Snapshot, paths: Iterable[str]) -> Views:
    """The views of each path as the server's handlers answer them from this snapshot, in the
    JSON they send (URIs aside, which the rows leave out)."""
    views: Views = {}
    # `Snapshot.graph_view` with the note's related notes found once for both views (they ask
    # the same), which halves the time of a vault with vectors.
    related_of = lru_cache(maxsize=None)(snapshot.related)
    for path in sorted(set(paths)):
        graph = None
        if path in snapshot.graph.notes:  # else no links are read from it: no graph
            ask = graph_ask(path, GRAPH)
            graph = wire.graph_json(graph_view(snapshot.graph, ask, related_of))
        mentions = wire.mentions_answer_json(path, snapshot.mentions(path), str, "utf-16")
        link = partial(wikilink_target, snapshot.graph.table, path)
        related = related_of(path, RELATED["limit"])
        views[f"graph of {path}"] = graph_rows(graph)
        views[f"mentions of {path}"] = mention_rows(dict(mentions))
        views[f"related of {path}"] = related_rows(
            dict(wire.related_answer_json(path, related, str, link))
        )
    return views


def server_views(server: StdioServer, paths: Iterable[str]) -> Views:
    """The views of each path, asked of the server."""
    views: Views = {}

    def ask(method: str, path: str, more: Mapping[str, Any]) -> Any:
        return server.request(method, {"uri": server.uri(path), **more})

    for path in sorted(set(paths)):
        views[f"graph of {path}"] = graph_rows(ask("memlsp/graph", path, GRAPH))
        views[f"mentions of {path}"] = mention_rows(ask("memlsp/mentions", path, {}))
        views[f"related of {path}"] = related_rows(ask("memlsp/related", path, RELATED))
    return views
