"""Obsidian's rules for where a link goes (docs/links.md, "Resolution"). Pure: writes nothing.

Wikilink target, in order:
1. the exact vault-relative path, with or without `.md` (then the same path case-insensitively);
2. the file name, case-insensitive and NFC-normalised; several candidates are narrowed by the
   longest matching path suffix, then the linking note's folder, then the shortest path, then
   alphabetical order. More than one candidate after the suffix step makes the link *ambiguous*:
   it still follows exactly one note, and the others are reported;
3. frontmatter aliases: notes sharing an alias are all targets.
Markdown links resolve relative to the linking note (`/` = vault root), then fall back to the name.
Anything that climbs out of the vault, or is a `file:` address, is `OUTSIDE` and never resolves.
"""

from __future__ import annotations

import posixpath
from collections.abc import Set as AbstractSet
from functools import lru_cache

from memlsp.model import Link, LinkKind, LinkStatus, Resolution
from memlsp.vault.names import NameTable, basename, is_note_path, name_key, strip_note_suffix

UNRESOLVED = Resolution(LinkStatus.UNRESOLVED)
OUTSIDE = Resolution(LinkStatus.OUTSIDE)


def lookup_keys(link: Link) -> frozenset[str]:
    """The name keys whose arrival or departure can change where `link` resolves."""
    return _target_keys(link.target)


def target_lookup_keys(written: str) -> frozenset[str]:
    """`lookup_keys` of any link whose target is written so."""
    return _target_keys(written)


@lru_cache(maxsize=65536)
def _target_keys(written: str) -> frozenset[str]:
    if not written:
        return frozenset()
    target = written.replace("\\", "/").rstrip("/")
    name = basename(target)
    return frozenset(
        {name_key(name), name_key(strip_note_suffix(name)), "alias:" + name_key(written.strip())}
    )


def resolve(link: Link, source: str, table: NameTable) -> Resolution:
    """Where `link`, written in `source`, goes. Equal answers are one object: a vault holds a
    few resolutions per note but several links per note, most to the same few targets."""
    if len(_SHARED) > SHARED_MAX:
        _SHARED.clear()
    resolution = _resolve(link, source, table)
    return _SHARED.setdefault(resolution, resolution)


# Read and written by whoever resolves (the writer, a request looking at a link being typed):
# `setdefault` is atomic, and a value it hands out is immutable. Emptied when it grows past any
# vault's worth, so what the vault no longer links to goes with it.
_SHARED: dict[Resolution, Resolution] = {}
SHARED_MAX = 1 << 18


def _resolve(link: Link, source: str, table: NameTable) -> Resolution:
    if not link.target:
        return Resolution(LinkStatus.RESOLVED, (source,))
    target = link.target.replace("\\", "/").strip()
    if target[:5].lower() == "file:":
        return OUTSIDE
    if link.kind is LinkKind.MARKDOWN or target.startswith(("./", "../")):
        relative = _relative_path(target, source)
        if relative is None:
            return OUTSIDE
        found = _by_path(relative, table)
        if found:
            return Resolution(LinkStatus.RESOLVED, (found,))
        if link.kind is LinkKind.MARKDOWN:
            return _by_name(basename(relative), (), source, table) or UNRESOLVED
        target = relative
    target = target.lstrip("/")
    found = _by_path(target, table)
    if found:
        return Resolution(LinkStatus.RESOLVED, (found,))
    folders = tuple(part for part in target.split("/")[:-1] if part)
    by_name = _by_name(basename(target), folders, source, table)
    if by_name:
        return by_name
    aliased = sorted(table.by_alias(link.target.strip()))
    if aliased:
        return Resolution(LinkStatus.RESOLVED, tuple(aliased))
    return UNRESOLVED


def by_relative_path(link: Link, source: str, table: NameTable) -> str | None:
    """The file a Markdown link's destination names as a path from `source`, without falling
    back to the name (what a Markdown viewer other than Obsidian opens)."""
    relative = _relative_path(link.target.replace("\\", "/").strip(), source)
    return None if relative is None else _by_path(relative, table)


def _relative_path(target: str, source: str) -> str | None:
    """`target` relative to the source note's folder (the vault root for `/x`); None if outside."""
    base = "" if target.startswith("/") else posixpath.dirname(source)
    joined = posixpath.normpath(posixpath.join(base, target.lstrip("/")))
    if joined == ".." or joined.startswith("../") or joined.startswith("/"):
        return None
    return "" if joined == "." else joined


def _by_path(target: str, table: NameTable) -> str | None:
    candidates = [target] if is_note_path(target) else [target + ".md", target]
    for candidate in candidates:
        if table.exists(candidate):
            return candidate
    for candidate in candidates:
        folded = sorted(table.by_folded_path(candidate))
        if folded:
            return folded[0]
    return None


def _by_name(
    name: str, folders: tuple[str, ...], source: str, table: NameTable
) -> Resolution | None:
    matches: AbstractSet[str] = frozenset()
    if is_note_path(name):
        matches = table.by_name(strip_note_suffix(name))
    if not matches:
        matches = table.by_name(name)
    if not matches:
        return None
    if folders:
        matches = _longest_suffix(matches, folders)
        if not matches:
            return None
    if len(matches) == 1:
        return Resolution(LinkStatus.RESOLVED, (next(iter(matches)),))
    source_folder = posixpath.dirname(source)
    ranked = sorted(
        matches,
        key=lambda path: (posixpath.dirname(path) != source_folder, len(path), path),
    )
    return Resolution(LinkStatus.AMBIGUOUS, (ranked[0],), tuple(sorted(matches)))


def _longest_suffix(paths: AbstractSet[str], folders: tuple[str, ...]) -> set[str]:
    """Keep the paths whose folders end with all of the link's folders."""
    wanted = [name_key(folder) for folder in reversed(folders)]
    best: set[str] = set()
    for path in paths:
        have = [name_key(folder) for folder in reversed(path.split("/")[:-1])]
        if have[: len(wanted)] == wanted:
            best.add(path)
    return best
