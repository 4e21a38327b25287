"""Where a run of Chinese text is cut into words, with some extra words known besides jieba's.

jieba's most probable segmentation (the DAG of dictionary words at each character, then the route
of highest summed log frequency, as `jieba.cut(..., HMM=False)` does), computed here over jieba's
own loaded dictionary plus a few extra words (a vault's note names), so that the global dictionary
is never changed (which would change how the keyword index cuts text) and no second dictionary is
loaded.

An extra word that jieba knows keeps its frequency; one it does not know gets the frequency of
its most common piece (`suggested_frequency`), so that it stays whole in text, while a longer
dictionary word around it still wins (智能 inside 人工智能 stays inside it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from memlsp.parse.tokens import dictionary


@dataclass(frozen=True, slots=True)
class ExtraWords:
    """Words known besides jieba's dictionary, with the frequency each is given."""

    frequencies: Mapping[str, int]
    prefixes: frozenset[str]  # every prefix of an extra word, so the DAG walks on through it


NO_EXTRA_WORDS = ExtraWords({}, frozenset())


def extra_words(words: Iterable[str]) -> ExtraWords:
    frequencies = {word: suggested_frequency(word) for word in words if word}
    prefixes = frozenset(word[:end] for word in frequencies for end in range(1, len(word) + 1))
    return ExtraWords(frequencies, prefixes)


@lru_cache(maxsize=65_536)  # a vault's names, again at every revision of its graph
def suggested_frequency(word: str) -> int:
    """A word jieba knows keeps its frequency (jieba's judgement stands: 研究生 is not cut out of
    研究生命). A word it does not know gets what jieba's `suggest_freq(word, tune=True)` gives,
    raised to the frequency of its most common piece: `suggest_freq` only makes the word whole
    alone, and in text a dictionary word overlapping its end would still win (知识|花园里)."""
    freq, total = dictionary()
    known = freq.get(word)
    if known:
        return known
    probability = 1.0
    common = 1
    pieces = cuts(word, NO_EXTRA_WORDS)
    for start, end in pairwise(pieces):
        piece = freq.get(word[start:end]) or 1
        probability *= piece / total
        common = max(common, piece)
    return max(int(probability * total) + 1, common)


def cuts(run: str, extra: ExtraWords) -> tuple[int, ...]:
    """The positions (0 and len(run) included) between the words of jieba's most probable
    segmentation of `run`, a run of CJK characters, with `extra`'s words added."""
    freq, total = dictionary()
    extra_freq, extra_prefixes = extra.frequencies, extra.prefixes
    n = len(run)
    log_total = math.log(total)
    score = [0.0] * (n + 1)
    word_end = [n] * (n + 1)
    for start in range(n - 1, -1, -1):
        best_score, best_end = -math.inf, start + 1
        end = start + 1
        while end <= n:
            fragment = run[start:end]
            known = extra_freq.get(fragment)
            if known is None:
                known = freq.get(fragment)
            if known is None and fragment not in extra_prefixes:
                break
            if known:  # 0 marks a prefix of a longer word, not a word
                candidate = math.log(known) - log_total + score[end]
                if candidate >= best_score:  # ties go to the longer word, as in jieba's max()
                    best_score, best_end = candidate, end
            end += 1
        if best_score == -math.inf:  # no word starts here: the character alone, as jieba does
            best_score = -log_total + score[start + 1]
        score[start], word_end[start] = best_score, best_end
    positions = [0]
    at = 0
    while at < n:
        at = word_end[at]
        positions.append(at)
    return tuple(positions)
