"""memlsp/search, memlsp/links, memlsp/reindex and memlsp/status: the engine's own answers, as JSON."""

from __future__ import annotations

from functools import partial
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from memlsp.engine import NoteLinks
from memlsp.lsp import convert
from memlsp.lsp.protocol import json_kind
from memlsp.lsp.server import MemlspServer
from memlsp.model import ResolvedLink
from memlsp.search.render import link_json, response_json
from memlsp.search.request import build_request


def register(server: MemlspServer) -> None:
    @server.feature("memlsp/search")
    async def search(params: Any) -> dict[str, Any]:
        values = _fields("memlsp/search", params)
        try:
            request = build_request(values)
        except ValueError as error:
            raise JsonRpcInvalidParams(f"memlsp/search: {error}") from error
        results: list[dict[str, Any]] = []
        counts = {"keyword": 0, "vector": 0, "hybrid": False}
        warnings: list[str] = []
        strength = 0.0
        for vault in list(server.vaults.values()):
            if why := vault.incomplete():
                warnings.append(why)
            engine = vault.engine
            if engine is None:
                continue
            answer = response_json(await server.run(partial(engine.search, request)))
            for result in answer["results"]:
                result["uri"] = convert.note_uri(vault.root, result["path"])
                result["root"] = convert.uri_of(vault.root)
            results += answer["results"]
            counts["keyword"] += answer["counts"]["keyword"]
            counts["vector"] += answer["counts"]["vector"]
            counts["hybrid"] = counts["hybrid"] or answer["counts"]["hybrid"]
            strength = max(strength, answer["strength"])
            warnings += [f"{vault.root.name}: {w}" for w in answer["warnings"]]
        results.sort(key=lambda r: (-r["score"], r["path"], r["start_line"]))
        return {
            "query": request.query,
            "mode": request.mode,
            "warnings": warnings,
            "strength": strength,
            "counts": counts,
            "results": results[: request.limit],
        }

    @server.feature("memlsp/links")
    async def links(params: Any) -> dict[str, Any] | None:
        uri = _fields("memlsp/links", params).get("uri")
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams("memlsp/links: 'uri' (the note's URI, a string) is required")
        found = server.engine_for(uri)
        if found is None:
            return None
        engine, path, root = found
        note_links: NoteLinks = await server.run(lambda: engine.links(path))
        return {
            "uri": uri,
            "path": path,
            "outlinks": [_link(root, item, server.encoding) for item in note_links.outlinks],
            "inlinks": [_link(root, item, server.encoding) for item in note_links.inlinks],
            "unresolved": [_link(root, item, server.encoding) for item in note_links.unresolved],
            "ambiguous": [_link(root, item, server.encoding) for item in note_links.ambiguous],
        }

    @server.feature("memlsp/reindex")
    async def reindex(params: Any) -> dict[str, Any]:
        """Scan every vault again for changes the watcher may have missed (a network drive, a
        sync tool writing while the editor was closed); `memlsp/indexed` follows for each."""
        _fields("memlsp/reindex", params)
        roots = []
        for vault in list(server.vaults.values()):
            vault.rescan()
            roots.append(convert.uri_of(vault.root))
        return {"vaults": roots}

    @server.feature("memlsp/status")
    async def status(params: Any) -> dict[str, Any]:
        _fields("memlsp/status", params)
        vaults = []
        for vault in list(server.vaults.values()):
            # On a thread: counting takes the engine's lock, which a writer may hold a while.
            state = await server.run(vault.status)
            vaults.append(
                {
                    "root": convert.uri_of(vault.root),
                    "name": state.name,
                    "summary": state.summary,
                    "busy": state.busy,
                    "state": state.state,
                    "notes": state.notes,
                    "chunks": state.chunks,
                    "revision": state.revision,
                    "indexed_files": state.files_done,
                    "files_to_index": state.files_total,
                    "pending_changes": state.pending,
                    "message": state.message,
                    "read_only": state.read_only,
                    **convert.vector_status_json(state.vectors),
                }
            )
        return {"version": server.version, "vaults": vaults}


def _fields(method: str, params: Any) -> dict[str, Any]:
    """A custom request's params, a JSON object as it came (see `MemlspProtocol`); none is none."""
    # Neovim encodes an empty Lua table `{}` as `[]`: no fields either.
    if params is None or params == []:
        return {}
    if not isinstance(params, dict):
        raise JsonRpcInvalidParams(f"{method}: params must be an object, not {json_kind(params)}")
    return params


def _link(root: Any, item: ResolvedLink, encoding: str) -> dict[str, Any]:
    return {
        **link_json(item),
        "uri": convert.note_uri(root, item.source),
        "range": _range_json(convert.span_range(item.link.span, encoding)),
    }


def _range_json(value: types.Range) -> dict[str, dict[str, int]]:
    return {
        "start": {"line": value.start.line, "character": value.start.character},
        "end": {"line": value.end.line, "character": value.end.character},
    }
