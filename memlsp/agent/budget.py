"""One budget rule for every tool's answer: its tokens measured on its JSON, and a cut to fit.

An answer's tokens are counted on the JSON the agent receives: a word or a CJK character each
(`estimate_tokens`), or, for JSON's punctuation and paths, which that leaves out, one per 3.5
bytes when that is more. An answer over the budget keeps the longest head of its list (search
results, related notes, recent notes; a graph's nodes, nearest first, with the edges between
them) that fits, at least one item, and says in `cut` what it left out; when even that one does
not fit, the cut says so.

The command line's `search --budget-tokens` counts something else (search/budget.py
`within_budget`): the words of each result's text and its linked notes, never the JSON. A search
an agent asks is given that budget too, so its answer equals the command line's whenever that
fits, `dropped` and `budget_used` included. When its JSON is still over, it is cut here from the
search's whole list (`search_within_budget`), by this measure alone: what it leaves out is named
in `dropped` with each result's tokens as this rule counts them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from memlsp.model import Dropped, heading_path
from memlsp.parse.tokens import estimate_tokens
from memlsp.search.explain import budget_sentence
from memlsp.wire import dropped_json, json_line

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

    # at least one item; all of them, `head(count)`, are too much
    fits = _most(lambda kept: answer_tokens(with_cut(kept)) <= budget, 1, count - 1)
    kept = fits if count else 0
    gone = left_out(count - kept) if kept < count else ""
    return _still_over(with_cut(kept), gone, advice, budget)


def search_within_budget(answer: Answer, budget: int) -> Answer:
    """A search answer (with every result the search has) cut to `budget` tokens: the longest
    head of its results that fits with every result after it named in `dropped`, each with its
    tokens as `answer_tokens` counts its JSON, and `budget_used` those of the results shown.
    When even the first result with all the names is over, the first names that fit are kept,
    and the cut says how many more were left out unnamed."""
    results = answer["results"]
    count = len(results)
    costs = [answer_tokens(result) for result in results]
    names = [
        dropped_json(Dropped(r["path"], heading_path(r["breadcrumb"]), r["score"], cost))
        for r, cost in zip(results, costs, strict=True)
    ]
    advice = "ask with a smaller limit"

    def left_out(kept: int, named: int) -> str:
        said = f"the last {count - kept} of {count} results left out"
        unnamed = count - kept - named
        return said + (f" ({unnamed:,} of them not named in dropped)" if unnamed else "")

    def shown(kept: int, named: int) -> dict[str, Any]:
        used = sum(costs[:kept])
        head = {
            **answer,
            "results": results[:kept],
            "dropped": names[kept : kept + named],
            "budget_used": used,
            "explain": _explained(answer.get("explain", []), kept, costs, budget - used, budget),
        }
        if kept < count:
            said = f"{left_out(kept, named)} to stay within {budget:,} tokens; {advice}"
            head["cut"] = said
        return head

    whole = shown(count, 0)
    if answer_tokens(whole) <= budget:
        return whole
    kept = _most(lambda kept: answer_tokens(shown(kept, count - kept)) <= budget, 1, count - 1)
    named = _most(lambda named: answer_tokens(shown(kept, named)) <= budget, 0, count - kept)
    gone = left_out(kept, named) if kept < count else ""
    return _still_over(shown(kept, named), gone, advice, budget)


def _most(fits: Callable[[int], bool], low: int, high: int) -> int:
    """The largest n from `low` to `high` for which `fits(n)` (which holds for every smaller n
    when it holds for n: fewer items always take fewer tokens); `low` when none does."""
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _explained(
    explain: list[dict[str, Any]], kept: int, costs: list[int], left: int, budget: int
) -> list[dict[str, Any]]:
    """The explained notes once only the first `kept` results are shown: a note shown past
    them was left out by this budget (search/explain.py says so in the same words)."""
    judged = []
    for item in explain:
        rank = item.get("rank")
        if item.get("verdict") in ("shown", "merged") and isinstance(rank, int) and rank > kept:
            needed = costs[rank - 1]
            item = {
                **item,
                "verdict": "cut_by_budget",
                "sentence": budget_sentence(item["note"], rank, needed, max(0, left), budget),
                "tokens": needed,
                "tokens_left": max(0, left),
            }
        judged.append(item)
    return judged


def _still_over(smaller: dict[str, Any], gone: str, advice: str, budget: int) -> dict[str, Any]:
    """`smaller`, whose `cut` says it is over the budget when even that is (`gone` names what
    was left out, "" for nothing): not that it fits."""
    tokens = answer_tokens(smaller)
    if tokens > budget:
        said = f"{gone}, and" if gone else "nothing to leave out:"
        smaller["cut"] = (
            f"{said} what is left is still about {tokens:,} tokens, over the budget of "
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
