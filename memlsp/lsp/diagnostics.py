"""Problems with links (navigation/diagnostics.py) and unlinked mentions (navigation/mentions.py),
pushed to the client for every open note.

They are computed again for every open note of a vault each time it changes, on the event loop, and
sent only where they differ from what was sent: creating a missing note (in the editor or by any
other program) clears the problems of every open note that links to it, and a new note's name
shows where it is written. A note's mentions are found again only when its text or the vault's
names changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from memlsp import wire
from memlsp.engine.snapshot import Snapshot
from memlsp.live.vault import LiveVault
from memlsp.navigation.diagnostics import SEVERITIES, Levels, Problem, note_problems
from memlsp.navigation.mentions import (
    Mention,
    NameIndex,
    mention_problems,
    mentions_in_text,
    name_index,
)
from memlsp.settings.table import Settings

if TYPE_CHECKING:
    from memlsp.lsp.server import MemlspServer

SOURCE = "memlsp"
_CONVERTER = get_converter()


def levels_of(settings: Settings) -> Levels:
    return Levels.named(
        settings.unresolved_links,
        settings.missing_anchors,
        settings.ambiguous_links,
        settings.links_outside,
    )


def diagnostic_json(problem: Problem, encoding: str) -> dict[str, Any]:
    found: dict[str, Any] = {
        "range": wire.range_json(problem.span, encoding),
        "severity": int(problem.severity),
        "code": problem.code,
        "source": SOURCE,
        "message": problem.message,
    }
    if problem.candidates:
        found["data"] = {"candidates": list(problem.candidates)}
    return found


class Publisher:
    def __init__(self, server: MemlspServer) -> None:
        self._server = server
        self._sent: dict[str, list[dict[str, Any]]] = {}  # document URI -> what the client has
        # document URI -> the text and names its mentions were found with, and those mentions
        self._mentions: dict[str, tuple[str, NameIndex, tuple[Mention, ...]]] = {}

    def vault_changed(self, vault: LiveVault) -> None:
        """Every open note of `vault`, again (call on the event loop)."""
        snapshot = vault.read()  # one revision for every note
        if snapshot is None:
            return
        for uri in self._server.open_documents(vault):
            found = self._server.vaults.route(uri)
            if found is not None:
                self._publish(uri, snapshot, found[1])

    def opened(self, uri: str) -> None:
        found = self._server.vaults.route(uri)
        snapshot = found[0].read() if found is not None else None
        if found is not None and snapshot is not None:
            self._publish(uri, snapshot, found[1])

    def closed(self, uri: str) -> None:
        """A closed note's problems leave the problems list."""
        self._mentions.pop(uri, None)
        if self._sent.pop(uri, None):
            self._send(uri, [])

    def _publish(self, uri: str, snapshot: Snapshot, path: str) -> None:
        encoding = self._server.encoding
        problems = note_problems(snapshot.view, path, levels_of(snapshot.settings))
        problems += self._mention_problems(uri, snapshot, path)
        problems.sort(key=lambda problem: (problem.span.line, problem.span.start))
        diagnostics = [diagnostic_json(problem, encoding) for problem in problems]
        if self._sent.get(uri) != diagnostics:  # never sent counts as different
            self._sent[uri] = diagnostics
            self._send(uri, diagnostics)

    def _mention_problems(self, uri: str, snapshot: Snapshot, path: str) -> list[Problem]:
        settings = snapshot.settings
        severity = SEVERITIES.get(settings.unlinked_mentions)
        text = snapshot.read(path)
        if severity is None or text is None:
            return []
        names = name_index(snapshot.graph, settings.mention_min_length)
        known = self._mentions.get(uri)
        if known is not None and known[1] is names and known[0] == text:
            found = known[2]
        else:
            found = mentions_in_text(path, text, names)
            self._mentions[uri] = (text, names, found)
        return mention_problems(found, severity)

    def _send(self, uri: str, diagnostics: list[dict[str, Any]]) -> None:
        document = self._server.document(uri)
        params = _CONVERTER.structure(
            {"uri": document.uri if document else uri, "diagnostics": diagnostics},
            types.PublishDiagnosticsParams,
        )
        if document is not None:
            params.version = document.version
        self._server.text_document_publish_diagnostics(params)
