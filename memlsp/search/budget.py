"""The token budget over a search's results: which it keeps, which it leaves out and what each
would have cost, and the one sentence that says so (in `warnings`, and as the text form's cut).

The budget counts words (`hit_tokens`: a result's text and its linked notes), as `search
--budget-tokens` says; an agent's answers are measured on their JSON instead (agent/budget.py),
which names what it leaves out with the same `Dropped` values.
"""

from __future__ import annotations

from collections.abc import Sequence

from memlsp.model import BudgetCut, Dropped, Hit, heading_path
from memlsp.parse.tokens import estimate_tokens
from memlsp.text import counted


def hit_tokens(hit: Hit) -> int:
    neighbours = hit.outlinks + hit.inlinks
    return estimate_tokens(hit.chunk.text) + sum(
        estimate_tokens(f"{n.path} {n.name} {n.description}") for n in neighbours
    )


def _dropped(hit: Hit, tokens: int) -> Dropped:
    return Dropped(hit.chunk.path, heading_path(hit.chunk.breadcrumb), hit.score, tokens)


def within_budget(
    hits: Sequence[Hit], budget_tokens: int | None
) -> tuple[list[Hit], BudgetCut | None]:
    """Results in order while they fit the budget, the first always; and what the budget did
    (None when there is none). The results kept and those dropped are, in order, `hits`."""
    if budget_tokens is None:
        return list(hits), None
    costs = [hit_tokens(hit) for hit in hits]
    kept = 0
    used = 0
    for cost in costs:
        if kept and used + cost > budget_tokens:
            break
        kept += 1
        used += cost
    left = tuple(_dropped(hit, cost) for hit, cost in zip(hits[kept:], costs[kept:], strict=True))
    return list(hits[:kept]), BudgetCut(budget_tokens, used, left)


def cut_sentence(cut: BudgetCut | None) -> str:
    """What the budget left out, in words: "" when it left nothing out."""
    if cut is None or not cut.dropped:
        return ""
    left = counted(len(cut.dropped), "more result")
    return (
        f"{left} left out to stay within {counted(cut.budget_tokens, 'token')} (budget_tokens); "
        f"{cut.budget_used:,} used"
    )


def cut_warnings(cut: BudgetCut | None) -> list[str]:
    """The warning an answer adds for its budget: the sentence, when there is one."""
    sentence = cut_sentence(cut)
    return [sentence] if sentence else []
