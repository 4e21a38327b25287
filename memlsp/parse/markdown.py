"""Turn the text of one Markdown file into a `Note` (pure: no I/O)."""

from __future__ import annotations

import re
import unicodedata
from itertools import islice
from typing import Any

from memlsp.model import Block, Heading, Link, Note, Span, Tag
from memlsp.parse.frontmatter import (
    as_date,
    as_strings,
    parse_iso_date,
    split_frontmatter,
    tag_names,
    tag_places,
)
from memlsp.parse.inline import strip_markup as strip_markup
from memlsp.parse.inline import without_trailing_tags
from memlsp.parse.limits import (
    ALIAS_CHARS,
    ALIAS_TEXT,
    ALIASES,
    BLOCKS,
    HEADING_CHARS,
    HEADINGS,
    LINKS,
    MAX_ALIAS_TEXT,
    MAX_ALIASES,
    MAX_BLOCKS,
    MAX_HEADINGS,
    MAX_LINKS,
    MAX_TAGS,
    TAGS,
    TITLE_CHARS,
    NoteLimits,
)
from memlsp.parse.links import find_block_id, find_links, find_tags
from memlsp.parse.mask import iter_masked
from memlsp.parse.properties import note_properties
from memlsp.text import stem as path_stem

_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# List markers need a space after them: `**bold** text` and `*em*` lines are paragraphs.
_NOT_PARAGRAPH = re.compile(
    r"^\s*(?:[-*+](?:\s|$)|>|\d+[.)](?:\s|$)|#{1,6}(?:\s|$)|\||(?:[-*_][ \t]*){3,}$|$)"
)
_PATH_DATE = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)")
_SLUG_DROP = re.compile(r"[^\w\- ]")
_ONLY_TAGS = re.compile(r"^(?:#[\w\-/]+\s*)+$")
_DESCRIPTION_CHARS = 200


def split_lines(text: str) -> list[str]:
    """Lines as an editor counts them: `\\n`, `\\r\\n` or `\\r` end a line.

    A leading byte-order mark is dropped: editors hide it, and it would stop `---` on the first line
    from opening the frontmatter.
    """
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def slugify(text: str) -> str:
    """GitHub-style heading slug: lower case, punctuation dropped, spaces to hyphens."""
    return _SLUG_DROP.sub("", text.strip().lower()).replace(" ", "-")


def _atx(line: str) -> tuple[int, str] | None:
    """An ATX heading's level and text: `#` to `######` after at most 3 spaces, then a space or
    tab (or the end), the text, and an optional closing run of `#` after a space or tab.

    Read with string methods: the regex form's lazy text followed by the optional closing run
    re-read the rest of the line at every space, quadratic in a long run of them.
    """
    indent = len(line) - len(line.lstrip(" "))
    if indent > 3:
        return None
    rest = line[indent:]
    level = len(rest) - len(rest.lstrip("#"))
    if not 1 <= level <= 6:
        return None
    after = rest[level:]
    if after and after[0] not in " \t":
        return None
    text = after.lstrip(" \t").rstrip(" \t")
    without_closing = text.rstrip("#")
    if without_closing != text and without_closing.endswith((" ", "\t")):
        text = without_closing.rstrip(" \t")
    return level, text


def _heading(masked: str, original: str, line_no: int, limits: NoteLimits) -> Heading | None:
    if "#" not in masked[:4]:  # most lines; a heading's `#` comes after at most 3 spaces
        return None
    found = _atx(masked)
    if found is None:
        return None
    # Take the text from the original line so inline code in a heading stays readable.
    content = (_atx(original) or found)[1]
    content = limits.cut(content, HEADING_CHARS)
    return Heading(found[0], content.strip(), slugify(strip_markup(content)), line_no)


def _date_from_path(path: str) -> str | None:
    for found in reversed(_PATH_DATE.findall(path)):
        date = parse_iso_date(found)
        if date:
            return date
    return None


def _front_tags(
    meta: dict[str, Any], lines: list[str], body_start: int, limits: NoteLimits
) -> list[Tag]:
    """The frontmatter's tags, each with the place it is written when it can be found there (a
    tag YAML built some other way, through an anchor say, has none)."""
    values = as_strings(meta.get("tags"), MAX_TAGS + 1) + as_strings(meta.get("tag"), MAX_TAGS + 1)
    names = tag_names(values, MAX_TAGS + 1)
    places: dict[str, list[Span]] = {}
    for line_no, start, end, name in tag_places(lines, body_start):
        places.setdefault(name, []).append(Span.on_line(lines[line_no], line_no, start, end))
    tags = []
    for name in names[: limits.keep(names, MAX_TAGS, TAGS)]:
        written = places.get(name)
        tags.append(Tag(name, written.pop(0) if written else None))
    return tags


def _aliases(meta: dict[str, Any], limits: NoteLimits) -> list[str]:
    values = as_strings(meta.get("aliases"), MAX_ALIASES + 1)
    values += as_strings(meta.get("alias"), MAX_ALIASES + 1)
    aliases = list(dict.fromkeys(values))
    kept: list[str] = []
    length = 0
    for alias in aliases[: limits.keep(aliases, MAX_ALIASES, ALIASES)]:
        alias = limits.cut(alias, ALIAS_CHARS)
        length += len(alias)
        if length > MAX_ALIAS_TEXT:
            limits.passed.add(ALIAS_TEXT)
            break
        kept.append(alias)
    return kept


def parse_markdown(path: str, text: str) -> Note:
    """Parse one note. Never raises on odd input: problems are recorded on the note."""
    lines = split_lines(text)
    front = split_frontmatter(lines)
    meta = front.meta
    problems = [front.problem] if front.problem else []
    limits = NoteLimits()

    tags = _front_tags(meta, lines, front.body_start if meta else 0, limits)
    headings: list[Heading] = []
    blocks: list[Block] = []
    links: list[Link] = []
    first_paragraph = ""
    first_paragraph_line = -1
    previous_paragraph: tuple[int, str] | None = None  # a line that a setext underline can head

    body = islice(lines, front.body_start, None)
    for line_no, masked in enumerate(iter_masked(body), front.body_start):
        original = lines[line_no]
        if masked.in_block:
            previous_paragraph = None
            continue
        # The line with its links blanked is read only for tags and block ids: once the note is
        # past both limits, a line without a `^` needs no link search at all.
        line_links: list[Link] = []
        without_links = masked.text
        if LINKS not in limits.passed or TAGS not in limits.passed or "^" in masked.text:
            room = limits.room(LINKS, MAX_LINKS - len(links))
            line_links, without_links = find_links(masked.text, line_no, original, room)
        if line_links:
            links.extend(line_links[: limits.keep(line_links, MAX_LINKS - len(links), LINKS)])
        if "#" in without_links:
            room = limits.room(TAGS, MAX_TAGS - len(tags))
            line_tags = find_tags(without_links, line_no, original, room)
            tags.extend(line_tags[: limits.keep(line_tags, MAX_TAGS - len(tags), TAGS)])
        block_id = find_block_id(without_links)
        if block_id:
            limits.add(blocks, Block(block_id, line_no), MAX_BLOCKS, BLOCKS)

        heading = _heading(masked.text, original, line_no, limits)
        if heading is None and previous_paragraph and _SETEXT.match(masked.text):
            heading_line, heading_text = previous_paragraph
            level = 1 if masked.text.strip().startswith("=") else 2
            heading_text = limits.cut(heading_text, HEADING_CHARS)
            heading = Heading(
                level, heading_text, slugify(strip_markup(heading_text)), heading_line
            )
            if first_paragraph_line == heading_line:
                first_paragraph = ""  # it was a setext heading's text, not a paragraph
        if heading is not None:
            limits.add(headings, heading, MAX_HEADINGS, HEADINGS)
            previous_paragraph = None
            continue
        if _NOT_PARAGRAPH.match(masked.text):
            previous_paragraph = None
        else:
            continues = previous_paragraph is not None and previous_paragraph[0] == line_no - 1
            previous_paragraph = (line_no, original.strip())
            if not first_paragraph and not _ONLY_TAGS.match(original.strip()):
                first_paragraph = strip_markup(original)
                first_paragraph_line = line_no
            elif (
                continues
                and first_paragraph_line == line_no - 1
                and len(first_paragraph) < _DESCRIPTION_CHARS
            ):
                # A wrapped paragraph: the description reads on, up to its length limit.
                first_paragraph = f"{first_paragraph} {strip_markup(original)}"
                first_paragraph_line = line_no

    stem = path_stem(path)
    title_values = as_strings(meta.get("title"), 1)
    first_h1 = next((h.text for h in headings if h.level == 1), None)
    title = title_values[0] if title_values else (strip_markup(first_h1) if first_h1 else stem)
    title = limits.cut(title, TITLE_CHARS)
    aliases = _aliases(meta, limits)
    descriptions = as_strings(meta.get("description"), 1) or as_strings(meta.get("summary"), 1)
    description = descriptions[0] if descriptions else without_trailing_tags(first_paragraph)
    date = as_date(meta.get("date")) or as_date(meta.get("created")) or _date_from_path(path)
    over = limits.problem()
    if over:
        problems.append(over)

    return Note(
        path=path,
        title=unicodedata.normalize("NFC", title),
        aliases=tuple(dict.fromkeys(aliases)),
        tags=tuple(tags),
        description=description[:_DESCRIPTION_CHARS],
        date=date,
        headings=tuple(headings),
        blocks=tuple(blocks),
        links=tuple(links),
        line_count=len(lines),
        # Invalid frontmatter is kept as searchable text (docs/chunks.md, "Invalid frontmatter").
        body_start_line=0 if front.problem else front.body_start,
        problems=tuple(problems),
        properties=note_properties(meta),
    )
