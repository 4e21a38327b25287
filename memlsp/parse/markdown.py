"""Turn the text of one Markdown file into a `Note` (pure: no I/O)."""

from __future__ import annotations

import re
import unicodedata

from memlsp.model import Block, Heading, Link, Note, Tag
from memlsp.parse.frontmatter import as_date, as_strings, parse_iso_date, split_frontmatter
from memlsp.parse.links import find_block_id, find_links, find_tags
from memlsp.parse.mask import mask_lines

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# List markers need a space after them: `**bold** text` and `*em*` lines are paragraphs.
_NOT_PARAGRAPH = re.compile(
    r"^\s*(?:[-*+](?:\s|$)|>|\d+[.)](?:\s|$)|#{1,6}(?:\s|$)|\||(?:[-*_][ \t]*){3,}$|$)"
)
_PATH_DATE = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)")
_SLUG_DROP = re.compile(r"[^\w\- ]")
# Reading text of inline Markdown: a link shows its label (or its target), emphasis marks, HTML
# comments and a trailing block id disappear.
_INLINE_MARKUP = re.compile(
    r"!?\[\[(?:[^\[\]|]*\|)?([^\[\]]*)\]\]"
    r"|!?\[([^\]]*)\]\([^)]*\)"
    r"|<!--.*?(?:-->|$)"
    r"|[*_`~]"
    r"|\s\^[A-Za-z0-9-]+\s*$"
)
_TRAILING_TAGS = re.compile(r"(?:\s+#[\w\-/]+)+\s*$")
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


def strip_markup(text: str) -> str:
    return _INLINE_MARKUP.sub(lambda m: m.group(1) or m.group(2) or "", text).strip()


def _heading(masked: str, original: str, line_no: int) -> Heading | None:
    match = _ATX.match(masked)
    if match is None:
        return None
    level = len(match.group(1))
    # Take the text from the original line so inline code in a heading stays readable.
    text = _ATX.match(original)
    content = (text.group(2) if text else match.group(2)) or ""
    return Heading(level, content.strip(), slugify(strip_markup(content)), line_no)


def _date_from_path(path: str) -> str | None:
    for found in reversed(_PATH_DATE.findall(path)):
        date = parse_iso_date(found)
        if date:
            return date
    return None


def parse_markdown(path: str, text: str) -> Note:
    """Parse one note. Never raises on odd input: problems are recorded on the note."""
    lines = split_lines(text)
    front = split_frontmatter(lines)
    meta = front.meta
    problems = [front.problem] if front.problem else []

    headings: list[Heading] = []
    blocks: list[Block] = []
    links: list[Link] = []
    tags: list[Tag] = []
    first_paragraph = ""
    first_paragraph_line = -1
    previous_paragraph: tuple[int, str] | None = None  # a line that a setext underline can head

    masked_lines = mask_lines(lines[front.body_start :])
    for offset, masked in enumerate(masked_lines):
        line_no = front.body_start + offset
        original = lines[line_no]
        if masked.in_block:
            previous_paragraph = None
            continue
        line_links, without_links = find_links(masked.text, line_no, original)
        links.extend(sorted(line_links, key=lambda link: link.span.start))
        tags.extend(find_tags(without_links, line_no, original))
        block_id = find_block_id(without_links)
        if block_id:
            blocks.append(Block(block_id, line_no))

        heading = _heading(masked.text, original, line_no)
        if heading is None and previous_paragraph and _SETEXT.match(masked.text):
            heading_line, heading_text = previous_paragraph
            level = 1 if masked.text.strip().startswith("=") else 2
            heading = Heading(
                level, heading_text, slugify(strip_markup(heading_text)), heading_line
            )
            if first_paragraph_line == heading_line:
                first_paragraph = ""  # it was a setext heading's text, not a paragraph
        if heading is not None:
            headings.append(heading)
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

    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    title_values = as_strings(meta.get("title"))
    first_h1 = next((h.text for h in headings if h.level == 1), None)
    title = title_values[0] if title_values else (strip_markup(first_h1) if first_h1 else stem)
    aliases = as_strings(meta.get("aliases")) + as_strings(meta.get("alias"))
    front_tags = [
        Tag(name.lstrip("#"), None)
        for value in as_strings(meta.get("tags")) + as_strings(meta.get("tag"))
        for name in re.split(r"[,\s]+", value)
        if name.lstrip("#")
    ]
    descriptions = as_strings(meta.get("description")) or as_strings(meta.get("summary"))
    description = descriptions[0] if descriptions else _TRAILING_TAGS.sub("", first_paragraph)
    date = as_date(meta.get("date")) or as_date(meta.get("created")) or _date_from_path(path)

    return Note(
        path=path,
        title=unicodedata.normalize("NFC", title),
        aliases=tuple(dict.fromkeys(aliases)),
        tags=tuple(front_tags + tags),
        description=description[:_DESCRIPTION_CHARS],
        date=date,
        headings=tuple(headings),
        blocks=tuple(blocks),
        links=tuple(links),
        line_count=len(lines),
        # Invalid frontmatter is kept as searchable text (DESIGN §4).
        body_start_line=0 if front.problem else front.body_start,
        problems=tuple(problems),
    )
