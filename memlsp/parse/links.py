"""Find links, tags and block ids on one masked line (see `mask.py`)."""

from __future__ import annotations

import re
from urllib.parse import unquote

from memlsp.model import Link, LinkKind, Span, Tag

_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_MD_LINK = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
    r"\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_TAG = re.compile(r"(?<![^\s(\[,;])#([\w\-/]+)")
_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9\-]+)\s*$")


def _split_anchor(text: str) -> tuple[str, tuple[str, ...], str | None]:
    """`note#A#B` -> ("note", ("A", "B"), None); `note#^id` -> ("note", (), "id")."""
    target, _, anchor = text.partition("#")
    if not anchor:
        return target.strip(), (), None
    if anchor.startswith("^"):
        return target.strip(), (), anchor[1:].strip() or None
    parts = tuple(part.strip() for part in anchor.split("#") if part.strip())
    return target.strip(), parts, None


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def find_links(masked: str, line_no: int, original: str | None = None) -> tuple[list[Link], str]:
    """Links on a line, and the line with their spans blanked (so no tag is found inside them)."""
    if "[" not in masked:  # most lines: skip both regexes
        return [], masked
    links: list[Link] = []
    for match in _WIKILINK.finditer(masked):
        inner = match.group(2)
        inner = inner.replace("\\|", "|")  # Obsidian escapes the pipe inside tables
        target_part, bar, label = inner.partition("|")
        target, headings, block = _split_anchor(target_part)
        links.append(
            Link(
                kind=LinkKind.WIKI,
                target=target,
                headings=headings,
                block=block,
                label=label.strip() if bar else None,
                embed=bool(match.group(1)),
                span=Span.on_line(original or masked, line_no, match.start(), match.end()),
            )
        )
    for link in links:
        masked = _blank(masked, link.span.start, link.span.end)
    md_links: list[Link] = []
    for match in _MD_LINK.finditer(masked):
        destination = match.group(3)
        if destination.startswith("<"):
            destination = destination[1:-1]
        if not destination or _URL_SCHEME.match(destination):
            continue
        target, headings, block = _split_anchor(destination)
        md_links.append(
            Link(
                kind=LinkKind.MARKDOWN,
                target=unquote(target),
                headings=tuple(unquote(heading) for heading in headings),
                block=block,
                label=match.group(2),
                embed=bool(match.group(1)),
                span=Span.on_line(original or masked, line_no, match.start(), match.end()),
            )
        )
    for link in md_links:
        masked = _blank(masked, link.span.start, link.span.end)
    return links + md_links, masked


def find_tags(masked: str, line_no: int, original: str | None = None) -> list[Tag]:
    if "#" not in masked:
        return []
    tags = []
    for match in _TAG.finditer(masked):
        name = match.group(1).strip("/")
        if not name or name.replace("/", "").replace("-", "").replace("_", "").isdigit():
            continue  # Obsidian: a tag needs at least one non-numeric character
        tags.append(
            Tag(name, Span.on_line(original or masked, line_no, match.start(), match.end()))
        )
    return tags


def find_block_id(masked: str) -> str | None:
    if "^" not in masked:
        return None
    match = _BLOCK_ID.search(masked)
    return match.group(1) if match else None
