"""workspace/symbol (search) and textDocument/documentSymbol (the heading outline)."""

from __future__ import annotations

from functools import partial

from lsprotocol import types

from memlsp.engine.snapshot import Snapshot
from memlsp.lsp import convert
from memlsp.lsp.server import MemlspServer
from memlsp.model import SearchRequest
from memlsp.navigation.outline import Section, outline, outline_of_text
from memlsp.navigation.symbols import most_linked


def register(server: MemlspServer) -> None:
    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbol(params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        query = params.query.strip()
        found: list[tuple[float, types.WorkspaceSymbol]] = []
        limit = 0  # the largest of the vaults' own limits, for the whole answer
        for vault in server.vaults.all():
            snapshot = server.read(vault)
            if snapshot is not None:
                limit = max(limit, snapshot.settings.symbol_limit)
                found += await server.run(partial(_symbols, snapshot, query))
        # Merged by score, as `memlsp/search` merges (a score means the same in every vault);
        # equal scores, and the hubs of an empty query, keep the vaults' order.
        found.sort(key=lambda scored: -scored[0])
        return [symbol for _, symbol in found[:limit]]

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        def symbols(sections: list[Section]) -> list[types.DocumentSymbol]:
            return [convert.document_symbol(section, server.encoding) for section in sections]

        uri = params.text_document.uri
        document = server.document(uri)
        if document is not None:  # the buffer as it is now, whether or not it is indexed yet
            path = convert.path_of(uri)
            name = path.name if path is not None else uri
            return symbols(await server.run(partial(outline_of_text, name, document.source)))
        return await server.in_note(uri, lambda note: symbols(outline(note.view, note.path)), [])


def _symbols(snapshot: Snapshot, query: str) -> list[tuple[float, types.WorkspaceSymbol]]:
    """Search results with their scores; for an empty query the most-linked notes, a vault's
    hubs (scored 0: they have no score to merge by)."""
    root, limit = snapshot.root, snapshot.settings.symbol_limit
    if query:
        response = snapshot.search(SearchRequest(query, limit=limit, expand=False))
        return [(hit.score, convert.workspace_symbol(root, hit)) for hit in response.hits]
    view = snapshot.view
    notes = view.graph.notes
    return [
        (
            0.0,
            types.WorkspaceSymbol(
                name=notes[path].title if path in notes else path,
                kind=types.SymbolKind.File,
                container_name=path,
                location=types.Location(convert.note_uri(root, path), convert.line_range(0)),
            ),
        )
        for path in most_linked(view, limit)
    ]
