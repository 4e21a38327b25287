"""One module per LSP feature; each has `register(server)`, and handlers of a few lines."""

from __future__ import annotations

from memlsp.lsp.features import actions as actions
from memlsp.lsp.features import calls as calls
from memlsp.lsp.features import completion as completion
from memlsp.lsp.features import custom as custom
from memlsp.lsp.features import definition as definition
from memlsp.lsp.features import documents as documents
from memlsp.lsp.features import graph_view as graph_view
from memlsp.lsp.features import hover as hover
from memlsp.lsp.features import lens as lens
from memlsp.lsp.features import lifecycle as lifecycle
from memlsp.lsp.features import links as links
from memlsp.lsp.features import mentions as mentions
from memlsp.lsp.features import references as references
from memlsp.lsp.features import related as related
from memlsp.lsp.features import rename as rename
from memlsp.lsp.features import symbols as symbols
from memlsp.lsp.server import MemlspServer

MODULES = (
    lifecycle,
    documents,
    symbols,
    definition,
    references,
    hover,
    completion,
    actions,
    rename,
    lens,
    links,
    calls,
    custom,
    related,
    mentions,
    graph_view,
)


def register_all(server: MemlspServer) -> None:
    for module in MODULES:
        module.register(server)
