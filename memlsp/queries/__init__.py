"""Questions asked of a whole vault, as the command line, the language server's own requests and
the MCP tools ask them: the graph view around a note, a note's unlinked mentions in the other
notes, reading a note or part of it, and the notes changed lately.

Each is a pure function over one revision (a `LinkGraph` or a `VaultView`, and what else it needs
given as a function), so it runs on any vault that can make one. `Snapshot` (engine/snapshot.py)
answers them for a request, wired once: `graph_view(GraphAsk)` and `mentions(path)`, as it
answers `search`. The graph view is `graph_walk.py` (the link walk) with the meaning edges of
`graph_view.py`, asked as a `GraphAsk` that `graph_ask` checks against the one set of bounds.
Editor features at a cursor live in `navigation/`.
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.queries.graph_view import GRAPH_BOUNDS as GRAPH_BOUNDS
    from memlsp.queries.graph_view import GraphAsk as GraphAsk
    from memlsp.queries.graph_view import GraphBounds as GraphBounds
    from memlsp.queries.graph_view import graph_ask as graph_ask
    from memlsp.queries.graph_walk import GraphEdge as GraphEdge
    from memlsp.queries.graph_walk import GraphNode as GraphNode
    from memlsp.queries.graph_walk import Neighbourhood as Neighbourhood
    from memlsp.queries.graph_walk import neighbourhood as neighbourhood
    from memlsp.queries.mentions import Mention as Mention
    from memlsp.queries.mentions import MentionsAnswer as MentionsAnswer
    from memlsp.queries.mentions import NameIndex as NameIndex
    from memlsp.queries.mentions import mentions_of as mentions_of
    from memlsp.queries.mentions import names_of as names_of
    from memlsp.queries.reading import Passage as Passage
    from memlsp.queries.reading import ReadRequest as ReadRequest
    from memlsp.queries.reading import read_passage as read_passage
    from memlsp.queries.recent import RecentChanges as RecentChanges
    from memlsp.queries.recent import recent_changes as recent_changes

__getattr__ = exports(
    __name__,
    {
        "GRAPH_BOUNDS": "graph_view",
        "GraphAsk": "graph_view",
        "GraphBounds": "graph_view",
        "graph_ask": "graph_view",
        "GraphEdge": "graph_walk",
        "GraphNode": "graph_walk",
        "Neighbourhood": "graph_walk",
        "neighbourhood": "graph_walk",
        "Mention": "mentions",
        "MentionsAnswer": "mentions",
        "NameIndex": "mentions",
        "mentions_of": "mentions",
        "names_of": "mentions",
        "Passage": "reading",
        "ReadRequest": "reading",
        "read_passage": "reading",
        "RecentChanges": "recent",
        "recent_changes": "recent",
    },
)
