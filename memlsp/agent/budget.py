"""One budget rule for every tool's answer: its tokens measured on its JSON, and a cut to fit.

An answer's tokens are counted on the JSON the agent receives: a word or a CJK character each
(`estimate_tokens`), or, for JSON's punctuation and paths, which that leaves out, one per 3.5
bytes when that is more. An answer over the budget keeps the longest head of its list (search
results, related notes, recent notes; a graph's nodes, nearest first, with the edges between
them) that fits, at least one item, and says in `cut` what it left out; when even that one does
not fit, the cut says so.

The command line's `search --budget-tokens` counts something else (search/expand.py
`within_budget`): the words of each result's text and its linked notes, never the JSON. A search
an agent asks is given that budget too, so its answer equals the command line's whenever that
fits, and then cut here if its JSON is still over.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from memlsp.parse.tokens import estimate_tokens
from memlsp.wire import json_line

# Tokens of one answer when the agent names no budget: what an answer is whole in nearly every
# case (depth 2 around nine notes in ten of the real vaults is under 8,000 tokens, around their
# hubs up to ~15,000; a long note's section as much), under the 25,000 tokens Claude Code accepts
# of one tool answer.
DEFAULT_BUDGET = 20000

Answer = Mapping[str, Any]


def answer_tokens(answer: object) -> int:
    """Tokens of an answer as the agent receives it (`tool_text`)."""
    text = tool_text(answer)
    return max(estimate_tokens(text), math.ceil(len(text.encode("utf-8")) / 3.5))


def tool_text(answer: object) -> str:
    """An answer as a tool returns it: compact JSON, escaped as the command line's `--json`."""
    return json_line(answer, compact=True)


def cut_to_fit(
    answer: Answer,
    count: int,
    head: Callable[[int], Answer],
    left_out: Callable[[int], str],
    advice: str,
    budget: int,
) -> Answer:
    """`answer` when it fits `budget`; else `head(kept)` for the most items kept (of `count`, at
    least one) that fits with its `cut` sentence: `left_out(n)` names the n items left out."""
    if answer_tokens(answer) <= budget:
        return answer

    def with_cut(kept: int) -> dict[str, Any]:
        said = f"{left_out(count - kept)} to stay within {budget:,} tokens; {advice}"
        return {**head(kept), "cut": said}

    low, high = 1, count - 1  # the answer is `head(count)`: too much
    while low < high:  # the most items that fit: fewer always fit in fewer tokens
        middle = (low + high + 1) // 2
        if answer_tokens(with_cut(middle)) <= budget:
            low = middle
        else:
            high = middle - 1
    kept = max(low, 1) if count else 0
    smaller = with_cut(kept)
    tokens = answer_tokens(smaller)
    if tokens > budget:  # one item alone is too much: say so, not that it fits
        gone = f"{left_out(count - kept)}, and" if kept < count else "nothing to leave out:"
        smaller["cut"] = (
            f"{gone} what is left is still about {tokens:,} tokens, over the budget of "
            f"{budget:,}; {advice}"
        )
    return smaller


def graph_within_budget(graph: Answer, budget: int) -> Answer:
    """A graph answer cut to `budget` tokens: the farthest nodes go first, with their edges."""
    nodes = sorted(graph["nodes"], key=lambda node: node["distance"])

    def head(kept: int) -> Answer:
        ids = {node["id"] for node in nodes[:kept]}
        edges = [e for e in graph["edges"] if e["source"] in ids and e["target"] in ids]
        return {**graph, "nodes": nodes[:kept], "edges": edges}

    return cut_to_fit(
        graph,
        len(nodes),
        head,
        lambda cut: f"{cut} of {len(nodes)} nodes (the farthest) left out",
        "ask with a smaller depth or direction 'out' or 'in'",
        budget,
    )


def list_within_budget(answer: Answer, key: str, budget: int) -> Answer:
    """An answer whose list under `key` is cut from its end to fit `budget` tokens."""
    items = answer[key]
    return cut_to_fit(
        answer,
        len(items),
        lambda kept: {**answer, key: items[:kept]},
        lambda cut: f"the last {cut} of {len(items)} {key} left out",
        "ask with a smaller limit",
        budget,
    )
