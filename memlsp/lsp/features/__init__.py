"""One module per LSP feature; each has `register(server)`, and handlers of a few lines."""

from __future__ import annotations

from memlsp.lsp.features import (
    calls,
    custom,
    definition,
    documents,
    hover,
    lifecycle,
    links,
    references,
    symbols,
)
from memlsp.lsp.server import MemlspServer

MODULES = (lifecycle, documents, symbols, definition, references, hover, links, calls, custom)


def register_all(server: MemlspServer) -> None:
    for module in MODULES:
        module.register(server)
