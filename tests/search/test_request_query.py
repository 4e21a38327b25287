"""A search's query as `build_request` takes it from every surface: words, within a length, and
text the index can take; what is not is one sentence naming the query."""

from __future__ import annotations

import pytest

from memlsp.commands.arguments import UsageError
from memlsp.commands.calls import checked_request
from memlsp.search.request import MAX_QUERY_CHARACTERS, build_request


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"query": ""}, "'query' is empty: give words or a question"),
        ({"query": " \t\n"}, "'query' is empty"),
        ({"query": "x" * 200_000}, "'query' is 200,000 characters long; a query is at most 2,000"),
        ({"query": "bm25\x00"}, "'query' holds a NUL character, which is not text"),
        ({"query": "bm25 \udcff"}, "'query' holds a lone surrogate ('\\udcff'), which is not text"),
        ({"query": "x", "paths": ["a\x00b"]}, "'paths' holds a NUL character"),
        ({"query": "x", "tags": "t\ud800"}, "'tags' holds a lone surrogate"),
    ],
    ids=["empty", "blank", "200000-characters", "nul", "lone-surrogate", "nul-in-paths",
         "surrogate-in-tags"],
)  # fmt: skip
def test_a_query_that_is_no_words_or_no_text_is_refused(
    values: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError) as raised:
        build_request(values)
    assert str(raised.value).startswith(message)


def test_a_query_of_the_longest_length_is_taken() -> None:
    query = "向量" * (MAX_QUERY_CHARACTERS // 2)
    assert build_request({"query": query}).query == query


def test_the_command_line_names_its_query_argument() -> None:
    """`memlsp search VAULT QUERY` has no `--query` flag: its complaint names QUERY."""
    with pytest.raises(UsageError) as raised:
        checked_request({"query": "  "})
    assert str(raised.value) == "QUERY is empty: give words or a question"
