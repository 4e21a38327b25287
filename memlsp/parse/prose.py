"""Which chunks are prose, worth a vector: the one place that decides what is embedded.

A vector of markup says nothing about meaning, yet it comes back for any query that nothing else
matches well (a nonsense word found a drawing first). Not prose: a drawing's words (see
`parse.excalidraw`), and a chunk with fewer than `MIN_WORDS` words once images, wikilinks,
addresses, tags, block ids, HTML tags and encoded data are taken out (a heading's words count:
some are whole sentences). A Markdown link's
label stays: a web page's title is often the words a question would use. Such chunks are still in the
keyword index (by their words, never by encoded data), with ids that say so (`chunk_id`).
"""

from __future__ import annotations

import re

from memlsp.model import Chunk
from memlsp.parse.excalidraw import DRAWING_LABEL
from memlsp.parse.tokens import count_words

# Chosen by reading what the rule leaves out of two real vaults, one Chinese and one English: with
# one or two words left a section is a caption, a label or a leftover ("Comment:", "- Breechblock");
# from three on most read as a phrase.
MIN_WORDS = 3
# Ids are hex digests otherwise, so no prose chunk's id starts with this.
NOT_PROSE_MARK = "np-"

# Base64 and the like: a long run of its alphabet without a space (a word, a path or a hash is
# shorter, or broken by `.`, `-` or `_`), and the `data:` prefix of a data URI.
_BLOB = r"[A-Za-z0-9+/]{100,}={0,2}"
_BLOBS = re.compile(_BLOB)
_DATA_URI = r"data:[\w.+/-]*;base64,"
_DATA_URIS = re.compile(_DATA_URI)
# Each alternative stops at the next bracket (and is used on one line), so a line is read a
# bounded number of times whatever it holds.
_NOT_WORDS = re.compile(
    "|".join(
        (
            r"!?\[\[[^\[\]\n]*\]\]",  # wikilinks and embeds: names of other notes and files
            r"!\[[^\[\]\n]*\]\([^()\n]*\)",  # images, with their alt text
            r"(?<=\])\([^()\n]*\)",  # a Markdown link's address (its label is read)
            r"\[[!^][^\[\]\n]*\]",  # callout types, footnote references
            r"<[^<>\n]*>",  # HTML tags and autolinks
            r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+",  # bare addresses
            r"(?<![\w&])#[^\s#]+",  # tags
            r"(?<!\S)\^[\w-]+",  # block ids
            _BLOB,
            _DATA_URI,
        )
    )
)


def is_prose(chunk: Chunk) -> bool:
    """Whether the chunk gets a vector."""
    if len(chunk.breadcrumb) > 1 and chunk.breadcrumb[-1] == DRAWING_LABEL:
        return False
    # Line by line, stopping at enough words: most chunks are decided by their first line.
    words = 0
    for line in chunk.text.split("\n"):
        words += count_words(_NOT_WORDS.sub(" ", line))
        if words >= MIN_WORDS:
            return True
    return False


def chunk_id(digest: str, prose: bool) -> str:
    """A chunk's id from the hash of what it holds: the id itself says whether it is embedded, so
    the vector side can plan from ids alone (what a note's record keeps) in any process."""
    return digest[:20] if prose else NOT_PROSE_MARK + digest[: 20 - len(NOT_PROSE_MARK)]


def embeds(chunk_id: str) -> bool:
    """Whether the chunk with this id gets a vector (`is_prose` when its id was made)."""
    return not chunk_id.startswith(NOT_PROSE_MARK)


def without_blobs(text: str) -> str:
    """The text with encoded data (base64 runs, data URIs) blanked: nothing to search by."""
    if len(text) < 100:
        return text
    text = _BLOBS.sub(" ", text)
    return _DATA_URIS.sub(" ", text) if "base64," in text else text
