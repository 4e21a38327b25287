"""How strongly a query is answered at all, on a scale that means the same for every query.

The fused score (search/fusion.py) orders one query's candidates, but it is relative: the first
result always scores 1.0, whether it answers the question or is only the least bad neighbour.
Each side has an absolute measure too:
- keyword: the share of the query's words a chunk contains, each word weighted by its rarity in
  the vault (idf), so matching "the" and "how" is nothing and matching every rare word is 1.0. A
  word the vault never uses counts at full rarity: a question about something the notes never
  mention cannot be well matched by the words they do share with it;
- vector: cosine similarity placed between the embedder's `SimilarityScale` ends, measured on
  development sets (benchmarks/calibrate.py): `low` is the typical best similarity of questions
  no note answers, `high` that of questions with an exact answer. Below the scale's `floor`,
  lower still, a chunk found only by meaning is not a result at all.
A query's strength is the best evidence among its first candidates, and every result's score is
its fused score times that strength: the order is the fusion's, and `--min-score` cuts the same
amount of doubt from every query.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

STRENGTH_DEPTH = 10  # candidates per side whose evidence can make the query's strength
KEYWORD_POWER = 3  # partial overlap with common-ish words is weak evidence (calibrate.py)
# In fusion a keyword candidate's evidence is its coverage squared, scaled between three
# quarters and all of itself by its BM25 score relative to the side's best, so that among chunks
# with the same words the one that uses them most leads. Chosen on development sets
# (fusion_study.py): coverage cubed cost 0.02 to 0.05 on questions in the notes' own words, to
# the first power as much on reworded ones; BM25's share moved every set by less than 0.01.
FUSION_POWER = 2
BM25_SHARE = 0.25


def coverage(
    matched: Iterable[str],
    weights: Mapping[str, float],
    translated: Mapping[str, str] | None = None,
    share: float = 0.0,
) -> float:
    """The idf-weighted share of the query's words (`weights`) found among `matched`; a word
    found only through a translation of it (`translated`: translated term -> query term) counts
    `share` of itself (the `translated_share` setting)."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    found = set(matched)
    own = sum(weights.get(term, 0.0) for term in found)
    if not translated:
        return own / total
    through = {translated[term] for term in found if term in translated} - found
    return (own + share * sum(weights.get(term, 0.0) for term in through)) / total


def keyword_evidence(coverages: Sequence[float], scores: Sequence[float]) -> list[float]:
    """Each keyword candidate's evidence for fusion, from its coverage and BM25 score."""
    high, low = max(scores, default=0.0), min(scores, default=0.0)
    spread = high - low
    return [
        cover**FUSION_POWER
        * (1.0 - BM25_SHARE + BM25_SHARE * ((s - low) / spread if spread else 1.0))
        for cover, s in zip(coverages, scores, strict=True)
    ]


def strength(keyword_coverages: Iterable[float], meanings: Iterable[float]) -> float:
    """The query's best evidence on either side, in [0, 1]: the keyword side's best coverage
    (raised to KEYWORD_POWER) or the vector side's best `SimilarityScale.evidence`."""
    best_keyword = max(keyword_coverages, default=0.0) ** KEYWORD_POWER
    return max(best_keyword, max(meanings, default=0.0))
