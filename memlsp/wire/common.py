"""What the families of messages share: a range in a note as an editor counts it (columns in
the unit the client negotiated, `Span.columns`), and `json_text`, the JSON writer that escapes
what `printable` escapes (C1 and bidi controls among them), so a note's text printed with
`--json` cannot move a terminal's cursor or reorder what a person reads; and `json_kind`, what
a JSON value is, as the protocol errors of every surface name it.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypedDict

from memlsp.model import Span

# What `printable` escapes, and the bidi marks (LRM, RLM, ALM), which reorder the text around them
# as a terminal or an agent's view shows it; JSON carries them escaped, to be read back as they are.
JSON_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


class PositionJson(TypedDict):
    line: int  # 0-based
    character: int  # in the unit the client negotiated


class RangeJson(TypedDict):
    start: PositionJson
    end: PositionJson


def range_json(span: Span, encoding: str) -> RangeJson:
    start, end = span.columns(encoding)
    return {
        "start": {"line": span.line, "character": start},
        "end": {"line": span.line, "character": end},
    }


def json_text(data: object) -> str:
    """JSON keeping names as they are, with what `printable` escapes escaped the JSON way: json
    escapes C0 controls itself but leaves DEL, C1, bidi controls and lone surrogates (a name that
    is not UTF-8) raw, and a lone surrogate cannot be written as UTF-8 at all. Outside strings
    the only such character is the newline of the indentation."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    return JSON_UNPRINTABLE.sub(lambda m: m[0] if m[0] == "\n" else f"\\u{ord(m[0]):04x}", text)


def json_line(data: object, *, compact: bool = False) -> str:
    """`json_text` on one line, escaped as it escapes; `compact` leaves out the spaces after `,`
    and `:` (an agent's answer, measured in tokens)."""
    separators = (",", ":") if compact else (", ", ": ")
    text = json.dumps(data, ensure_ascii=False, separators=separators)
    return JSON_UNPRINTABLE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def json_kind(value: Any) -> str:
    """What a JSON value is, as an error message names it: "null", "an array", ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


# `\ud800`-`\udfff` written as an escape: the only way a lone surrogate gets into decoded JSON.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def decode_message(body: bytes) -> Any:
    """A message's body as JSON, each lone surrogate in it replaced by U+FFFD. JSON lets an escape
    name half of a pair (JavaScript strings may hold one, and a client's JSON writer escapes it);
    no UTF-8 text can hold it, so the index, a file or a reply would fail on it far from here.
    Replaced rather than refused: an editor's change to a buffer is never lost for it."""
    message = json.loads(body)
    if _SURROGATE_ESCAPE.search(body):
        return _whole_text(message)
    return message


def _whole_text(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_whole_text(item) for item in value]
    if isinstance(value, dict):
        return {_whole_text(key): _whole_text(item) for key, item in value.items()}
    return value
