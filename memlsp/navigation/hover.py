"""Hover: a Markdown preview of the link under the cursor, or of the notes carrying a `#tag`."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice

from memlsp.model import LinkStatus, Neighbour, Note, ResolvedLink, Span
from memlsp.navigation.counts import link_counts
from memlsp.navigation.markdown_safe import code_span, escape_text, markdown_link, safe_markdown
from memlsp.navigation.places import FILE_START, Place, anchor_line, link_at, tag_at, target_place
from memlsp.parse.fences import (
    LIST_ITEM,
    ListItems,
    closes_fence,
    fence_opening,
    may_open_block,
)
from memlsp.parse.frontmatter import split_frontmatter
from memlsp.parse.markdown import split_lines, strip_markup
from memlsp.search.expand import inlink_neighbours, outlink_neighbours
from memlsp.text import basename
from memlsp.vault.anchors import find_heading
from memlsp.vault.names import name_key
from memlsp.vault.view import VaultView

UriOf = Callable[[Place], str]

MAX_LINES = 15  # of the previewed section
MAX_NEIGHBOURS = 10  # outlinks, inlinks, or notes of a tag
_BLOCK_ID = re.compile(r"\s\^[A-Za-z0-9-]+\s*$")
_ATX = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")


def hover(view: VaultView, path: str, line: int, column: int, uri_of: UriOf) -> str | None:
    """Markdown for the link or inline tag under the cursor; None anywhere else."""
    resolved = link_at(view, path, line, column)
    if resolved is not None:
        return _link_hover(view, resolved, uri_of)
    tag = tag_at(view, path, line, column)
    if tag is not None:
        return tag_hover(view, tag.name, uri_of)
    return None


# -- links -------------------------------------------------------------------------------------


def _link_hover(view: VaultView, resolved: ResolvedLink, uri_of: UriOf) -> str:
    resolution = resolved.resolution
    written = escape_text(resolved.link.target or resolved.source)
    if resolution.status is LinkStatus.UNRESOLVED:
        return f"**{written}** does not exist yet: no note in the vault has that name."
    if resolution.status is LinkStatus.OUTSIDE:
        return f"**{written}** is outside the vault."
    parts: list[str] = []
    first = resolution.targets[0]
    if resolution.status is LinkStatus.AMBIGUOUS:
        others = [c for c in resolution.candidates if c != first]
        parts.append(
            f"Ambiguous: **{written}** follows {code_span(first)}; also matches "
            + ", ".join(_file_link(other, uri_of) for other in others)
            + "."
        )
    elif len(resolution.targets) > 1:
        parts.append(
            f"**{written}** names {len(resolution.targets)} notes: "
            + ", ".join(_file_link(target, uri_of) for target in resolution.targets)
            + f". Showing {code_span(first)}."
        )
    parts += _preview(view, resolved, first, uri_of)
    parts += _neighbour_lists(view, first, uri_of)
    return "\n\n".join(parts)


def _preview(view: VaultView, resolved: ResolvedLink, target: str, uri_of: UriOf) -> list[str]:
    """Title (linked to where the link lands), description, and the linked section's text."""
    note = view.graph.notes.get(target)
    if note is None:  # an attachment: nothing to read as text
        place = Place(target, FILE_START)
        return [
            f"### {markdown_link(basename(target), uri_of(place))}",
            f"Attachment {code_span(target)}",
        ]
    # Where the link lands, found once: the title links there, the excerpt starts there.
    line = anchor_line(note, resolved)
    place = Place(target, Span(line, 0, 0) if line is not None else FILE_START)
    crumbs = " › ".join([note.title, *_heading_path(note, resolved, line)])
    parts = [f"### {markdown_link(crumbs, uri_of(place))}"]
    text = view.read(target)
    links = _clickable_links(view, target, uri_of)
    excerpt = (
        _excerpt(note, resolved, line, split_lines(text), links)
        if text is not None
        else _NO_EXCERPT
    )
    description = " ".join(note.description.split())
    shown = [strip_markup(line) for line in excerpt.plain_lines()]
    # Without a frontmatter description it is the first paragraph, often already in the excerpt.
    flat = " ".join(" ".join(shown).split())
    if description and description not in flat and not _starts_with_paragraph(shown, description):
        parts.append(escape_text(description))
    if resolved.link.anchor and line is None:
        parts.append(f"No {code_span('#' + resolved.link.anchor)} in this note; showing its start.")
    markdown = excerpt.markdown()
    if markdown:
        parts.append("\n".join(markdown))
    return parts


def _heading_path(note: Note, resolved: ResolvedLink, line: int | None) -> list[str]:
    """The linked heading (at `line`, where the link lands) and the headings enclosing it,
    without the note's leading H1 (the title already names the note, and often repeats it)."""
    link = resolved.link
    if not link.headings:
        return []
    if link.block:  # it lands on the block: the heading is looked up on its own
        heading = find_heading(note, link.headings)
    else:
        heading = next((h for h in note.headings if h.line == line), None)
    if heading is None:
        return []
    path = [heading]
    for above in reversed([h for h in note.headings if h.line < heading.line]):
        if above.level < path[0].level:
            path.insert(0, above)
    if len(path) > 1 and path[0].level == 1 and path[0] == note.headings[0]:
        path.pop(0)
    return [strip_markup(h.text) for h in path]


# A link of the excerpt stands in its text as `_OPEN index _CLOSE` while the text is made safe,
# then becomes the server's own link to where it goes. A note's own use of these private
# characters is replaced first, so no note can forge a link (nor would it gain one: each leads to
# a place the server chose).
_OPEN, _CLOSE = "\ue000", "\ue001"
_HOLE = re.compile(f"{_OPEN}(\\d+){_CLOSE}")


@dataclass(frozen=True, slots=True)
class _Clickable:
    start: int
    end: int
    text: str  # what it shows
    markdown: str  # the server's link


LinksByLine = dict[int, list[_Clickable]]


@dataclass(frozen=True)
class _Excerpt:
    lines: tuple[str, ...]  # as the note has them, headings made bold, links made holes
    cut: bool  # at `MAX_LINES`
    links: tuple[_Clickable, ...] = ()  # what each hole becomes

    def plain_lines(self) -> list[str]:
        """The lines with each link as its text."""
        return [_HOLE.sub(lambda m: self.links[int(m.group(1))].text, line) for line in self.lines]

    def markdown(self) -> list[str]:
        """Safe to show, a cut marked, and a math block the cut left open closed."""
        shown = safe_markdown(self.lines)
        while shown and not shown[-1]:
            shown.pop()
        shown = _close_math(shown)
        if self.links:
            shown = [
                _HOLE.sub(lambda m: self.links[int(m.group(1))].markdown, line) for line in shown
            ]
        return [*shown, "…"] if self.cut else shown


_NO_EXCERPT = _Excerpt((), False)


def _clickable_links(view: VaultView, path: str, uri_of: UriOf) -> LinksByLine:
    """The note's links that lead somewhere, as links a client can follow: a wikilink shows its
    label, else what it names; a Markdown link its text."""
    found: LinksByLine = {}
    for item in view.graph.outlinks(path):
        if not item.resolution.targets:
            continue
        link = item.link
        block = "^" + link.block if link.block else ""
        shown = link.label or " › ".join(filter(None, [link.target, *link.headings, block]))
        uri = uri_of(target_place(view, item, item.resolution.targets[0]))
        span = link.span
        clickable = _Clickable(span.start, span.end, shown, markdown_link(shown, uri))
        found.setdefault(span.line, []).append(clickable)
    return found


def _with_holes(text: str, links: list[_Clickable], out: list[_Clickable]) -> str:
    """`text` with each link that is still where the index says replaced by a hole."""
    text = text.replace(_OPEN, "\ufffd").replace(_CLOSE, "\ufffd")
    for link in sorted(links, key=lambda link: link.start, reverse=True):
        written = text[link.start : link.end]
        if written.endswith((")", "]")) and "[" in written[:3]:
            text = f"{text[: link.start]}{_OPEN}{len(out)}{_CLOSE}{text[link.end :]}"
            out.append(link)
    return text


def _excerpt(
    note: Note,
    resolved: ResolvedLink,
    line: int | None,
    lines: list[str],
    links: LinksByLine | None = None,
) -> _Excerpt:
    """The heading's section, the block's paragraph, or the note's start, as the note has it.

    The note comes from the index and the text from the buffer or disk, which may be a keystroke
    newer: every line number is bounded, and a wrong guess only shifts the preview. `line` is
    where the link lands (`anchor_line`), None for the note's start.
    """
    # A leading H1 is dropped: the title heading above already names the note.
    skip_h1 = line is None
    if line is None:
        start, end = split_frontmatter(lines).body_start, len(lines)
    elif resolved.link.block:
        start, end = _paragraph_start(lines, line), line + 1
    else:
        level = next(h.level for h in note.headings if h.line == line)
        after = (h.line for h in note.headings if h.line > line and h.level <= level)
        start, end = line + 1, next(after, len(lines))
    return _render(note, lines, start, min(end, len(lines)), skip_h1, links or {})


def _paragraph_start(lines: list[str], line: int) -> int:
    """A block id ends a paragraph or a list item: walk up to where that begins."""
    start = min(line, len(lines) - 1)
    while (
        start > 0
        and lines[start - 1].strip()
        and not LIST_ITEM.match(lines[start])
        and not _ATX.match(lines[start - 1])
    ):
        start -= 1
    return max(start, 0)


def _render(
    note: Note, lines: list[str], start: int, end: int, skip_h1: bool, links: LinksByLine
) -> _Excerpt:
    """Headings become bold lines (the hover's own title stays the biggest), setext underlines and
    `^block-id` markers go, blank runs shrink to one, and the result is cut to `MAX_LINES`."""
    headings = {h.line: h for h in note.headings}
    blocks = {b.line for b in note.blocks}
    out: list[str] = []
    made: list[_Clickable] = []  # the links the holes in `out` stand for
    truncated = False
    index = start
    while index < end:
        number, text = index, lines[index]
        index += 1
        heading = headings.get(number)
        if heading is not None:
            if not _ATX.match(text):
                index += 1  # a setext heading: its underline is the next line
            if skip_h1 and heading.level == 1 and not out:
                continue
            text = f"**{escape_text(strip_markup(heading.text))}**"
        else:
            if number in links:
                text = _with_holes(text, links[number], made)
            if number in blocks:
                text = _BLOCK_ID.sub("", text)
        text = text.rstrip()
        if not text and (not out or not out[-1]):
            continue
        if len(out) == MAX_LINES:
            truncated = truncated or bool(text)
            if truncated:
                break
            continue
        out.append(text)
    while out and not out[-1]:
        out.pop()
    return _Excerpt(tuple(out), truncated, tuple(made))


def _close_math(lines: list[str]) -> list[str]:
    """A preview cut inside a math block would swallow the rest of the hover: close it. Its `$$`
    begins a block by the rule a fence does (parse/fences.py), and none inside a fence counts.
    (Code fences are closed by `safe_markdown`, and comments are not shown.)"""
    fence: str | None = None
    math = False
    lists = ListItems()
    for line in lines:
        if fence is not None:
            fence = None if closes_fence(line, fence) else fence
        elif (opening := fence_opening(line, lists.in_list)) is not None:
            fence = opening.marker
        elif line.strip() == "$$" and (math or may_open_block(line, lists.in_list)):
            math = not math
        else:
            lists.read(line)
            continue
        lists.skipped()
    return [*lines, "$$"] if math else lines


# -- neighbours --------------------------------------------------------------------------------


def _neighbour_lists(view: VaultView, path: str, uri_of: UriOf) -> list[str]:
    graph = view.graph
    outs = outlink_neighbours(graph, path)
    counts = link_counts(view, path)
    ins = list(islice(inlink_neighbours(graph, path), MAX_NEIGHBOURS))
    unresolved = f", {counts.unresolved} unresolved" if counts.unresolved else ""
    return [
        _neighbour_list(
            f"outlinks ({len(outs)}{unresolved})", outs[:MAX_NEIGHBOURS], len(outs), uri_of
        ),
        _neighbour_list(f"inlinks ({counts.inlinks})", ins, counts.inlinks, uri_of),
    ]


def _neighbour_list(header: str, shown: list[Neighbour], total: int, uri_of: UriOf) -> str:
    lines = [f"**{header}**", ""] if shown else [f"**{header}**"]
    lines += [_neighbour_item(n, uri_of(Place(n.path, FILE_START))) for n in shown]
    if total > len(shown):
        lines.append(f"- … and {total - len(shown)} more")
    return "\n".join(lines)


def _neighbour_item(neighbour: Neighbour, uri: str) -> str:
    item = f"- {markdown_link(neighbour.name, uri)}"
    if neighbour.anchors:
        item += " " + ", ".join(code_span(f"#{anchor}") for anchor in neighbour.anchors)
    description = escape_text(neighbour.description)
    return f"{item} — {description}" if description else item


# -- tags --------------------------------------------------------------------------------------


def tag_hover(view: VaultView, tag: str, uri_of: UriOf) -> str:
    """How many notes carry `#tag` and the most-linked of them.

    Nested tags count for their parents: a note tagged `#search/ranking` carries `#search`, as in
    Obsidian's tag pane and `tag:` search. Tags compare case-insensitively, as Obsidian does.
    """
    wanted = name_key(tag)
    return _tag_hover(view, tag, wanted, uri_of)


def _tag_hover(view: VaultView, tag: str, wanted: str, uri_of: UriOf) -> str:
    graph = view.graph
    carriers: dict[str, Span] = {}
    matches: dict[str, bool] = {}  # a vault uses few distinct tags: normalise each name once
    for path, note in graph.notes.items():
        for carried in note.tags:
            match = matches.get(carried.name)
            if match is None:
                key = name_key(carried.name)
                match = matches[carried.name] = key == wanted or key.startswith(wanted + "/")
            if match:
                # Jump to the first inline use of the tag; frontmatter tags have no place.
                span = carried.span or FILE_START
                if path not in carriers or carriers[path] == FILE_START:
                    carriers[path] = span
    ranked = sorted(carriers, key=lambda p: (-graph.inlink_count(p), p))
    count = len(carriers)
    header = f"**#{escape_text(tag)}** is on {count} note{'s' if count != 1 else ''}"
    lines = [f"{header} (nested tags {code_span(f'#{tag}/…')} included)", ""]
    lines += [_tag_item(view, path, carriers[path], uri_of) for path in ranked[:MAX_NEIGHBOURS]]
    if count > MAX_NEIGHBOURS:
        lines.append(f"- … and {count - MAX_NEIGHBOURS} more")
    return "\n".join(lines).rstrip()


def _tag_item(view: VaultView, path: str, span: Span, uri_of: UriOf) -> str:
    note = view.graph.notes[path]
    return _neighbour_item(Neighbour(path, note.title, note.description), uri_of(Place(path, span)))


# -- text --------------------------------------------------------------------------------------


def _file_link(path: str, uri_of: UriOf) -> str:
    return markdown_link(path, uri_of(Place(path, FILE_START)))


def _starts_with_paragraph(shown: list[str], description: str) -> bool:
    """The preview's first paragraph is the description (a wrapped one spans several lines)."""
    first: list[str] = []
    for line in shown:
        if first and not line.strip():
            break
        if line.strip():
            first.append(strip_markup(line))
    return bool(first) and description.startswith(" ".join(first)[: len(description) // 2])
