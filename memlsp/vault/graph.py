"""The link graph: outlinks, inlinks, unresolved and ambiguous links, kept current note by note.

Updating a note re-resolves its own links, plus the links elsewhere whose resolution can depend on a
name the update added or removed (its file name or an alias). A content edit that keeps the names
touches nothing but the note itself, so a hub with thousands of inlinks is cheap to edit.
"""

from __future__ import annotations

import posixpath
from collections import Counter, defaultdict
from collections.abc import Iterable

from memlsp.model import LinkKind, LinkStatus, Note, Resolution, ResolvedLink
from memlsp.vault.names import NameTable
from memlsp.vault.resolve import lookup_keys, resolve


class LinkGraph:
    def __init__(self) -> None:
        self.table = NameTable()
        self.notes: dict[str, Note] = {}
        self._outlinks: dict[str, tuple[ResolvedLink, ...]] = {}
        # target -> source -> the source's links that reach the target, in the source's order
        self._inlinks: dict[str, dict[str, list[ResolvedLink]]] = {}
        self._dependents: dict[str, set[str]] = defaultdict(set)  # name key -> sources
        # links per status, kept as links come and go: a summary after each edit needs no walk
        self._statuses: Counter[LinkStatus] = Counter()

    # -- updates -------------------------------------------------------------------------

    def load(self, notes: Iterable[Note], files: Iterable[str] = ()) -> None:
        """Bulk start: register every name first, then resolve every note once."""
        for note in notes:
            self.notes[note.path] = note
            self.table.add(note.path, note.aliases)
        for path in files:
            self.table.add(path)
        # Many links share a target: resolve each (kind, target, folder) once. Resolution depends
        # on the source only through its folder (relative paths, the same-folder tie-break).
        memo: dict[tuple[LinkKind, str, str], Resolution] = {}
        for path in self.notes:
            self._relink(path, memo)

    def upsert(self, note: Note) -> None:
        old = self.notes.get(note.path)
        old_names = self.table.names_of(note.path, old.aliases) if old else set()
        if old is not None:
            self.table.remove(note.path)
        self.notes[note.path] = note
        self.table.add(note.path, note.aliases)
        changed = old_names ^ self.table.names_of(note.path, note.aliases)
        self._relink_dependents(changed, also=note.path)

    def remove(self, path: str) -> None:
        note = self.notes.pop(path, None)
        if note is None and not self.table.exists(path):
            return
        names = self.table.names_of(path, note.aliases if note else ())
        self.table.remove(path)
        self._unlink(path)
        self._outlinks.pop(path, None)
        self._relink_dependents(names)

    def add_file(self, path: str) -> None:
        """A non-note file (an attachment) that links and embeds can point at."""
        if not self.table.exists(path):
            self.table.add(path)
            self._relink_dependents(self.table.names_of(path))

    def _relink_dependents(self, keys: set[str], also: str | None = None) -> None:
        sources = {source for key in keys for source in self._dependents.get(key, ())}
        if also is not None:
            sources.add(also)
        for source in sorted(sources):
            if source in self.notes:
                self._relink(source)

    def _unlink(self, source: str) -> None:
        for resolved in self._outlinks.get(source, ()):
            self._statuses[resolved.resolution.status] -= 1
            for target in resolved.resolution.targets:
                sources = self._inlinks.get(target)
                if sources is not None:
                    sources.pop(source, None)  # all of a source's links go at once
                    if not sources:
                        del self._inlinks[target]
            for key in lookup_keys(resolved.link):
                dependents = self._dependents.get(key)
                if dependents is not None:
                    dependents.discard(source)
                    if not dependents:
                        del self._dependents[key]

    def _relink(
        self, source: str, memo: dict[tuple[LinkKind, str, str], Resolution] | None = None
    ) -> None:
        self._unlink(source)
        note = self.notes[source]
        folder = posixpath.dirname(source)
        resolved = []
        for link in note.links:
            if memo is None or not link.target:
                resolution = resolve(link, source, self.table)
            else:
                memo_key = (link.kind, link.target, folder)
                resolution = memo.get(memo_key) or memo.setdefault(
                    memo_key, resolve(link, source, self.table)
                )
            resolved.append(ResolvedLink(source, link, resolution))
        self._attach(source, resolved)

    def _attach(self, source: str, resolved: list[ResolvedLink]) -> None:
        self._outlinks[source] = tuple(resolved)
        for item in resolved:
            self._statuses[item.resolution.status] += 1
            for target in item.resolution.targets:
                self._inlinks.setdefault(target, {}).setdefault(source, []).append(item)
            for key in lookup_keys(item.link):
                self._dependents[key].add(source)

    # -- queries -------------------------------------------------------------------------

    def outlinks(self, path: str) -> tuple[ResolvedLink, ...]:
        return self._outlinks.get(path, ())

    def inlinks(self, path: str) -> list[ResolvedLink]:
        """Every link in another note (or this one) that resolves to `path`, by source then line."""
        sources = self._inlinks.get(path, {})
        return [item for source in sorted(sources) for item in sources[source]]

    def inlink_sources(self, path: str) -> list[str]:
        return sorted(self._inlinks.get(path, ()))

    def inlink_count(self, path: str) -> int:
        return len(self._inlinks.get(path, ()))

    def links_with_status(self, status: LinkStatus) -> list[ResolvedLink]:
        return [
            item
            for source in sorted(self._outlinks)
            for item in self._outlinks[source]
            if item.resolution.status is status
        ]

    def counts(self) -> dict[str, int]:
        statuses = self._statuses
        return {
            "links": sum(statuses.values()),
            "unresolved": statuses[LinkStatus.UNRESOLVED] + statuses[LinkStatus.OUTSIDE],
            "ambiguous": statuses[LinkStatus.AMBIGUOUS],
        }
