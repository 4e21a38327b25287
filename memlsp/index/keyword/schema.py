"""The keyword index's fields and analyzer: what a chunk is stored as, how text becomes terms.

Text reaches the analyzer pre-segmented (`parse.tokens`), and the analyzer (regex words, lower
case, English stemming) must be registered again on every open: tantivy does not store custom
tokenizers with the index. `FORMAT_VERSION` names this layout; an index written in another is
rebuilt (`writer.py`).
"""

from __future__ import annotations

import functools

import tantivy

from memlsp.parse.tokens import segment, separate_cjk

FORMAT_VERSION = 1
ANALYZER = "memlsp"  # the name the analyzer is registered under
# Chunk text already holds its heading line (and an H1 title), so the extra fields only nudge.
# Measured on SciFact train (809 queries, nDCG@10): title boost 2.0 -> 0.611, 1.0 -> 0.671,
# 0.5 -> 0.693, 0.25 -> 0.705, 0 -> 0.702. A short field's BM25 swamps the body when boosted.
FIELD_BOOSTS = {"text": 1.0, "title": 0.25, "aliases": 0.5, "headings": 0.5}
NAME_FIELDS = ("title", "aliases")


def build_analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(r"[\p{L}\p{N}_]+"))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


@functools.lru_cache(maxsize=16_384)
def name_terms(text: str, segment_cjk: bool) -> frozenset[str]:
    """The index terms of a short text that many searches read again, such as a note's
    description: analysed once (Chinese through jieba costs a fraction of a millisecond each
    time), then remembered. The analyzer is the same for every index."""
    return frozenset(_SHARED_ANALYZER.analyze(segment(text) if segment_cjk else separate_cjk(text)))


_SHARED_ANALYZER = build_analyzer()


def build_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("path", stored=True, tokenizer_name="raw")
    for name in FIELD_BOOSTS:
        builder.add_text_field(name, stored=False, tokenizer_name=ANALYZER)
    builder.add_bytes_field("content", stored=True)
    builder.add_bytes_field("breadcrumb", stored=True)
    builder.add_integer_field("start_line", stored=True)
    builder.add_integer_field("end_line", stored=True)
    builder.add_integer_field("date", stored=False, indexed=True, fast=True)
    return builder.build()
