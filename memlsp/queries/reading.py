"""A note, one section of it or a range of its lines, as a reader asks for it (`memlsp read`).

The text is the view's (an editor's open buffer, else the file now), parsed again here, so that the
headings, the links and the line numbers are those of the very text returned, even when the file
changed after it was indexed. Where its links go is the vault's answer of this revision.

Lines are numbered from 1 as an editor and `cat -n` number them; the newline that ends a file does
not start a line of its own, so `"a\\nb\\n"` has two lines and its text is `"a\\nb"`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memlsp.model import Heading, ResolvedLink, quoted
from memlsp.parse.frontmatter import split_frontmatter
from memlsp.parse.markdown import parse_markdown, split_lines
from memlsp.parse.tokens import estimate_tokens
from memlsp.text import text_hash
from memlsp.vault.anchors import heading_path_in
from memlsp.vault.resolve import resolve
from memlsp.vault.view import VaultView

HEADINGS_NAMED = 20  # headings an error lists, so that the reader can pick one


class ReadError(ValueError):
    """What was asked for is not in the note: one sentence saying what is."""


@dataclass(frozen=True, slots=True)
class ReadRequest:
    heading: str | None = None  # `A#B`: heading B inside heading A's section, as links write it
    start_line: int | None = None  # 1-based, inclusive; absolute, also inside a section
    end_line: int | None = None
    budget_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Passage:
    """The lines read of one note, and what a reader needs around them."""

    path: str
    title: str
    heading: Heading | None  # the section's heading, when one was asked for
    start_line: int  # 1-based, inclusive: the lines in `text`
    end_line: int
    line_count: int  # the whole note's
    frontmatter: Mapping[str, Any]  # parsed YAML; empty when none or invalid
    text: str  # the lines joined by "\n"
    links: tuple[ResolvedLink, ...]  # written in these lines, in order
    headings: tuple[Heading, ...]  # all of the note's
    cut: str | None  # which lines the token budget left out, and how to read on
    hash: str  # of the whole text read (text_hash), whatever part of it was asked for


def note_lines(text: str) -> list[str]:
    """The lines of a note's text; the newline ending the last one starts no empty line."""
    lines = split_lines(text)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def read_passage(
    view: VaultView, path: str, request: ReadRequest, *, records: bool = False
) -> Passage:
    """The part of the note at `path` (a note of the view) that `request` names; `records` for a
    file of records, which has no headings, links or frontmatter. `ReadError` says what is not
    there."""
    text = view.read(path)
    if text is None:
        raise ReadError(f"{path} cannot be read now: it was moved or deleted since it was indexed")
    # A file of records is not Markdown: its title is its name, as the index has it.
    note = None if records else parse_markdown(path, text)
    headings = () if note is None else note.headings
    lines = note_lines(text)
    heading = None
    first, last = 1, len(lines)
    if request.heading is not None:
        heading = _heading(path, headings, request.heading)
        first, last = section_lines(headings, heading, len(lines))
    start, end = _line_range(request, path, len(lines), heading, first, last)
    cut = None
    if request.budget_tokens is not None:
        kept = _lines_within(lines[start - 1 : end], request.budget_tokens)
        if start + kept - 1 < end:
            cut = (
                f"lines {start + kept}-{end} left out to stay within {request.budget_tokens} "
                f"tokens (budget_tokens); read on with start_line={start + kept}"
            )
            end = start + kept - 1
    table = view.graph.table
    links = tuple(
        ResolvedLink(path, link, resolve(link, path, table))
        for link in (() if note is None else note.links)
        if start - 1 <= link.span.line <= end - 1
    )
    return Passage(
        path=path,
        title=view.graph.notes[path].title if note is None else note.title,
        heading=heading,
        start_line=start,
        end_line=end,
        line_count=len(lines),
        frontmatter={} if note is None else split_frontmatter(lines).meta,
        text="\n".join(lines[start - 1 : end]),
        links=links,
        headings=headings,
        cut=cut,
        hash=text_hash(text),
    )


def section_lines(
    headings: tuple[Heading, ...], heading: Heading, line_count: int
) -> tuple[int, int]:
    """The 1-based lines of a heading's section: its own line up to the next heading of the same
    or a higher level, or the end of the note."""
    after = (h.line for h in headings if h.line > heading.line and h.level <= heading.level)
    return heading.line + 1, min(next(after, line_count), line_count)


def _heading(path: str, headings: tuple[Heading, ...], wanted: str) -> Heading:
    """The heading written exactly as `wanted` (as `headings` in the answer lists it: its text may
    hold markup and `#`, as `[#](https://…#x) Title` does); else the one `wanted` names as a link's
    anchor would (`A#B` nested); failing that, one whose own text holds a `#` (`C# notes`)."""
    written = wanted.strip()
    exact = next((heading for heading in headings if heading.text.strip() == written), None)
    if exact is not None:
        return exact
    parts = tuple(part.strip() for part in written.lstrip("#").split("#"))
    found = heading_path_in(headings, parts) if all(parts) else None
    if found is None and "#" in written:
        found = heading_path_in(headings, (written,))
    if found:
        return found[-1]
    names = list(dict.fromkeys(h.text for h in headings))
    if not names:
        raise ReadError(f"no heading {quoted(wanted)} in {path}, which has no headings")
    listed = ", ".join(names[:HEADINGS_NAMED])
    if len(names) > HEADINGS_NAMED:
        listed += f", ... ({len(names)} in all)"
    raise ReadError(f"no heading {quoted(wanted)} in {path}; its headings: {listed}")


def _line_range(
    request: ReadRequest, path: str, count: int, heading: Heading | None, first: int, last: int
) -> tuple[int, int]:
    """The lines asked for: `first`-`last` (the section or the note) unless a start or an end is
    given, which must lie inside them."""
    given = {"--start-line": request.start_line, "--end-line": request.end_line}
    for flag, line in given.items():
        if line is None:
            continue
        if line < 1:
            raise ReadError(f"{flag} must be at least 1, not {line}")
        if line > count:
            plural = "" if count == 1 else "s"
            raise ReadError(f"{flag} {line} is past the end of {path} ({count} line{plural})")
    start = first if request.start_line is None else request.start_line
    end = last if request.end_line is None else request.end_line
    if request.start_line is not None and request.end_line is not None and start > end:
        raise ReadError(f"--start-line {start} is after --end-line {end}")
    if heading is not None:
        for flag, line in given.items():
            if line is not None and not first <= line <= last:
                raise ReadError(
                    f"{flag} {line} is outside the section {heading.text!r} of {path} "
                    f"(lines {first}-{last})"
                )
    return start, end


def _lines_within(lines: list[str], budget: int) -> int:
    """How many lines from the first fit in `budget` tokens; at least one."""
    used = kept = 0
    for line in lines:
        used += estimate_tokens(line)
        if kept and used > budget:
            break
        kept += 1
    return kept
