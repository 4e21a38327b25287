"""Client columns to code points, in every position encoding the LSP knows."""

from __future__ import annotations

import pytest

from memlsp.lsp.convert import column_of

LINE = "中文🎉 [[x]]"  # code points: 中 文 🎉 space [ [ x ] ]


@pytest.mark.parametrize(
    ("encoding", "character", "expected"),
    [
        ("utf-32", 4, 4),
        ("utf-16", 5, 4),  # the emoji is two UTF-16 units
        ("utf-8", 11, 4),  # 3 + 3 + 4 + 1 bytes
        ("utf-16", 3, 2),  # inside the emoji's surrogate pair: the column before it
        ("utf-8", 4, 1),  # inside 文's bytes: the column before it
        ("utf-16", 99, len(LINE)),  # past the end: the line's end
        ("utf-8", -1, 0),
    ],
)
def test_column_of(encoding: str, character: int, expected: int) -> None:
    assert column_of(LINE, character, encoding) == expected


def test_ascii_lines_take_the_short_way_in_every_encoding() -> None:
    for encoding in ("utf-8", "utf-16", "utf-32", None):
        assert column_of("plain [[link]]", 6, encoding) == 6
