"""Why a note is, or is not, in a search's answer: one verdict of a fixed vocabulary
(`model.VERDICTS`), the evidence it rests on, and one sentence a person reads.

Pure: it reads the search's `Ranking` (search/hybrid.py) and what the snapshot found out about
the note beforehand (`Asked`: whether its file is a note, whether it changed on disk since the
index read it, what each side finds in it alone). A verdict is never a guess: each is the first
step of the search that left the note out, in the order the search takes them.

`explain_ranked` judges the results before the token budget; `placed` then judges them against
the answer as it is shown (after the budget, and in the language server after the vaults'
answers are merged), which decides `shown`, `cut_by_budget` and `linked_only`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from memlsp.model import (
    BudgetCut,
    Chunk,
    Explanation,
    Facts,
    Hit,
    KeywordEvidence,
    SearchRequest,
    VectorEvidence,
    Verdict,
    heading_path,
)
from memlsp.search.budget import hit_tokens
from memlsp.search.hybrid import Ranking
from memlsp.search.scope import NoteScope
from memlsp.text import counted
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.names import name_key

NO_FACTS = Facts()


@dataclass(frozen=True, slots=True)
class Asked:
    """A note a search is asked to explain, with what the snapshot found out about it."""

    note: str  # as it was asked for
    path: str | None  # the vault-relative path it names; None when it names no file
    heading: str | None = None  # a section asked for (`name#Heading`), as written
    # Why the file is not a note, in words ("" when it is one, or would be once indexed)
    not_a_note: str = ""
    not_a_note_reason: str = ""  # that reason's name (`missing`, `ignored`, `too_large` ...)
    unseen: str = ""  # how its file changed on disk since the index read it ("" when it did not)
    # The note alone on each side: its best section's BM25 score and the query terms in it
    # (None: none), and its best similarity to the query (None: not asked, or no vector).
    keyword_score: float | None = None
    keyword_terms: frozenset[str] = frozenset()
    similarity: float | None = None
    embedded: bool = False
    vector_floor: float = -1.0  # below it a chunk found by its vector alone is no candidate


def explain_ranked(
    ranking: Ranking, graph: LinkGraph, asked: Asked, words: Mapping[str, str] | None = None
) -> Explanation:
    """The verdict for `asked` against the results before the budget (`ranking.listed`).
    `words`: the query's words by the index terms they gave (`reciprocal` for `reciproc`),
    which the sentences name instead of the terms."""
    words = words or {}
    request = ranking.request
    if asked.path is None or asked.path not in graph.notes:
        return _not_in_index(asked)
    keyword, vector = _evidence(ranking, asked)

    def verdict(name: Verdict, sentence: str, facts: Facts = NO_FACTS) -> Explanation:
        return Explanation(asked.note, asked.path, name, sentence, keyword, vector, facts)

    title = _title(asked)
    for rank, hit in enumerate(ranking.listed, 1):
        if hit.chunk.path != asked.path or not _section_matches(hit.chunk, asked, request):
            continue
        section = heading_path(hit.chunk.breadcrumb)
        facts = Facts(rank=rank, score=hit.score, heading=section)
        if asked.heading and not _heading_is(hit.chunk, asked.heading):
            return verdict(
                "merged",
                f"{title} is not listed on its own: its note is result {rank}, shown at "
                f"{_section_words(section)}; a note is listed once, at its best section "
                "(ask for sections to list each one).",
                facts,
            )
        return verdict("shown", f"{title} is result {rank}, at {_section_words(section)}.", facts)
    if asked.unseen:
        return verdict(
            "not_indexed_yet",
            f"{title} {asked.unseen}; the index has not read it since, so the search answered "
            "from its older text.",
        )
    left_out = _filtered(request, graph, asked.path)
    if left_out is not None:
        return verdict("filtered", f"{title} {left_out[1]}.", Facts(filter=left_out[0]))
    close = _close_enough(asked, vector)
    has_evidence = keyword.score is not None or close
    if ranking.weak and has_evidence:
        return verdict(
            "below_floor",
            f"Nothing was shown: the query's best evidence ({ranking.strength:.2f}) is below "
            f"min-strength {ranking.min_strength:.2f}, so no note is an answer; {title} was "
            "among the weak candidates.",
            Facts(
                floor="min_strength", floor_value=ranking.min_strength, strength=ranking.strength
            ),
        )
    place = _place(ranking, asked)
    if place is not None:
        rank, score = place
        if score < request.min_score:
            return verdict(
                "below_floor",
                f"{title} scores {score:.2f}, below min-score {request.min_score:.2f}.",
                Facts(floor="min_score", floor_value=request.min_score, rank=rank, score=score),
            )
        last = ranking.listed[-1].score if ranking.listed else None
        shown = f", and the last result shown scores {last:.2f}" if last is not None else ""
        return verdict(
            "beyond_limit",
            f"{title} ranks {rank} (score {score:.2f}); the limit is {request.limit}{shown}.",
            Facts(rank=rank, score=score, limit=request.limit, last_score=last),
        )
    if not ranking.unknown_words and ranking.keyword_ran and keyword.score is not None:
        return verdict(
            "beyond_limit",
            f"{title} holds {_terms(keyword.matched_terms, words)} of the query but is not among the "
            f"first {ranking.candidates:,} sections the keyword side ranks; more results "
            "(a higher limit) reach further.",
            Facts(limit=request.limit, candidates=ranking.candidates),
        )
    if not ranking.unknown_words and ranking.vector_ran and close:
        return verdict(
            "beyond_limit",
            f"{title} is close in meaning (similarity {_similarity(vector)}) but not among the "
            f"first {ranking.candidates:,} sections nearest the query; more results (a higher "
            "limit) reach further.",
            Facts(limit=request.limit, candidates=ranking.candidates),
        )
    return verdict(
        "no_evidence",
        _no_evidence(ranking, asked, title, words),
        Facts(terms=_listed(ranking.terms, words)),
    )


def placed(
    explained: Sequence[Explanation],
    hits: Sequence[Hit],
    listed: Sequence[Hit],
    budget: BudgetCut | None,
) -> tuple[Explanation, ...]:
    """The verdicts against the answer as shown: `hits` (what the budget kept of `listed`, the
    results it was given), and `budget`, what it did. A note ranked among `listed` but not shown
    was cut by the budget, or, in a merged answer, by the merged limit; a note not a result but
    listed as a link of one is `linked_only`."""
    return tuple(_placed(item, hits, listed, budget) for item in explained)


def budget_sentence(note: str, rank: int, needed: int, left: int, budget: int) -> str:
    """`cut_by_budget` in words: the result's rank, what it needs and what the budget had left."""
    return (
        f"{_quoted(note)} is result {rank}, but the token budget left it out: it needs "
        f"{counted(needed, 'token')} and {left:,} of {budget:,} were left."
    )


def merged_verdicts(
    answers: Sequence[Sequence[Explanation]],
) -> list[tuple[Explanation, int | None]]:
    """Of several vaults' verdicts on the same notes (each vault's in the order asked), each
    note's from the vault that holds it (the first that has it as a note), with that vault's
    index; the first vault's when none does, and None."""
    if not answers:
        return []
    chosen: list[tuple[Explanation, int | None]] = []
    for place, first in enumerate(answers[0]):
        pick: tuple[Explanation, int | None] = (first, None)
        for index, answer in enumerate(answers):
            item = answer[place]
            if item.verdict != "not_a_note" or item.facts.reason != "missing":
                pick = (item, index)
                break
        chosen.append(pick)
    return chosen


def _placed(
    item: Explanation, hits: Sequence[Hit], listed: Sequence[Hit], budget: BudgetCut | None
) -> Explanation:
    facts = item.facts
    title = _quoted(item.note)
    if item.verdict in ("shown", "merged"):
        for rank, hit in enumerate(hits, 1):
            if hit.chunk.path == item.path and heading_path(hit.chunk.breadcrumb) == facts.heading:
                if rank == facts.rank:
                    return item
                section = _section_words(heading_path(hit.chunk.breadcrumb))
                return replace(
                    item,
                    sentence=f"{title} is result {rank}, at {section}."
                    if item.verdict == "shown"
                    else item.sentence.replace(f"result {facts.rank}", f"result {rank}"),
                    facts=replace(facts, rank=rank, score=hit.score),
                )
        kept = {id(hit) for hit in hits}
        for rank, hit in enumerate(listed, 1):
            if hit.chunk.path != item.path or id(hit) in kept:
                continue
            if budget is not None and budget.dropped:
                needed = hit_tokens(hit)
                left = max(0, budget.budget_tokens - budget.budget_used)
                return replace(
                    item,
                    verdict="cut_by_budget",
                    sentence=budget_sentence(item.note, rank, needed, left, budget.budget_tokens),
                    facts=replace(facts, rank=rank, tokens=needed, tokens_left=left),
                )
        return replace(
            item,
            verdict="beyond_limit",
            sentence=f"{title} ranks after the results shown (the limit is reached by the "
            "results of other vaults).",
        )
    if item.verdict in ("not_a_note",):
        return item
    for rank, hit in enumerate(hits, 1):
        if any(n.path == item.path for n in (*hit.outlinks, *hit.inlinks)):
            return replace(
                item,
                verdict="linked_only",
                sentence=f"{title} appears only as a link of result {rank}, "
                f"{_quoted(hit.title)} ({hit.chunk.path}). {item.sentence}",
                facts=replace(facts, linked_from=hit.chunk.path, linked_rank=rank),
            )
    return item


def _not_in_index(asked: Asked) -> Explanation:
    title = _title(asked)
    if asked.not_a_note:
        return Explanation(
            asked.note,
            asked.path,
            "not_a_note",
            f"{title} is not a note: {asked.not_a_note}.",
            facts=Facts(reason=asked.not_a_note_reason),
        )
    return Explanation(
        asked.note,
        asked.path,
        "not_indexed_yet",
        f"{title} {asked.unseen or 'is a note on disk that the index has not read yet'}.",
    )


def _evidence(ranking: Ranking, asked: Asked) -> tuple[KeywordEvidence, VectorEvidence | None]:
    """Each side's evidence for the note: its best candidate section's, else the note's own."""
    keyword_rank = _best_rank(ranking.keyword_ranks, ranking, asked.path)
    if keyword_rank is not None:
        key, rank = keyword_rank
        terms = ranking.matched.get(key, frozenset())
        keyword = KeywordEvidence(
            rank, ranking.keyword_scores.get(key), tuple(t for t in ranking.terms if t in terms)
        )
    else:
        keyword = KeywordEvidence(
            None,
            asked.keyword_score,
            tuple(t for t in ranking.terms if t in asked.keyword_terms),
        )
    if not ranking.vector_ran:
        return keyword, None
    vector_rank = _best_rank(ranking.vector_ranks, ranking, asked.path)
    if vector_rank is not None:
        key, rank = vector_rank
        return keyword, VectorEvidence(rank, ranking.similarities.get(key), True)
    return keyword, VectorEvidence(None, asked.similarity, asked.embedded)


def _best_rank(
    ranks: Mapping[str, int], ranking: Ranking, path: str | None
) -> tuple[str, int] | None:
    """The note's best ranked section on a side, and its rank; None when none is a candidate."""
    found = [
        (rank, key)
        for key, rank in ranks.items()
        if key in ranking.chunks and ranking.chunks[key].path == path
    ]
    if not found:
        return None
    rank, key = min(found)
    return key, rank


def _place(ranking: Ranking, asked: Asked) -> tuple[int, float] | None:
    """The note's rank among the ranked notes (or sections) and the score it shows there."""
    for rank, (item, score) in enumerate(ranking.ranked, 1):
        chunk = ranking.chunks[str(item.key)]
        if chunk.path == asked.path and _section_matches(chunk, asked, ranking.request):
            return rank, score
    return None


def _section_matches(chunk: Chunk, asked: Asked, request: SearchRequest) -> bool:
    """With sections listed on their own, the section asked for is the one judged."""
    return not (request.sections and asked.heading) or _heading_is(chunk, asked.heading)


def _heading_is(chunk: Chunk, heading: str | None) -> bool:
    if not heading:
        return True
    wanted = name_key(heading.strip().strip("#"))
    return wanted in (name_key(heading_path(chunk.breadcrumb)), name_key(chunk.heading))


def _filtered(request: SearchRequest, graph: LinkGraph, path: str) -> tuple[str, str] | None:
    """Which filter of the search leaves the note out, and how, in words."""
    scope = NoteScope.of(request)
    if not scope.admits_path(path):
        return "path", f"is outside the paths searched ({_joined(scope.paths)})"
    note = graph.notes[path]
    if not scope.admits_tags(note):
        tags = _joined(f"#{tag}" for tag in scope.tags)
        has = _joined(f"#{tag.name.lstrip('#')}" for tag in note.tags) or "none"
        return "tag", f"has none of the tags searched ({tags}); its tags: {has}"
    failed = scope.first_failed(note, graph)
    if failed is not None:
        return "property", f"does not hold the property filter {failed.text}"
    if request.start_date or request.end_date:
        dates = f"{request.start_date or 'any date'} to {request.end_date or 'any date'}"
        if note.date is None:
            return "date", f"has no date, and the search asks for notes dated {dates}"
        if not (request.start_date or "") <= note.date <= (request.end_date or "9999-12-31"):
            return "date", f"is dated {note.date}, outside the dates searched ({dates})"
    return None


def _close_enough(asked: Asked, vector: VectorEvidence | None) -> bool:
    """Close enough in meaning to be a candidate: one of the vector side's, or a note whose
    nearest section is above the floor of its scale."""
    if vector is None or vector.similarity is None:
        return False
    return vector.rank is not None or vector.similarity >= asked.vector_floor


def _similarity(vector: VectorEvidence | None) -> str:
    similarity = vector.similarity if vector is not None else None
    return "unknown" if similarity is None else f"{similarity:.2f}"


def _no_evidence(ranking: Ranking, asked: Asked, title: str, words: Mapping[str, str]) -> str:
    if ranking.unknown_words:
        return f"Neither {title} nor any other note holds the query's words, nor does any model know them"
    if not ranking.keyword_ran:
        held = "the keyword side did not run (vector mode)"
    elif not ranking.terms:
        held = "the query has no word the keyword side searches for"
    else:
        held = f"it holds none of the query's words ({_listed(ranking.terms, words)})"
    if not ranking.vector_ran:
        meaning = "its meaning was not compared (no vector side in this search)"
    elif not asked.embedded:
        meaning = "it is not embedded yet, so its meaning could not be compared"
    elif asked.similarity is None:
        meaning = "no section of it has a vector"
    else:
        weakest = [hit.vector_score for hit in ranking.listed if hit.vector_score is not None]
        bar = (
            f"below the {min(weakest):.2f} of the weakest result"
            if weakest and min(weakest) > asked.similarity
            else f"under the {asked.vector_floor:.2f} a section found by meaning alone needs"
        )
        meaning = f"its meaning is far from the query (similarity {asked.similarity:.2f}, {bar})"
    return f"{title}: {held}, and {meaning}."


def _title(asked: Asked) -> str:
    return _quoted(asked.note)


def _quoted(text: str) -> str:
    return f"“{text}”"


def _section_words(section: str) -> str:
    return f"its section “{section}”" if section else "its opening text"


def _terms(terms: Sequence[str], words: Mapping[str, str]) -> str:
    if not terms:
        return "none of the words"
    return f"{counted(len(terms), 'word')} ({_listed(terms, words)})"


def _listed(terms: Sequence[str], words: Mapping[str, str]) -> str:
    return ", ".join(dict.fromkeys(words.get(term, term) for term in terms))


def _joined(items: Iterable[str]) -> str:
    return ", ".join(items)
