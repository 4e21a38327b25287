"""Which notes a search may answer with: its `paths` (folders, note paths, globs), its `tags` and
its property filters (`where`, search/where.py).

Pure: a scope is read from a request and tested against notes. Both sides of a search take their
candidates among the notes in scope (the keyword side inside tantivy, the vector side inside Chroma
for a small scope, else by filtering its nearest chunks: search/hybrid.py `vector_ask`); the notes
linked to a result are context and stay whatever their place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from memlsp.model import Link, LinkKind, Note, SearchRequest, Span, quoted
from memlsp.search.where import Condition, Resolver, conditions_of, holds
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.resolve import resolve

_GLOB_CHARACTERS = frozenset("*?")
_DRIVE = re.compile(r"[A-Za-z]:/")
WHOLE_VAULT = "."


def scope_path(entry: str) -> str:
    """A `paths` entry as a vault-relative path: forward slashes, no `./` before it, no `/` after
    it, empty and `.` parts dropped ("." and "./" are the whole vault, "."). Raises ValueError for an
    absolute path, one with a `..` part, or an empty entry."""
    if not entry.strip():
        raise ValueError("'paths' has an empty entry: give a folder, a note path or a glob")
    path = entry.replace("\\", "/")
    if path.startswith("/") or _DRIVE.match(path):
        raise ValueError(f"'paths' entries are vault-relative: {quoted(entry)} is an absolute path")
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ValueError(f"'paths' entries are vault-relative: {quoted(entry)} leaves the vault")
    return "/".join(parts) or WHOLE_VAULT


def scope_tag(entry: str) -> str:
    """A `tags` entry as it is compared: no `#` before it, no `/` around it, lower case. Raises
    ValueError for an entry with no tag in it."""
    tag = entry.strip().lstrip("#").strip("/").lower()
    if not tag:
        raise ValueError(
            f"'tags' entries name a tag, like 'project' or '#project', not {quoted(entry)}"
        )
    return tag


def _glob_pattern(glob: str) -> re.Pattern[str]:
    """`*` and `?` within one name, `**` across folders (`a/**/b.md` takes `a/b.md` too)."""
    pieces = []
    at = 0
    while at < len(glob):
        if glob.startswith("**/", at):
            pieces.append("(?:.*/)?")
            at += 3
        elif glob.startswith("**", at):
            pieces.append(".*")
            at += 2
        elif glob[at] == "*":
            pieces.append("[^/]*")
            at += 1
        elif glob[at] == "?":
            pieces.append("[^/]")
            at += 1
        else:
            pieces.append(re.escape(glob[at]))
            at += 1
    return re.compile("".join(pieces), re.DOTALL)


@dataclass(frozen=True, slots=True)
class NoteScope:
    """A request's `paths`, `tags` and `where`, normalised. A note is in scope when it passes
    every part that is given: any of the paths, any of the tags, and all of the filters."""

    paths: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    # The paths holding `*` or `?`, compiled once (`from_entries` makes them).
    globs: tuple[re.Pattern[str], ...] = field(default=(), compare=False, repr=False)
    where: tuple[Condition, ...] = ()

    @classmethod
    def of(cls, request: SearchRequest) -> NoteScope:
        return cls.from_entries(request.paths, request.tags, request.where)

    @classmethod
    def from_entries(
        cls, paths: Iterable[str], tags: Iterable[str], where: object = None
    ) -> NoteScope:
        """Raises ValueError for an entry that is not vault-relative or names no tag, or a filter
        that is not one (`where`: as `where.conditions_of` takes it)."""
        normal = tuple(dict.fromkeys(scope_path(entry) for entry in paths))
        globs = tuple(_glob_pattern(path) for path in normal if _GLOB_CHARACTERS.intersection(path))
        tags = tuple(dict.fromkeys(scope_tag(entry) for entry in tags))
        return cls(normal, tags, globs, conditions_of(where))

    @property
    def everything(self) -> bool:
        """No paths, no tags and no filters: every note is in scope."""
        return not self.paths and not self.tags and not self.where

    def first_failed(self, note: Note, graph: LinkGraph) -> Condition | None:
        """The first property filter the note does not hold; None when it holds them all."""
        resolver = link_resolver(graph)
        kept = dict(note.properties)
        failed = (c for c in self.where if not holds(c, kept.get(c.key), note.path, resolver))
        return next(failed, None)

    def admits_path(self, path: str) -> bool:
        if not self.paths:
            return True
        for entry in self.paths:
            # a name with a literal `*` or `?` in it still equals itself
            if entry == WHOLE_VAULT or path == entry or path.startswith(entry + "/"):
                return True
        return any(glob.fullmatch(path) for glob in self.globs)

    def admits_tags(self, note: Note) -> bool:
        """A note's tag counts for its parents too (`project/memlsp` is a `project`), as
        Obsidian's tag search has it; case does not matter."""
        if not self.tags:
            return True
        for tag in note.tags:
            name = tag.name.lstrip("#").lower()
            for wanted in self.tags:
                if name == wanted or name.startswith(wanted + "/"):
                    return True
        return False


def allowed_notes(
    graph: LinkGraph, request: SearchRequest, properties: Callable[[], PropertyIndex] | None = None
) -> frozenset[str] | None:
    """The notes a search may answer with; None when its scope is the whole vault."""
    return notes_in(graph, NoteScope.of(request), properties)


def notes_in(
    graph: LinkGraph, scope: NoteScope, properties: Callable[[], PropertyIndex] | None = None
) -> frozenset[str] | None:
    """The notes in `scope`; None when it is the whole vault. `properties`: gives the graph's
    (`PropertyIndex.of(graph)`, which a snapshot keeps), asked for only by a property filter:
    building it reads every note, which a search without one must not wait for after each edit."""
    if scope.everything:
        return None
    notes: Iterable[str] = graph.notes
    if scope.where:
        index = properties() if properties is not None else PropertyIndex.of(graph)
        notes = index.holding(scope.where, link_resolver(graph))
    if not scope.paths and not scope.tags:
        return frozenset(notes)
    return frozenset(
        path for path in notes if scope.admits_path(path) and scope.admits_tags(graph.notes[path])
    )


@dataclass(frozen=True, slots=True)
class PropertyIndex:
    """Each property's notes and their values: a filter reads only the notes that have its key
    (and, for `!=`, counts every other note in). Built once per revision (Snapshot.memo)."""

    notes: frozenset[str]
    by_key: Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]]  # key -> (path, values)

    @classmethod
    def of(cls, graph: LinkGraph) -> PropertyIndex:
        by_key: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        for path, note in graph.notes.items():
            for key, values in note.properties:
                by_key.setdefault(key, []).append((path, values))
        return cls(frozenset(graph.notes), {key: tuple(pairs) for key, pairs in by_key.items()})

    def holding(self, conditions: Iterable[Condition], resolve: Resolver) -> set[str]:
        """The notes that hold every condition."""
        found: set[str] | None = None
        for condition in conditions:
            having = self.by_key.get(condition.key, ())
            these = {path for path, values in having if holds(condition, values, path, resolve)}
            if holds(condition, None, "", resolve):  # as every note without the property does
                these |= self.notes.difference(path for path, _ in having)
            found = these if found is None else found & these
            if not found:
                break
        return set(self.notes) if found is None else found


_NOWHERE = Span(0, 0, 0)


def link_resolver(graph: LinkGraph) -> Resolver:
    """Where a link written in a note's frontmatter leads, by the vault's rules
    (vault/resolve.py): the first note it resolves to, None for none."""

    def resolved(target: str, source: str) -> str | None:
        link = Link(LinkKind.WIKI, target, (), None, None, False, _NOWHERE)
        return next(iter(resolve(link, source, graph.table).targets), None)

    return resolved
