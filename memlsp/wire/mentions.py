"""The JSON of a note's unlinked mentions, where other notes write its name as plain text:
`memlsp mentions --json` (line and columns, for a person) and `memlsp/mentions` (a range in the
client's position encoding)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from memlsp.queries.mentions import Mention, MentionsAnswer
from memlsp.wire.common import RangeJson, range_json


class MentionLineJson(TypedDict):
    """A mention of `memlsp mentions --json`: where it is written, for a person."""

    path: str  # the note where the name is written
    line: int  # 1-based
    start: int  # 1-based column, in code points
    end: int  # 1-based column just after it
    text: str  # as written
    targets: list[str]  # every note with that name; more than one: a shared name


class MentionsJson(TypedDict):
    """`memlsp mentions --json`: the unlinked mentions of a note in the other notes."""

    note: str
    mentions: list[MentionLineJson]
    left_out: int  # mentions beyond the first ones listed


def mention_line_json(mention: Mention) -> MentionLineJson:
    span = mention.span
    return {
        "path": mention.path,
        "line": span.line + 1,
        "start": span.start + 1,
        "end": span.end + 1,
        "text": mention.text,
        "targets": list(mention.targets),
    }


def mentions_json(answer: MentionsAnswer) -> MentionsJson:
    return {
        "note": answer.note,
        "mentions": [mention_line_json(mention) for mention in answer.mentions],
        "left_out": answer.left_out,
    }


class MentionAnswerJson(TypedDict):
    """A mention of `memlsp/mentions`: where it is, in the client's position encoding."""

    uri: str
    path: str
    range: RangeJson
    text: str
    targets: list[str]


class _MentionsAnswerJson(TypedDict):
    note: str  # the mentioned note's URI
    path: str
    mentions: list[MentionAnswerJson]
    left_out: int


class MentionsAnswerJson(_MentionsAnswerJson, total=False):
    """`memlsp/mentions`: where other notes write a note's name as plain text."""

    warning: str


def mentions_answer_json(
    uri: str, answer: MentionsAnswer, note_uri: Callable[[str], str], encoding: str
) -> MentionsAnswerJson:
    data: MentionsAnswerJson = {
        "note": uri,
        "path": answer.note,
        "mentions": [
            {
                "uri": note_uri(mention.path),
                "path": mention.path,
                "range": range_json(mention.span, encoding),
                "text": mention.text,
                "targets": list(mention.targets),
            }
            for mention in answer.mentions
        ],
        "left_out": answer.left_out,
    }
    if answer.warning:
        data["warning"] = answer.warning
    return data
