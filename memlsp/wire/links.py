"""The JSON of a note's links: `memlsp/links` (each link's range, for an editor) and
`memlsp links --json` (its line and column, for a person)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from memlsp.engine.snapshot import NoteLinks
from memlsp.model import ResolvedLink
from memlsp.wire.common import RangeJson, range_json


class LinkJson(TypedDict):
    """A link and where it goes."""

    source: str  # the linking note
    target: str  # as written ("" for a link inside the note)
    anchor: str  # heading path or ^block, "" for none
    kind: str  # "wiki" or "markdown"
    embed: bool
    status: str  # "resolved", "ambiguous", "unresolved" or "outside"
    targets: list[str]
    candidates: list[str]


class VaultLinkJson(LinkJson):
    """A link of `memlsp/links`: where it is written, for an editor."""

    uri: str  # the linking note
    range: RangeJson


class LinksAnswerJson(TypedDict):
    """`memlsp/links`: every link out of a note and into it."""

    uri: str
    path: str
    outlinks: list[VaultLinkJson]
    inlinks: list[VaultLinkJson]
    unresolved: list[VaultLinkJson]
    ambiguous: list[VaultLinkJson]


class LinkLineJson(LinkJson):
    """A link of `memlsp links --json`: where it is written, for a person."""

    line: int  # 1-based
    column: int  # 1-based, in code points


class LinksJson(TypedDict):
    """`memlsp links --json`."""

    path: str
    outlinks: list[LinkLineJson]
    inlinks: list[LinkLineJson]
    unresolved: list[LinkLineJson]
    ambiguous: list[LinkLineJson]


def link_json(item: ResolvedLink) -> LinkJson:
    link = item.link
    return {
        "source": item.source,
        "target": link.target,
        "anchor": link.anchor,
        "kind": link.kind.value,
        "embed": link.embed,
        "status": item.resolution.status.value,
        "targets": list(item.resolution.targets),
        "candidates": list(item.resolution.candidates),
    }


def vault_link_json(item: ResolvedLink, source_uri: str, encoding: str) -> VaultLinkJson:
    return {**link_json(item), "uri": source_uri, "range": range_json(item.link.span, encoding)}


def links_answer_json(
    uri: str, links: NoteLinks, note_uri: Callable[[str], str], encoding: str
) -> LinksAnswerJson:
    def one(item: ResolvedLink) -> VaultLinkJson:
        return vault_link_json(item, note_uri(item.source), encoding)

    return {
        "uri": uri,
        "path": links.path,
        "outlinks": [one(item) for item in links.outlinks],
        "inlinks": [one(item) for item in links.inlinks],
        "unresolved": [one(item) for item in links.unresolved],
        "ambiguous": [one(item) for item in links.ambiguous],
    }


def link_line_json(item: ResolvedLink) -> LinkLineJson:
    span = item.link.span
    return {**link_json(item), "line": span.line + 1, "column": span.start + 1}


def links_json(links: NoteLinks) -> LinksJson:
    return {
        "path": links.path,
        "outlinks": [link_line_json(item) for item in links.outlinks],
        "inlinks": [link_line_json(item) for item in links.inlinks],
        "unresolved": [link_line_json(item) for item in links.unresolved],
        "ambiguous": [link_line_json(item) for item in links.ambiguous],
    }
