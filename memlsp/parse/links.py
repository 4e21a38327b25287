"""Find links, tags and block ids on one masked line (see `mask.py`).

Every pattern here runs in time linear in the line: no two ways of matching the same text, or
possessive quantifiers where a pattern would otherwise try them all, and a line is copied once per
call, never once per link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from memlsp.model import Link, LinkKind, Span, Tag

_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]++)\]\]")
# `[label](destination "title")`. The label holds plain text and `[nested]` brackets; the
# destination is `<...>` or text with balanced `(...)`. Possessive parts cannot give text back: no
# shorter label or destination could be followed by `](` or the closing `)`. The `(?=\s)`
# alternative is the one the greedy form reached by backtracking: an empty destination before a
# title, e.g. `[x]( "a b")`; it is consumed as a match and then ignored.
_MD_LINK = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*+\])*+)\]\("
    r"(?:\s*+(<[^<>\n]*+>|[^\s()<>]*+(?:\([^\s()]*+\)[^\s()<>]*+)*+)|(?=\s))"
    r"(?:\s++(?:\"[^\"\n]*+\"|'[^'\n]*+'))?+\s*+\)"
)
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
# What a tag's `#` may follow (or start the line): a tag is a word of its own. Chinese text has
# no spaces, so its punctuation counts too (`。#待办`).
TAG_MAY_FOLLOW = r"\s(\[,;，。、；：！？（【「『《〈“‘…—"
_TAG = re.compile(rf"(?<![^{TAG_MAY_FOLLOW}])#([\w\-/]+)")
_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9\-]+)\s*$")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


class LineColumns:
    """`Span`s on one line, their UTF-16 and UTF-8 columns counted by walking the line once.

    `Span.on_line` encodes the line up to each span; asked for spans in increasing order this
    carries on from the previous one, so a line with many links is not encoded once per link.
    """

    def __init__(self, text: str, line: int) -> None:
        self._text = text
        self._line = line
        self._ascii_end = -1  # where the first non-ASCII character is; found when first asked
        self._at = (0, 0, 0)  # (code points, UTF-16 units, UTF-8 bytes) of the walked prefix

    def span(self, start: int, end: int) -> Span:
        if self._ascii_end < 0:
            first = None if self._text.isascii() else _NON_ASCII.search(self._text)
            self._ascii_end = first.start() if first else len(self._text)
        if end <= self._ascii_end:  # all ASCII up to `end`: the units equal the code points
            return Span(self._line, start, end)
        start16, start8 = self._advance(start)
        inside = self._text[start:end]
        end16 = start16 + len(inside.encode("utf-16-le")) // 2
        return Span(self._line, start, end, (start16, end16, start8, start8 + len(inside.encode())))

    def _advance(self, column: int) -> tuple[int, int]:
        at, units16, units8 = self._at
        if column < at:  # asked out of order: walk again from the line start
            at, units16, units8 = 0, 0, 0
        walked = self._text[at:column]
        units16 += len(walked.encode("utf-16-le")) // 2
        units8 += len(walked.encode())
        self._at = (column, units16, units8)
        return units16, units8


def _split_anchor(text: str) -> tuple[str, tuple[str, ...], str | None]:
    """`note#A#B` -> ("note", ("A", "B"), None); `note#^id` -> ("note", (), "id")."""
    target, _, anchor = text.partition("#")
    if not anchor:
        return target.strip(), (), None
    if anchor.startswith("^"):
        return target.strip(), (), anchor[1:].strip() or None
    parts = tuple(part.strip() for part in anchor.split("#") if part.strip())
    return target.strip(), parts, None


def find_links(
    masked: str, line_no: int, original: str | None = None, limit: int | None = None
) -> tuple[list[Link], str]:
    """Links on a line in column order (the first `limit` of them), and the line with every
    link's span blanked (so no tag is found inside one)."""
    if "[" not in masked:  # most lines: skip both regexes
        return [], masked
    keep = len(masked) if limit is None else limit
    wiki: list[re.Match[str]] = []
    markdown: list[re.Match[str]] = []

    def blank_wiki(match: re.Match[str]) -> str:
        if len(wiki) < keep:
            wiki.append(match)
        return " " * (match.end() - match.start())

    def blank_markdown(match: re.Match[str]) -> str:
        if not _destination(match):
            return match.group()  # not a link: a `#tag` in its label is still a tag
        if len(markdown) < keep:
            markdown.append(match)
        return " " * (match.end() - match.start())

    # Wikilinks first: a markdown link is looked for only outside them.
    without_links = _WIKILINK.sub(blank_wiki, masked) if "[[" in masked else masked
    if "](" in without_links:
        without_links = _MD_LINK.sub(blank_markdown, without_links)
    if not wiki and not markdown:
        return [], without_links
    found = sorted(wiki + markdown, key=lambda match: match.start())[:keep]
    columns = LineColumns(original or masked, line_no)
    return [_link(match, columns) for match in found], without_links


def _destination(match: re.Match[str]) -> str:
    """A markdown link's destination; "" for one that is not a note or file (`http:`, none)."""
    destination = match.group(3) or ""
    if destination.startswith("<"):
        destination = destination[1:-1]
    if destination[:5].lower() == "file:":
        return destination  # a path on this machine: never a note, reported as outside the vault
    return "" if _URL_SCHEME.match(destination) else destination


def _link(match: re.Match[str], columns: LineColumns) -> Link:
    span = columns.span(match.start(), match.end())
    embed = bool(match.group(1))
    if match.re is _WIKILINK:
        inner = match.group(2).replace("\\|", "|")  # Obsidian escapes the pipe inside tables
        target_part, bar, label = inner.partition("|")
        target, headings, block = _split_anchor(target_part)
        return Link(
            LinkKind.WIKI, target, headings, block, label.strip() if bar else None, embed, span
        )
    target, headings, block = _split_anchor(_destination(match))
    return Link(
        kind=LinkKind.MARKDOWN,
        target=unquote(target),
        headings=tuple(unquote(heading) for heading in headings),
        block=block,
        label=match.group(2),
        embed=embed,
        span=span,
    )


def find_tags(
    masked: str, line_no: int, original: str | None = None, limit: int | None = None
) -> list[Tag]:
    """Inline `#tags` on a line, the first `limit` of them."""
    if "#" not in masked or limit == 0:
        return []
    tags: list[Tag] = []
    columns = LineColumns(original or masked, line_no)
    for match in _TAG.finditer(masked):
        name = match.group(1).strip("/")
        if not name or name.replace("/", "").replace("-", "").replace("_", "").isdigit():
            continue  # Obsidian: a tag needs at least one non-numeric character
        tags.append(Tag(name, columns.span(match.start(), match.end())))
        if limit is not None and len(tags) >= limit:
            break
    return tags


def find_block_id(masked: str) -> str | None:
    if "^" not in masked:
        return None
    match = _BLOCK_ID.search(masked)
    return match.group(1) if match else None


@dataclass(frozen=True, slots=True)
class LinkParts:
    """Where a link's written parts sit on its line, as code-point columns (start, end): the
    target (empty at the anchor for `[[#A]]`), and the anchor after `#` (`^id` for a block)."""

    target: tuple[int, int]
    anchor: tuple[int, int] | None


def link_parts(line: str, link: Link) -> LinkParts | None:
    """The parts of `link` on `line`, its line's text now; None when the text there is no longer
    that link (the line changed since it was parsed)."""
    start = link.span.start
    if link.kind is LinkKind.WIKI:
        match = _WIKILINK.match(line, start)
        if match is None or match.end() != link.span.end:
            return None
        begin, stop = match.span(2)
        pipe = line.find("|", begin, stop)
        if pipe > begin and line[pipe - 1] == "\\":
            pipe -= 1  # `\|` in a table: the backslash belongs to the pipe
        stop = pipe if pipe >= 0 else stop
    else:
        match = _MD_LINK.match(line, start)
        if match is None or match.end() != link.span.end or match.group(3) is None:
            return None
        begin, stop = match.span(3)
        if line[begin : begin + 1] == "<":
            begin, stop = begin + 1, stop - 1
    hash_at = line.find("#", begin, stop)
    target_end = hash_at if hash_at >= 0 else stop
    anchor = (hash_at + 1, stop) if hash_at >= 0 else None
    return LinkParts(_strip(line, begin, target_end), anchor and _strip(line, *anchor))


def _strip(line: str, start: int, end: int) -> tuple[int, int]:
    """The columns without the spaces around the text (`[[ note ]]` names `note`)."""
    text = line[start:end]
    lead = len(text) - len(text.lstrip())
    return (start + lead, max(start + lead, end - (len(text) - len(text.rstrip()))))
