"""One entry point from a file's text to its note and chunks, whatever kind of file it is."""

from __future__ import annotations

from dataclasses import dataclass

from memlsp.model import Chunk, Note
from memlsp.parse.chunks import chunk_jsonl, chunk_note
from memlsp.parse.markdown import parse_markdown, split_lines
from memlsp.text import stem as path_stem


@dataclass(frozen=True, slots=True)
class ParsedFile:
    note: Note
    chunks: tuple[Chunk, ...]


def parse_file(path: str, text: str, max_chunk_tokens: int, *, records: bool = False) -> ParsedFile:
    """A Markdown note, or with `records` a file of records (`.jsonl`) chunked by size."""
    lines = split_lines(text)
    if records:
        stem = path_stem(path)
        note = Note(
            path=path,
            title=stem,
            aliases=(),
            tags=(),
            description="",
            date=None,
            headings=(),
            blocks=(),
            links=(),
            line_count=len(lines),
            body_start_line=0,
        )
        return ParsedFile(note, tuple(chunk_jsonl(path, stem, lines, max_chunk_tokens)))
    note = parse_markdown(path, text)
    return ParsedFile(note, tuple(chunk_note(note, lines, max_chunk_tokens)))
