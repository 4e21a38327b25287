"""Text preparation for keyword search and token estimates.

tantivy's tokenizers keep a whole run of Chinese characters as one token, so a word inside a run
could never be found. Before text reaches the index (and before a query is analysed) every CJK run
is segmented with jieba's search mode, which emits each word and the shorter words inside it
(`中华人民共和国` -> 中华, 华人, 人民, 共和, 共和国, 中华人民共和国), separated by spaces.
Latin text passes through untouched; the index's analyzer lower-cases and stems it.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from functools import partial

from memlsp.text import CJK_CLASS as _CJK_CLASS
from memlsp.text import CJK_RUN as _CJK_RUN
from memlsp.text import has_cjk as has_cjk

_TOKEN = re.compile(f"[{_CJK_CLASS}]|[^\\W{_CJK_CLASS}]+")
# A word with a letter in it (numbers and list numbers alone are not words), tried only where a
# word starts, so a long run of digits is read once.
_WORD = re.compile(
    f"[{_CJK_CLASS}]|(?<![^\\W{_CJK_CLASS}])[\\d_]*+[^\\W\\d_{_CJK_CLASS}][^\\W{_CJK_CLASS}]*+"
)

_segmenter: Callable[[str], Iterable[str]] | None = None
_segmenter_lock = threading.Lock()


def _jieba_cut() -> Callable[[str], Iterable[str]]:
    global _segmenter
    with _segmenter_lock:
        if _segmenter is None:
            import jieba

            jieba.setLogLevel(logging.WARNING)
            jieba.initialize()
            # Without the HMM pass for unknown words: 20% faster, and an unknown word falls apart
            # into single characters the same way in notes and in queries, so it still matches.
            _segmenter = partial(jieba.cut_for_search, HMM=False)
        return _segmenter


def warm_up() -> None:
    """Load jieba's dictionary (0.5-1 s) ahead of the first Chinese text."""
    _jieba_cut()


def dictionary() -> tuple[Mapping[str, int], int]:
    """jieba's loaded dictionary: each word's frequency (a word's prefixes are there too, with
    0), and the sum of all frequencies. The same objects jieba cuts with: read, never changed."""
    _jieba_cut()
    import jieba

    return jieba.dt.FREQ, jieba.dt.total


def segment(text: str) -> str:
    """The text with every CJK run replaced by its space-separated words."""
    if not has_cjk(text):
        return text
    cut = _jieba_cut()
    return _CJK_RUN.sub(lambda run: " " + " ".join(cut(run.group())) + " ", text)


def separate_cjk(text: str) -> str:
    """The text with CJK runs set apart by spaces but not segmented (no dictionary needed)."""
    return _CJK_RUN.sub(lambda run: f" {run.group()} ", text)


def estimate_tokens(text: str) -> int:
    """A Latin word or a CJK character counts as one token."""
    # Counting replacements builds no list of tokens (a 3-million-character CJK text would make
    # one string per character).
    return _TOKEN.subn("", text)[1]


def count_words(text: str) -> int:
    """Words with a letter in them; a CJK character counts as one."""
    return _WORD.subn("", text)[1]
