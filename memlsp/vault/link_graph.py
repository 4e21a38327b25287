"""The link graph: outlinks, inlinks, unresolved and ambiguous links, kept current note by note.

Updating a note re-resolves its own links, plus the links elsewhere whose resolution can depend on a
name the update added or removed (its file name or an alias). A content edit that keeps the names
touches nothing but the note itself, so a hub with thousands of inlinks is cheap to edit.

A graph is written by one writer and then frozen: `edited()` gives the writer the next revision's
graph, which shares everything with the frozen one until it changes it (vault/shared.py). Readers
hold a frozen graph, which nothing changes again.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from memlsp.model import LinkKind, LinkStatus, Note, Resolution, ResolvedLink
from memlsp.vault.names import NameTable, name_key
from memlsp.vault.resolve import lookup_keys, resolve
from memlsp.vault.shared import Members, SharedMap


class LinkGraph:
    def __init__(self) -> None:
        self.table = NameTable()
        self.notes: dict[str, Note] = {}
        self._outlinks: dict[str, tuple[ResolvedLink, ...]] = {}
        # target -> source -> the source's links that reach the target, in the source's order
        self._inlinks: SharedMap[str, dict[str, tuple[ResolvedLink, ...]]] = SharedMap()
        self._dependents = Members()  # name key -> sources
        # links per status, kept as links come and go: a summary after each edit needs no walk
        self._statuses: Counter[LinkStatus] = Counter()
        self.frozen = False

    def __setstate__(self, state: dict[str, object]) -> None:
        """A graph saved by an earlier version kept a set of sources per name key."""
        dependents = state["_dependents"]
        if isinstance(dependents, SharedMap) and not isinstance(dependents, Members):
            members = Members()
            for key, sources in dependents.items():
                members.put(key, sorted(sources))
            state["_dependents"] = members
        self.__dict__.update(state)

    # -- revisions -----------------------------------------------------------------------

    def freeze(self) -> LinkGraph:
        """No change from now on: this graph can be handed to readers."""
        self.frozen = True
        return self

    def edited(self) -> LinkGraph:
        """A writable copy, O(notes) in outer dicts only: it copies an inner set or dict on its
        first change to it, so this graph (frozen from now on) stays as it is."""
        self.frozen = True
        twin = LinkGraph.__new__(LinkGraph)
        twin.table = self.table.copy()
        twin.notes = dict(self.notes)
        twin._outlinks = dict(self._outlinks)
        twin._inlinks = self._inlinks.copy()
        twin._dependents = self._dependents.copy()
        twin._statuses = Counter(self._statuses)
        twin.frozen = False
        return twin

    def _writing(self) -> None:
        if self.frozen:
            raise RuntimeError("a frozen link graph is read by requests: change an edited() copy")

    # -- updates -------------------------------------------------------------------------

    def load(self, notes: Iterable[Note], files: Iterable[str] = ()) -> None:
        """Bulk start: register every name first, then resolve every note once."""
        self._writing()
        for note in notes:
            self.notes[note.path] = note
            self.table.add(note.path, note.aliases)
        for path in files:
            self.table.add(path)
        # Many links share a target: resolve each (kind, target, folder) once. Resolution depends
        # on the source only through its folder (relative paths, the same-folder tie-break).
        memo: dict[tuple[LinkKind, str, str], Resolution] = {}
        # A hub's name has thousands of sources: gathered in lists, stored once.
        gathered: dict[str, list[str]] = {}
        for path in self.notes:
            self._relink(path, memo, gathered)
        for key, sources in gathered.items():
            self._dependents.put(key, dict.fromkeys((*(self._dependents.get(key) or ()), *sources)))

    def upsert(self, note: Note) -> None:
        self._writing()
        old = self.notes.get(note.path)
        self.notes[note.path] = note
        if old is not None and old.aliases == note.aliases:
            self._relink(note.path)  # the same names: only its own links can change
            return
        old_names = self.table.names_of(note.path, old.aliases) if old else set()
        if old is not None:
            self.table.remove(note.path)
        self.table.add(note.path, note.aliases)
        changed = old_names ^ self.table.names_of(note.path, note.aliases)
        self._relink_dependents(changed, also=note.path)

    def remove(self, path: str) -> None:
        self._writing()
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
        self._writing()
        if not self.table.exists(path):
            self.table.add(path)
            self._relink_dependents(self.table.names_of(path))

    def _relink_dependents(self, keys: set[str], also: str | None = None) -> None:
        sources = self.sources_looking_up(keys)
        if also is not None:
            sources.add(also)
        for source in sorted(sources):
            if source in self.notes:
                self._relink(source)

    def _unlink(self, source: str) -> None:
        for resolved in self._outlinks.get(source, ()):
            self._statuses[resolved.resolution.status] -= 1
            for target in resolved.resolution.targets:
                if target in self._inlinks:
                    self._inlinks.writable(target, dict).pop(source, None)  # all links at once
                    self._inlinks.drop_if_empty(target)
            for key in lookup_keys(resolved.link):
                self._dependents.discard(key, source)

    def _relink(
        self,
        source: str,
        memo: dict[tuple[LinkKind, str, str], Resolution] | None = None,
        gathered: dict[str, list[str]] | None = None,
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
        self._attach(source, resolved, gathered)

    def _attach(
        self, source: str, resolved: list[ResolvedLink], gathered: dict[str, list[str]] | None
    ) -> None:
        self._outlinks[source] = tuple(resolved)
        reaching: dict[str, list[ResolvedLink]] = {}
        for item in resolved:
            self._statuses[item.resolution.status] += 1
            for target in item.resolution.targets:
                reaching.setdefault(target, []).append(item)
            for key in lookup_keys(item.link):
                if gathered is None:
                    self._dependents.add(key, source)
                    continue
                sources = gathered.setdefault(key, [])
                if not sources or sources[-1] != source:
                    sources.append(source)
        for target, items in reaching.items():
            self._inlinks.writable(target, dict)[source] = tuple(items)

    def changed_since(self, older: LinkGraph) -> tuple[set[str], set[str]]:
        """The notes whose links, and the files whose inlinks, are not `older`'s, a revision this
        one was edited from: compared by identity, as an edit replaces what it changes."""
        sources = {p for p, links in self._outlinks.items() if older._outlinks.get(p) is not links}
        sources.update(older._outlinks.keys() - self._outlinks.keys())
        targets = {t for t, inner in self._inlinks.items() if older._inlinks.get(t) is not inner}
        targets.update(older._inlinks.keys() - self._inlinks.keys())
        return sources, targets

    # -- queries -------------------------------------------------------------------------

    def paths_named(self, key: str) -> list[str]:
        """The notes whose file name or title has the name key `key` (`name_key`)."""
        return [
            path
            for path, note in self.notes.items()
            if name_key(note.stem) == key or name_key(note.title) == key
        ]

    def outlinks(self, path: str) -> tuple[ResolvedLink, ...]:
        return self._outlinks.get(path, ())

    def inlinks(self, path: str) -> list[ResolvedLink]:
        """Every link in another note (or this one) that resolves to `path`, by source then line."""
        sources = self._inlinks.get(path) or {}
        return [item for source in sorted(sources) for item in sources[source]]

    def inlinks_by_source(self, path: str) -> Mapping[str, Sequence[ResolvedLink]]:
        """`inlinks` as the graph keeps them: each source's links to `path`, sources unordered
        (a hub's thousands are not sorted or copied for a caller that takes a few)."""
        return MappingProxyType(self._inlinks.get(path) or {})

    def inlink_sources(self, path: str) -> list[str]:
        return sorted(self._inlinks.get(path) or ())

    def sources_looking_up(self, keys: Iterable[str]) -> set[str]:
        """The notes with a link whose resolution can change when one of these name keys comes
        or goes (see `NameTable.names_of`)."""
        return {source for key in keys for source in self._dependents.get(key) or ()}

    def inlink_count(self, path: str) -> int:
        return len(self._inlinks.get(path) or ())

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
