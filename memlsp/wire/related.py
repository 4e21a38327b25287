"""The JSON of a note's related notes, the closest in meaning: `memlsp related --json` and
`memlsp/related` (each with its URI and the text that links to it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from memlsp.search.related import RelatedAnswer, RelatedNote, SectionPair


class SectionPairJson(TypedDict):
    """The closest pair of sections of a note and a related one."""

    mine: list[str]  # breadcrumb of the note's own section
    mine_line: int  # 1-based
    theirs: list[str]
    theirs_line: int
    similarity: float


class RelatedNoteJson(TypedDict):
    path: str
    title: str
    score: float  # 0..1
    linked: bool  # the two notes link one to the other (shown, not hidden)
    reason: str
    closest: SectionPairJson
    shared_tags: list[str]


class _RelatedJson(TypedDict):
    note: str
    results: list[RelatedNoteJson]


class RelatedJson(_RelatedJson, total=False):
    """`memlsp related --json`."""

    warning: str  # why there are no results, or fewer than there could be


def section_pair_json(pair: SectionPair) -> SectionPairJson:
    return {
        "mine": list(pair.mine),
        "mine_line": pair.mine_line,
        "theirs": list(pair.theirs),
        "theirs_line": pair.theirs_line,
        "similarity": pair.similarity,
    }


def related_note_json(note: RelatedNote) -> RelatedNoteJson:
    return {
        "path": note.path,
        "title": note.title,
        "score": note.score,
        "linked": note.linked,
        "reason": note.reason,
        "closest": section_pair_json(note.closest),
        "shared_tags": list(note.shared_tags),
    }


def related_json(answer: RelatedAnswer) -> RelatedJson:
    data: RelatedJson = {
        "note": answer.note,
        "results": [related_note_json(note) for note in answer.results],
    }
    if answer.warning:
        data["warning"] = answer.warning
    return data


class RelatedNoteAnswerJson(RelatedNoteJson):
    """A related note of `memlsp/related`."""

    uri: str
    link: str  # what goes inside `[[…]]` in the asking note: the shortest text that leads there


class _RelatedAnswerJson(TypedDict):
    note: str  # the asking note's URI
    path: str
    results: list[RelatedNoteAnswerJson]


class RelatedAnswerJson(_RelatedAnswerJson, total=False):
    """`memlsp/related`: the notes closest in meaning to a note."""

    warning: str


def related_answer_json(
    uri: str, answer: RelatedAnswer, note_uri: Callable[[str], str], link: Callable[[str], str]
) -> RelatedAnswerJson:
    data: RelatedAnswerJson = {
        "note": uri,
        "path": answer.note,
        "results": [
            {**related_note_json(note), "uri": note_uri(note.path), "link": link(note.path)}
            for note in answer.results
        ],
    }
    if answer.warning:
        data["warning"] = answer.warning
    return data
