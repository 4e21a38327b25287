"""Problems with links (navigation/diagnostics.py) and unlinked mentions (navigation/mentions.py),
pushed to the client for every open note.

They are computed again for every open note of a vault each time it changes, from the one snapshot
of that change (`vault_events.py`), on a worker thread (finding mentions cuts words with jieba),
and sent on the event loop only where they differ from what was sent: creating a missing note (in
the editor or by any other program) clears the problems of every open note that links to it, and a
new note's name shows where it is written. A note's mentions are found again only when its text or
the vault's names changed. Each round waits for the one before it, so a newer revision's problems
are never overtaken by an older one's.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from memlsp import wire
from memlsp.engine.snapshot import Snapshot
from memlsp.live.vault import LiveVault
from memlsp.lsp.client_port import ClientPort
from memlsp.navigation.diagnostics import SEVERITIES, Levels, Problem, note_problems
from memlsp.navigation.mentions import mention_problems, note_mentions_key
from memlsp.queries.mentions import Mention, NameIndex, mentions_in_text, names_of
from memlsp.settings.table import Settings

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


Note = tuple[str, str]  # an open document's URI, and its note's vault-relative path
Diagnostics = list[dict[str, Any]]


class Publisher:
    """The problems of the open notes, as the client has been sent them. Call on the event loop."""

    def __init__(self, port: ClientPort) -> None:
        self._port = port
        self._sent: dict[str, Diagnostics] = {}  # document URI -> what the client has
        # document URI -> the text and names its mentions were found with, and those mentions
        self._mentions: dict[str, tuple[str, NameIndex, tuple[Mention, ...]]] = {}
        self._last: asyncio.Future[None] | None = None  # the round sent last, or being worked out

    def vault_changed(self, vault: LiveVault, snapshot: Snapshot | None) -> asyncio.Future[None]:
        """Every open note of `vault`, again, from `snapshot` (none while the vault has no index
        open); done once they are sent, after every round asked for before."""
        notes = []
        for uri in self._port.open_uris() if snapshot is not None else ():
            found = self._port.note_at(uri)
            if found is not None and found[0] is vault:
                notes.append((uri, found[1]))
        return self._round(snapshot, notes)

    def opened(self, uri: str) -> None:
        found = self._port.note_at(uri)
        snapshot = found[0].read() if found is not None else None
        if found is not None and snapshot is not None:
            self._round(snapshot, [(uri, found[1])])

    def closed(self, uri: str) -> None:
        """A closed note's problems leave the problems list."""
        self._mentions.pop(uri, None)
        if self._sent.pop(uri, None):
            self._send(uri, [])

    def _round(self, snapshot: Snapshot | None, notes: list[Note]) -> asyncio.Future[None]:
        self._last = asyncio.ensure_future(self._publish(self._last, snapshot, notes))
        return self._last

    async def _publish(
        self, before: asyncio.Future[None] | None, snapshot: Snapshot | None, notes: list[Note]
    ) -> None:
        if before is not None:
            with contextlib.suppress(Exception):  # a failed round is no reason to stop
                await before
        if snapshot is None or not notes:
            return
        encoding = self._port.encoding()
        found = await asyncio.to_thread(self._problems, snapshot, notes, encoding)
        for uri, diagnostics in found:
            if self._port.document(uri) is None:  # closed while they were worked out
                self._mentions.pop(uri, None)
                continue
            if self._sent.get(uri) != diagnostics:  # never sent counts as different
                self._sent[uri] = diagnostics
                self._send(uri, diagnostics)

    def _problems(
        self, snapshot: Snapshot, notes: list[Note], encoding: str
    ) -> list[tuple[str, Diagnostics]]:
        """On a worker thread: the problems of each note, as the client is sent them."""
        found = []
        for uri, path in notes:
            problems = note_problems(snapshot.view, path, levels_of(snapshot.settings))
            problems += self._mention_problems(uri, snapshot, path)
            problems.sort(key=lambda problem: (problem.span.line, problem.span.start))
            found.append((uri, [diagnostic_json(problem, encoding) for problem in problems]))
        return found

    def _mention_problems(self, uri: str, snapshot: Snapshot, path: str) -> list[Problem]:
        settings = snapshot.settings
        severity = SEVERITIES.get(settings.unlinked_mentions)
        text = snapshot.read(path)
        if severity is None or text is None:
            return []
        min_length = settings.mention_min_length
        names = names_of(snapshot.view, min_length)  # the same index while no name changes
        known = self._mentions.get(uri)
        if known is not None and known[1] is names and known[0] == text:
            found = known[2]  # kept across revisions: another note's edit changes none of these
        else:
            found = mentions_in_text(path, text, names)
            self._mentions[uri] = (text, names, found)
        # The code actions on this note ask the same of this revision, from its lines joined by
        # "\n" (navigation/mentions.note_mentions); where those are this text, they find these.
        joined = "\n".join(text.splitlines())
        if joined == text.removesuffix("\n"):
            snapshot.memo(note_mentions_key(path, min_length, joined), lambda: found)
        return mention_problems(found, severity)

    def _send(self, uri: str, diagnostics: Diagnostics) -> None:
        document = self._port.document(uri)
        params = _CONVERTER.structure(
            {"uri": document.uri if document else uri, "diagnostics": diagnostics},
            types.PublishDiagnosticsParams,
        )
        if document is not None:
            params.version = document.version
        self._port.publish_diagnostics(params)
