"""The heading outline of a note (document symbols) and its links with their targets."""

from __future__ import annotations

from dataclasses import dataclass, field

from memlsp.model import Heading, Link, LinkStatus, Note, Span
from memlsp.navigation.places import Place, target_place
from memlsp.parse.markdown import parse_markdown, split_lines, strip_markup
from memlsp.vault.view import VaultView


@dataclass(frozen=True, slots=True)
class Section:
    """A heading and the lines it governs: `span` covers the heading line, `end_line` (0-based,
    inclusive) is the section's last non-blank line before the next heading of its level or
    higher. A child's lines are always inside its parent's."""

    name: str
    level: int
    span: Span
    end_line: int
    children: tuple[Section, ...] = ()


@dataclass(slots=True)
class _Open:
    heading: Heading
    children: list[Section] = field(default_factory=list)


def outline(view: VaultView, path: str) -> list[Section]:
    """Nested headings of an indexed note; a level skipped (H1 then H3) nests the H3 under the H1."""
    note = view.graph.notes.get(path)
    if note is None or not note.headings:
        return []
    text = view.read(path)
    return _nest(note, split_lines(text) if text is not None else [])


def outline_of_text(path: str, text: str) -> list[Section]:
    """The outline of an editor's buffer, parsed now: it needs no index, so a note just opened
    (or one outside every vault, or while the vault is still opening) has its outline at once."""
    return _nest(parse_markdown(path, text), split_lines(text))


def _nest(note: Note, lines: list[str]) -> list[Section]:
    if not note.headings:
        return []
    last = max(note.line_count, len(lines)) - 1
    stack: list[_Open] = []
    top: list[Section] = []

    def close(until_level: int, end: int) -> None:
        while stack and stack[-1].heading.level >= until_level:
            done = stack.pop()
            section = _section(done, _last_text_line(lines, done.heading.line, end), lines)
            (stack[-1].children if stack else top).append(section)

    for heading in note.headings:
        close(heading.level, heading.line - 1)
        stack.append(_Open(heading))
    close(0, last)
    return top


def _section(open_: _Open, end_line: int, lines: list[str]) -> Section:
    heading = open_.heading
    line = lines[heading.line] if heading.line < len(lines) else ""
    span = Span.on_line(line, heading.line, 0, len(line))
    # A client rejects an empty symbol name; `#` alone on a line is still a heading.
    name = strip_markup(heading.text) or "#" * heading.level
    return Section(name, heading.level, span, end_line, tuple(open_.children))


def _last_text_line(lines: list[str], first: int, end: int) -> int:
    """The last line up to `end` that is not blank, but never before the heading itself."""
    end = min(end, len(lines) - 1) if lines else first
    while end > first and not lines[end].strip():
        end -= 1
    return max(end, first)


def document_links(view: VaultView, path: str) -> list[tuple[Link, Place | None]]:
    """Every link of the note, in order, with where it leads (its first target; None when it
    goes nowhere)."""
    found: list[tuple[Link, Place | None]] = []
    for resolved in view.graph.outlinks(path):
        status = resolved.resolution.status
        if status in (LinkStatus.RESOLVED, LinkStatus.AMBIGUOUS):
            target = resolved.resolution.targets[0]
            found.append((resolved.link, target_place(view, resolved, target)))
        else:
            found.append((resolved.link, None))
    return found
