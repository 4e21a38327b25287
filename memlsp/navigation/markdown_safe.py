"""Note text made into Markdown that is safe in any client, however permissive its renderer.

Hover Markdown mixes what the server writes (titles, its own `file:` links to notes) with what a
note supplies. VS Code sanitises hovers, but the LSP promises nothing: a client that renders with
HTML enabled and follows every scheme would run a note's `<script>` or open its `command:` link. So
nothing a note writes reaches the client as more than formatting:

* `escape_text` shows text exactly as it is (names, descriptions, headings);
* `code_span` shows it as inline code that no backtick inside can end;
* `markdown_link` is the server's own link, to a URI it made;
* `safe_markdown` keeps an excerpt's look (paragraphs, emphasis, lists, quotes, tables, code
  blocks) with no HTML, no entity and no link: a link or image shows its text, an HTML comment is
  hidden, as it is when the note is rendered.

Links are shown as text whatever their scheme, `http(s):` included, and `//` and `@` are escaped,
so linkify can make no link but `http:` to a bare domain name: safety never depends on agreeing
with the client about where a destination ends or how `jav&#x61;script:` decodes. Nor does it
depend on parsing the note as the client would: outside code spans every `<`, `>` (a quote's
marker aside), `[`, `]`, `@`, entity and unpaired backtick is escaped, and a code block is written
out again as a fence at column 0, where no container can hold it and no line inside can close it.
A wrong guess about the note's structure costs looks, not safety.
"""

from __future__ import annotations

import re
import string
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from memlsp.parse.fences import ListItems, closes_fence, fence_opening

_PUNCTUATION = frozenset(string.punctuation)  # what a backslash escapes in CommonMark
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_BLANKS = re.compile(r"[\x00-\x20\x7f]+")
# In text: emphasis, code, link and table marks, HTML, an entity's `&`, and what linkify turns into
# a link (an e-mail's `@`, `//`).
_TEXT_SPECIAL = re.compile(r"[\\`*_\[\]<>|~@]|&(?![ \t])|/(?=/|$)")
# A character that would begin a heading, list, rule or setext underline at the start of a line.
_BLOCK_START = re.compile(r"^(?:[#=+-]|\d{1,9}(?=[.)]))")
_BARE_DESTINATION = re.compile(r"^[^\x00-\x20\x7f()<>\\]*$")
_INFO_WORD = re.compile(r"[\w+#.-]*")
# Blockquote and list markers, kept as written: structure, where a `>` begins no tag.
_CONTAINERS = re.compile(r"^(?: {0,3}(?:> ?|(?:[-+*]|\d{1,9}[.)])(?: {1,4}|$)))*")
_DEFINITION = re.compile(r"^[ \t]*\[(?!\^)(?:\\.|[^\\\[\]])+\]:")
_BACKTICKS = re.compile(r"`+")
_LINE_END = re.compile(r"\r\n?|\n")
_BRACKETS = re.compile(r"[\\`\[\]()]")
_OPENER = {"]": "[", ")": "("}
_PLAIN = re.compile(r"[^\\`<>\[\]!@&/]+")  # nothing in it needs a look
_MAX_NESTING = 4  # links inside link text, as text; deeper ones keep their brackets, escaped


def escape_text(text: str) -> str:
    """Markdown that shows `text` as it is; line breaks and control characters become spaces."""
    text = _BLANKS.sub(" ", text).strip()
    escaped = _TEXT_SPECIAL.sub(lambda m: "\\" + m.group(0), text)
    start = _BLOCK_START.match(escaped)
    if start is None:
        return escaped
    at = start.end() if start.group(0)[0].isdigit() else 0
    return f"{escaped[:at]}\\{escaped[at:]}"


def code_span(text: str) -> str:
    """Inline code showing `text`: its delimiter is longer than any backtick run inside."""
    text = _CONTROL.sub(" ", text) or " "
    fence = "`" * (1 + max((len(run) for run in _BACKTICKS.findall(text)), default=0))
    # CommonMark drops one space from each end when both have one: pad what must keep its ends.
    if text.strip(" ") and (text[0] == "`" or text[-1] == "`" or text[0] == text[-1] == " "):
        text = f" {text} "
    return f"{fence}{text}{fence}"


def markdown_link(label: str, uri: str) -> str:
    """A link the server makes, to a URI it made: `label` escaped, the destination kept whole."""
    return f"[{escape_text(label)}]({_destination(uri)})"


def _destination(uri: str) -> str:
    """Wrapped in `<...>` when a space or parenthesis would end it early; inside, what could end
    the wrapping is percent-encoded."""
    if _BARE_DESTINATION.match(uri):
        return uri
    encoded = "".join(f"%{ord(c):02X}" if c in "<>\\" or _CONTROL.match(c) else c for c in uri)
    return f"<{encoded}>"


# -- excerpts ------------------------------------------------------------------------------------


def safe_markdown(lines: Sequence[str]) -> list[str]:
    """A note's Markdown lines, safe to render and looking as the note does."""
    lines = [part for line in lines for part in _LINE_END.split(line)]  # as the client splits
    out: list[str] = []
    state = _Inline()
    lists = ListItems()  # a fence in a list item may be indented more (parse/fences.py)
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = None if state.in_comment else _fence_at(lines, index, lists.in_list)
        if fence is not None:
            out += fence.lines()
            index += fence.length
            lists.skipped()
            continue
        index += 1
        lists.read(line)
        if not state.in_comment and _DEFINITION.match(line):
            continue  # a link reference definition shows nothing
        safe = _unfenced(_safe_line(line, state))
        if safe.strip():
            out.append(safe)
        elif out and out[-1].strip():
            # one blank line, also for a hidden comment: it still ends the paragraph before it
            out.append("")
    return out


def _unfenced(line: str) -> str:
    """A line that is no fence in the note must not be one here (a comment or link before its
    `~~~` is gone): the fence would hide where this output's own fences begin and end. A
    backtick run there is either escaped or closed on the line, which no fence can be."""
    prefix = _CONTAINERS.match(line)
    at = prefix.end() if prefix else 0
    at += len(line[at:]) - len(line[at:].lstrip(" \t"))
    return f"{line[:at]}\\{line[at:]}" if line.startswith("~~~", at) else line


@dataclass(frozen=True)
class _Fence:
    marker: str  # the note's opening run: ``` or ~~~~ ...
    info: str
    body: tuple[str, ...]
    length: int  # lines of the note it covers

    def lines(self) -> list[str]:
        char = self.marker[0]
        longest = max((_run(line.lstrip(), char) for line in self.body), default=0)
        delimiter = char * max(len(self.marker), longest + 1)
        return [delimiter + self.info, *self.body, delimiter]


def _fence_at(lines: Sequence[str], index: int, in_list: bool) -> _Fence | None:
    """A fenced code block opening at `lines[index]`, by the one rule (parse/fences.py); one in a
    list item is shown at the margin, where no container can hold it."""
    opening = fence_opening(lines[index], in_list)
    if opening is None:
        return None
    marker = opening.marker
    body: list[str] = []
    for line in lines[index + 1 :]:
        if closes_fence(line, marker):
            return _Fence(marker, _info(opening.info), tuple(body), len(body) + 2)
        body.append(_dedent(line, len(opening.indent)))
    return _Fence(marker, _info(opening.info), tuple(body), len(body) + 1)


def _info(info: str) -> str:
    match = _INFO_WORD.match(info.strip())
    return match.group(0) if match else ""


def _run(text: str, char: str) -> int:
    return len(text) - len(text.lstrip(char))


def _dedent(line: str, width: int) -> str:
    """Up to `width` leading spaces off, as CommonMark takes the opening fence's indentation."""
    cut = 0
    while cut < width and cut < len(line) and line[cut] == " ":
        cut += 1
    return line[cut:]


@dataclass
class _Inline:
    in_comment: bool = False  # an HTML comment runs on into the next line


def _safe_line(line: str, state: _Inline) -> str:
    containers = _CONTAINERS.match(line)
    prefix = containers.group(0) if containers and not state.in_comment else ""
    return prefix + _safe_inline(_Scan(line), len(prefix), len(line), state, 0)


class _Scan:
    """A line's backtick runs and bracket pairs, found once: each later step is then quick, even on
    a line of megabytes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._runs: dict[int, list[int]] = {}  # run length -> where runs of it start, in order
        for run in _BACKTICKS.finditer(text):
            self._runs.setdefault(len(run.group(0)), []).append(run.start())
        self.partner = self._pairs()

    def run_end(self, i: int) -> int:
        return _BACKTICKS.match(self.text, i).end()  # type: ignore[union-attr]

    def code_end(self, i: int, end: int) -> int | None:
        """Past the run closing the code span whose opening run is at `i`, if it closes before
        `end`: the next run of the same length (backslashes do not escape inside a span)."""
        run_end = self.run_end(i)
        length = run_end - i
        starts = self._runs.get(length, [])
        k = bisect_left(starts, run_end)
        if k == len(starts) or starts[k] + length > end:
            return None
        return starts[k] + length

    def _pairs(self) -> dict[int, int]:
        """Each `[` and `(` with the bracket closing it, escapes and code spans skipped."""
        partner: dict[int, int] = {}
        opened: dict[str, list[int]] = {"[": [], "(": []}
        skip = 0
        for mark in _BRACKETS.finditer(self.text):
            i, char = mark.start(), mark.group(0)
            if i < skip:
                continue
            if char == "\\":
                skip = i + 2
            elif char == "`":
                skip = self.code_end(i, len(self.text)) or self.run_end(i)
            elif char in opened:
                opened[char].append(i)
            elif opened[_OPENER[char]]:
                partner[opened[_OPENER[char]].pop()] = i
        return partner


def _safe_inline(scan: _Scan, start: int, end: int, state: _Inline, depth: int) -> str:
    """`text[start:end]` with code spans kept, links and images as their text, comments dropped
    and everything else that could be markup escaped."""
    text = scan.text
    out: list[str] = []
    i = start
    while i < end:
        if state.in_comment:
            close = text.find("-->", i, end)
            if close < 0:
                break
            state.in_comment = False
            i = close + 3
            continue
        plain = _PLAIN.match(text, i, end)
        if plain is not None:
            _append(out, plain.group(0))
            i = plain.end()
            continue
        char = text[i]
        if char == "\\" and i + 1 < end and text[i + 1] in _PUNCTUATION:
            _append(out, text[i : i + 2])
            i += 2
        elif char == "`":
            span_end = scan.code_end(i, end)
            if span_end is not None and "|" not in text[i:span_end]:
                # kept whole; with a `|` inside, a table would cut the span at it
                _append(out, text[i:span_end])
                i = span_end
            else:
                run_end = scan.run_end(i)
                _append(out, "\\`" * (run_end - i))
                i = run_end
        elif text.startswith("<!--", i):
            state.in_comment = True
            i += 2  # `<!-->` is a whole comment: look for `-->` from its first `-`
        elif char == "[" or (char == "!" and text.startswith("[", i + 1, end)):
            label = i + 1 if char == "[" else i + 2
            link = _link_end(scan, label - 1, end) if depth < _MAX_NESTING else None
            if link is None:
                _append(out, "!\\[" if char == "!" else "\\[")
                i = label
            else:
                label_end, i = link
                _append(out, _safe_inline(scan, label, label_end, _Inline(), depth + 1))
        else:
            _append(out, _escape_char(text, i, end))
            i += 1
    return "".join(out)


def _append(out: list[str], piece: str) -> None:
    """Two pieces that were apart in the note (a link or comment between them) must not join into
    one backtick run: that would pair the code spans differently."""
    if piece.startswith("`") and out and out[-1].endswith("`"):
        out.append(" ")
    out.append(piece)


def _escape_char(text: str, i: int, end: int) -> str:
    """One character outside code. `&` stays bare only before a space (no entity can start), `/`
    only before a character that cannot begin `//`, even once a link or comment after it is gone."""
    char = text[i]
    after = text[i + 1] if i + 1 < end else ""
    if (
        char in "<>[]@"
        or (char == "&" and after not in (" ", "\t"))
        or (char == "/" and (not after or after in "/<[!"))
    ):
        return "\\" + char
    if char == "\\" and not after and end < len(text):
        return "\\\\"  # a backslash ending a link's text: nothing after it may be escaped by it
    return char


def _link_end(scan: _Scan, i: int, end: int) -> tuple[int, int] | None:
    """For a `[` at `i` that opens an inline link `[..](..)` or a reference `[..][..]`: where its
    text ends and where the link ends."""
    label_end = scan.partner.get(i)
    if label_end is None or label_end + 1 >= end:
        return None
    close = scan.partner.get(label_end + 1)
    if close is None or close >= end:
        return None
    return label_end, close + 1
