"""memlsp/search, memlsp/links, memlsp/reindex and memlsp/status: the engine's own answers, as JSON."""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from memlsp import wire
from memlsp.commands.status import NotOpen, live_report
from memlsp.engine.snapshot import NoteLinks
from memlsp.live.status import VaultStatus
from memlsp.live.vault import LiveVault
from memlsp.lsp import convert
from memlsp.lsp.convert import fields
from memlsp.lsp.server import MemlspServer
from memlsp.model import NEVER, SearchRequest, SearchResponse
from memlsp.navigation.diagnostics import ProblemCounts, vault_problems
from memlsp.search.request import build_request


def register(server: MemlspServer) -> None:
    @server.feature("memlsp/search")
    async def search(params: Any) -> wire.VaultSearchAnswerJson:
        values = fields("memlsp/search", params)
        try:
            request = build_request(values)
        except ValueError as error:
            raise JsonRpcInvalidParams(f"memlsp/search: {error}") from error
        each = wire.each_vault(request)
        vaults = server.vaults.all()
        answers = [await _search_vault(server, vault, each) for vault in vaults]
        merged = wire.vault_search_answer_json(request, answers)
        if request.record:
            await server.run(partial(_recall, vaults, merged["results"]))
        return merged

    @server.feature("memlsp/links")
    async def links(params: Any) -> wire.LinksAnswerJson | None:
        uri = fields("memlsp/links", params).get("uri")
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams("memlsp/links: 'uri' (the note's URI, a string) is required")
        found = server.vaults.route(uri)
        snapshot = server.read(found[0]) if found is not None else None
        if found is None or snapshot is None:
            return None
        note_links: NoteLinks = await server.run(partial(snapshot.links, found[1]))
        return wire.links_answer_json(
            uri, note_links, partial(convert.note_uri, snapshot.root), server.encoding
        )

    @server.feature("memlsp/reindex")
    async def reindex(params: Any) -> wire.ReindexAnswerJson:
        """Scan every vault again for changes the watcher may have missed (a network drive, a
        sync tool writing while the editor was closed); `memlsp/indexed` follows for each."""
        fields("memlsp/reindex", params)
        roots = []
        for vault in server.vaults.all():
            vault.rescan()
            roots.append(convert.uri_of(vault.root))
        return wire.reindex_answer_json(roots)

    @server.feature("memlsp/status")
    async def status(params: Any) -> wire.StatusAnswerJson:
        """Each vault's status; with `"report": true`, each open one's whole report too (what
        `memlsp status --json` prints), which walks the vault's folder."""
        report = fields("memlsp/status", params).get("report", False)
        if not isinstance(report, bool):
            raise JsonRpcInvalidParams("memlsp/status: 'report' must be true or false")
        vaults = []
        for vault in server.vaults.all():
            # On a thread: counting walks the snapshot's records (10,000 at 10k notes).
            state, problems = await server.run(partial(_status, vault))
            full = await server.run(partial(_report, vault)) if report else None
            root = convert.uri_of(vault.root)
            vaults.append(wire.vault_status_json(root, state, problems, full))
        return wire.status_answer_json(server.version, vaults)


async def _search_vault(
    server: MemlspServer, vault: LiveVault, request: SearchRequest
) -> wire.VaultAnswer:
    # Asked before the search: a vault that finishes indexing meanwhile answered from part of it.
    incomplete = vault.incomplete()

    def search() -> SearchResponse | None:
        snapshot = vault.read()
        if snapshot is None:
            return None
        # Counted once the merged answer says which results are shown (`_recall`).
        return snapshot.recalled(snapshot.search(request), record=False)

    response = await server.run(search)
    return wire.VaultAnswer(
        name=vault.root.name,
        root=convert.uri_of(vault.root),
        note_uri=partial(convert.note_uri, vault.root),
        response=response,
        incomplete=incomplete,
    )


def _recall(vaults: Sequence[LiveVault], results: list[wire.VaultSearchResultJson]) -> None:
    """The results `memlsp/search` shows counted as recalled, each in its vault, and each given
    its count with this search (the budget's dropped results and linked notes are not shown)."""
    now = time.time_ns()
    for vault in vaults:
        root = convert.uri_of(vault.root)
        mine = [result for result in results if result["root"] == root]
        snapshot = vault.read() if mine else None
        if snapshot is None or snapshot.recall is None:
            continue
        found = snapshot.recall.record([result["path"] for result in mine], now)
        for result in mine:
            recall = found.get(result["path"], NEVER)
            result["recall_count"] = recall.recall_count
            result["last_recalled_at"] = wire.recalled_at(recall)


def _report(vault: LiveVault) -> wire.StatusReportJson | None:
    """The vault's whole report; None until its index is open."""
    try:
        return wire.status_report_json(live_report(vault))
    except NotOpen:
        return None


def _status(vault: LiveVault) -> tuple[VaultStatus, ProblemCounts | None]:
    """The vault's status and its problems, from one snapshot: one revision for both."""
    snapshot = vault.read()
    problems = vault_problems(snapshot.view) if snapshot is not None else None
    return vault.status(snapshot), problems
