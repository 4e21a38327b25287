"""Chunks: heading sections with breadcrumbs and original line ranges, split under a size cap."""

from __future__ import annotations

import re
from itertools import pairwise

from memlsp.model import Chunk
from memlsp.parse.chunks import chunk_jsonl, chunk_note
from memlsp.parse.markdown import parse_markdown, split_lines
from memlsp.parse.tokens import estimate_tokens


def chunks_of(text: str, max_tokens: int = 400, path: str = "n.md") -> list[Chunk]:
    return chunk_note(parse_markdown(path, text), split_lines(text), max_tokens)


def assert_ranges_match(text: str, chunks: list[Chunk]) -> None:
    """Each chunk's text is exactly its 1-based inclusive line range (or a slice of one line)."""
    lines = split_lines(text)
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines), chunk
        original = "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        if chunk.start_line == chunk.end_line:
            assert chunk.text in original, chunk
        else:
            assert chunk.text == original, chunk
        assert chunk.text.strip(), chunk


SECTIONS = """\
---
title: Search notes
tags: [search]
---
Intro text before any heading.

# Engines

About engines.

## BM25

Scoring with [[bm25]].

### k1

Saturation.

## Vectors

Dense retrieval.

# Cooking

Tofu.
"""


def test_sections_breadcrumbs_and_lines() -> None:
    chunks = chunks_of(SECTIONS)
    assert [(c.breadcrumb, c.start_line, c.end_line) for c in chunks] == [
        (("Search notes",), 5, 5),
        (("Search notes", "Engines"), 7, 9),
        (("Search notes", "Engines", "BM25"), 11, 13),
        (("Search notes", "Engines", "BM25", "k1"), 15, 17),
        (("Search notes", "Engines", "Vectors"), 19, 21),
        (("Search notes", "Cooking"), 23, 25),
    ]
    assert chunks[2].text == "## BM25\n\nScoring with [[bm25]]."
    assert chunks[2].heading == "BM25"
    assert chunks[0].heading == ""
    assert all(c.path == "n.md" for c in chunks)
    assert_ranges_match(SECTIONS, chunks)


def test_breadcrumb_after_skipped_levels_and_setext() -> None:
    text = "# A\n\n### C\n\nc\n\n## B\n\nb\n\nSetext\n------\n\ns\n"
    chunks = chunks_of(text)
    assert [(c.breadcrumb, c.start_line) for c in chunks] == [
        (("A",), 1),
        (("A", "C"), 3),
        (("A", "B"), 7),
        (("A", "Setext"), 11),
    ]
    assert chunks[3].text == "Setext\n------\n\ns"
    assert_ranges_match(text, chunks)


def test_invalid_frontmatter_is_chunked_as_text() -> None:
    text = "---\ntitle: a: b\n---\nBody.\n"
    chunks = chunks_of(text)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 4)]
    assert chunks[0].text.startswith("---\ntitle: a: b")


def test_empty_note_and_blank_sections_give_no_chunks() -> None:
    assert chunks_of("") == []
    assert chunks_of("---\ntitle: x\n---\n\n\n") == []
    assert [c.breadcrumb for c in chunks_of("\n\n# Only\n\n\n")] == [
        ("Only",)
    ]  # an H1 equal to the title is not repeated


def _paragraphs(count: int, words: int) -> str:
    return "\n\n".join(
        " ".join(f"w{p}x{i}" for i in range(words)) + f" [[link {p}]]" for p in range(count)
    )


def test_size_cap_is_respected_on_paragraph_boundaries() -> None:
    text = "# Long\n\n" + _paragraphs(12, 20) + "\n"
    chunks = chunks_of(text, max_tokens=50)
    assert len(chunks) > 3
    assert all(estimate_tokens(c.text) <= 50 for c in chunks)
    assert_ranges_match(text, chunks)
    # every paragraph is in one chunk, whole
    for p in range(12):
        assert sum(f"[[link {p}]]" in c.text for c in chunks) == 1
    # nothing lost: every non-blank line is inside some chunk's range
    lines = split_lines(text)
    covered = {n for c in chunks for n in range(c.start_line, c.end_line + 1)}
    assert {n + 1 for n, line in enumerate(lines) if line.strip()} <= covered


def test_long_fence_splits_into_labelled_parts() -> None:
    body = "\n".join(f"    total_{i} = compute(item_{i}, weight_{i})" for i in range(60))
    text = f"# Code\n\nBefore the code.\n\n```python\n{body}\n```\n\nAfter the code.\n"
    chunks = chunks_of(text, max_tokens=60)
    parts = [c for c in chunks if c.breadcrumb[-1].startswith("code part")]
    assert len(parts) >= 3
    n = len(parts)
    assert [c.breadcrumb for c in parts] == [
        ("Code", f"code part {i}/{n}") for i in range(1, n + 1)
    ]
    assert all(estimate_tokens(c.text) <= 60 for c in chunks)
    assert parts[0].text.startswith("```python")
    assert parts[-1].text.endswith("```")
    assert parts[0].start_line == 5 and parts[-1].end_line == 66
    # contiguous: each part starts right after the previous one
    assert all(b.start_line == a.end_line + 1 for a, b in pairwise(parts))
    assert chunks[-1].text == "After the code."
    assert chunks[0].text == "# Code\n\nBefore the code."
    assert_ranges_match(text, chunks)


def test_fence_that_fits_is_never_split() -> None:
    para = " ".join(f"word{i}" for i in range(25))
    fence = "```\n" + "\n".join(f"line {i} of the fence" for i in range(8)) + "\n```"
    text = f"# Mixed\n\n{para}\n\n{fence}\n\n{para}\n\n{para}\n"
    assert estimate_tokens(fence) <= 45 < estimate_tokens(para) + estimate_tokens(fence)
    chunks = chunks_of(text, max_tokens=45)
    assert len(chunks) >= 3
    holding = [c for c in chunks if "```" in c.text]
    assert len(holding) == 1
    assert fence in holding[0].text
    assert not any(c.breadcrumb[-1].startswith("code part") for c in chunks)
    assert all(estimate_tokens(c.text) <= 45 for c in chunks)
    assert_ranges_match(text, chunks)


def test_huge_single_line_splits_without_cutting_links() -> None:
    words = [f"word{i}" for i in range(5000)]
    links = ["[[link with spaces]]", "[[another long link|with a label]]", "[see](docs/a%20b.md)"]
    for at, link in zip((10, 2500, 4990), links, strict=True):
        words[at] = link
    words[3000] = "参考[[向量 检索 笔记]]的内容"  # Chinese glues links to words
    line = " ".join(words)
    text = f"# Big\n\n{line}\n"
    chunks = chunks_of(text, max_tokens=100)
    assert len(chunks) > 50
    assert all(estimate_tokens(c.text) <= 100 for c in chunks)
    for link in [*links, "[[向量 检索 笔记]]"]:
        assert sum(link in c.text for c in chunks) == 1, link
    # parts are slices of the line, in order, and together hold every character but spaces
    pieces = [c for c in chunks if c.start_line == 3]
    assert all(c.end_line == 3 and c.text in line for c in pieces)
    assert "".join(c.text for c in pieces).replace(" ", "") == line.replace(" ", "")
    assert_ranges_match(text, chunks)


def test_single_link_over_the_cap_stays_whole() -> None:
    link = "[[" + " ".join(f"very{i}" for i in range(40)) + "]]"
    line = " ".join(f"w{i}" for i in range(30)) + " " + link + " " + "tail words here"
    chunks = chunks_of(f"# T\n\n{line}\n", max_tokens=20)
    holding = [c for c in chunks if link in c.text]
    assert len(holding) == 1 and holding[0].text == link
    assert all(estimate_tokens(c.text) <= 20 for c in chunks if c is not holding[0])


def test_long_cjk_run_is_cut_under_the_cap() -> None:
    line = "向量检索" * 100
    chunks = chunks_of(f"# 中文\n\n{line}\n", max_tokens=30)
    assert all(estimate_tokens(c.text) <= 30 for c in chunks)
    assert "".join(c.text for c in chunks if c.start_line == 3) == line


def test_no_empty_chunks_between_oversized_lines() -> None:
    long_a = " ".join(f"a{i}" for i in range(120))
    long_b = " ".join(f"b{i}" for i in range(120))
    text = f"# T\n\n```\n{long_a}\n\n{long_b}\n```\n"  # blank line between, inside a fence
    chunks = chunks_of(text, max_tokens=50)
    assert all(c.text.strip() for c in chunks)
    assert {c.start_line for c in chunks} == {1, 3, 4, 6, 7}
    assert all(estimate_tokens(c.text) <= 50 for c in chunks)
    assert_ranges_match(text, chunks)


def test_range_never_starts_or_ends_on_a_blank_line() -> None:
    first = " ".join(f"a{i}" for i in range(40))
    text = f"```\n{first}\n\n\n{first}\n```\n"
    chunks = chunks_of(text, max_tokens=45)
    lines = split_lines(text)
    assert len(chunks) == 2
    for c in chunks:
        assert lines[c.start_line - 1].strip() and lines[c.end_line - 1].strip()
    assert_ranges_match(text, chunks)
    jsonl = chunk_jsonl("a.jsonl", "a", ['{"a": 1}', "", "", '{"b": 2}', ""], 3)
    assert [(c.start_line, c.end_line, c.text) for c in jsonl] == [
        (1, 1, '{"a": 1}'),
        (4, 4, '{"b": 2}'),
    ]


def test_split_line_parts_are_slices_of_the_line() -> None:
    # Chinese glues links to the words around them; spacing is kept as written
    line = "见[[卡片 笔记]]，再看  [[向量 检索|检索]]的例子。" * 60
    chunks = chunks_of(f"{line}\n", max_tokens=10)
    assert len(chunks) > 20
    for c in chunks:
        assert c.text in line
        assert c.text.count("[[") == c.text.count("]]")
        assert estimate_tokens(c.text) <= 10
    assert sum(c.text.count("[[卡片 笔记]]") for c in chunks) == 60


def test_ids_stable_when_lines_are_inserted_above() -> None:
    before = chunks_of(SECTIONS)
    edited = SECTIONS.replace(
        "Intro text before any heading.\n",
        "Intro text before any heading.\nTwo more lines\nof intro.\n",
    )
    after = chunks_of(edited)
    assert len(before) == len(after)
    assert before[0].id != after[0].id  # the edited section
    assert [c.id for c in before[1:]] == [c.id for c in after[1:]]
    assert [c.start_line + 2 for c in before[1:]] == [c.start_line for c in after[1:]]


def test_ids_change_with_text_breadcrumb_and_path() -> None:
    base = chunks_of(SECTIONS)
    renamed_heading = chunks_of(SECTIONS.replace("## BM25", "## Okapi BM25"))
    moved = chunks_of(SECTIONS, path="other.md")
    assert base[3].id != renamed_heading[3].id  # k1's breadcrumb changed
    assert base[1].id == renamed_heading[1].id
    assert not {c.id for c in base} & {c.id for c in moved}
    assert [c.id for c in chunks_of(SECTIONS)] == [c.id for c in base]  # deterministic


def test_identical_sections_get_distinct_ids() -> None:
    text = "# Log\n\n## Notes\n\nSame text.\n\n## Notes\n\nSame text.\n"
    chunks = chunks_of(text)
    assert chunks[1].text == chunks[2].text and chunks[1].breadcrumb == chunks[2].breadcrumb
    assert len({c.id for c in chunks}) == 3
    assert re.fullmatch(r"[0-9a-f]{20}", chunks[1].id)


def test_chunk_jsonl_groups_records_with_overlap() -> None:
    lines = [f'{{"id": {i}, "text": "record {i}"}}' for i in range(30)]  # 5 tokens each
    chunks = chunk_jsonl("mem/log.jsonl", "log", lines, 40)
    assert len(chunks) > 3
    assert all(estimate_tokens(c.text) <= 40 for c in chunks)
    assert all(c.breadcrumb == ("log",) and c.path == "mem/log.jsonl" for c in chunks)
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 30
    for a, b in pairwise(chunks):
        assert b.start_line == a.end_line  # one record (5 tokens = cap // 8) repeated
        assert b.start_line > a.start_line
    for c in chunks:
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])


def test_chunk_jsonl_splits_an_oversized_record() -> None:
    big = '{"text": "' + " ".join(f"w{i}" for i in range(100)) + '"}'
    chunks = chunk_jsonl("a.jsonl", "a", ['{"id": 1}', big, '{"id": 3}'], 30)
    assert all(estimate_tokens(c.text) <= 30 for c in chunks)
    assert {c.start_line for c in chunks} == {1, 2, 3}
    assert [c.start_line for c in chunks] == sorted(c.start_line for c in chunks)
