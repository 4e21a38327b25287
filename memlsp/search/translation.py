"""A query's words in the other language, for the keyword side.

A question in English about a Chinese note shares no word with it, and neither does a question in
Chinese about an English note: the keyword side has no evidence for either, and the vector side
alone decides. A dictionary (index/dictionary.py, CC-CEDICT) gives each word of the query its
likely words in the other language, which the keyword side also looks for, each counting the
`translated_share` setting of the word it translates (search/evidence.py `coverage`).

Only a question in the language the vault is written in less is translated, into the one it is
written in more, as told by each language's most common word (`MARKERS`): a Chinese question in
a Chinese vault keeps to its own words, and so does an English one in an English vault. Of a
Chinese query, a word inside a longer one the dictionary has is not read (番茄酱, not also 番茄).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memlsp.index.dictionary import BilingualDictionary
from memlsp.index.keyword import KeywordReader
from memlsp.parse.stopwords import COMMON_WORDS
from memlsp.parse.tokens import dictionary as jieba_words
from memlsp.parse.tokens import has_cjk

# Each language's most common word: the chunks that have it tell how much of the vault is in it.
MARKERS = {"chinese": "的", "english": "the"}


def translated_terms(
    terms: Sequence[str],
    reader: KeywordReader,
    dictionary: Callable[[], BilingualDictionary | None],
) -> dict[str, str]:
    """The index terms of the other language's words for a query's `terms`, each -> the query
    term it translates; `dictionary` gives the dictionary, asked only when there is something
    to translate. Common words, the query's own terms and terms no chunk has are left out."""
    chunks = reader.term_stats(list(MARKERS.values())).frequencies
    chinese_vault = chunks[MARKERS["chinese"]] > chunks[MARKERS["english"]]
    foreign = [term for term in terms if has_cjk(term) != chinese_vault]
    words = dictionary() if foreign else None
    if words is None:
        return {}
    found = words.chinese(foreign) if chinese_vault else outermost(words.english(foreign))
    own = set(terms)
    translated: dict[str, str] = {}
    for source, other in found.items():
        for term in word_terms(other, reader):
            if term not in own and term not in COMMON_WORDS and term not in reader.common_terms:
                translated.setdefault(term, source)
    known = reader.term_stats(list(translated)).frequencies
    return {term: source for term, source in translated.items() if known.get(term)}


def word_terms(words: str, reader: KeywordReader) -> list[str]:
    """The index terms of space-separated words: a Chinese word jieba knows is one term, as the
    index has it wherever it occurs (its pieces would only add other words' partial matches and
    cost the search a term each); any other word is cut as the index cuts text."""
    frequency, _ = jieba_words()
    terms: list[str] = []
    for word in words.split():
        terms.extend([word] if has_cjk(word) and frequency.get(word) else reader.terms(word))
    return terms


def outermost(found: dict[str, str]) -> dict[str, str]:
    """The words found that are not inside a longer word found (a query's search-mode
    segmentation lists 中华人民共和国 and also 中华, 人民 inside it)."""
    return {
        word: other
        for word, other in found.items()
        if not any(word != longer and word in longer for longer in found)
    }
