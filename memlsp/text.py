"""Small text rules every layer needs the same answer to: a path's file name and stem, and which
characters are CJK.

They live at the bottom layer so that the parser, the embedder, the link table and the editor
features cannot drift apart: a note's default title, its name in link resolution and its label in
a result list are all the same stem.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

# The one CJK class: Hiragana and Katakana (U+3040-30FF), CJK Unified Ideographs Extension A and
# the main block (U+3400-4DBF, U+4E00-9FFF), CJK Compatibility Ideographs (U+F900-FAFF) and Hangul
# syllables (U+AC00-D7AF). The keyword side cuts runs of these into words (jieba) or single
# characters, and the embedder reads text made mostly of them with its CJK model. The
# tokenizer's class was kept rather than the embedder's wider U+3040-9FFF: it decides which terms
# the keyword index holds, so widening it would make existing indexes and new queries disagree.
# What only the embedder counted before: Bopomofo (U+3100-312F, U+31A0-31BF), Hangul
# compatibility jamo (U+3130-318F) and Katakana phonetic extensions (U+31F0-31FF); rare in notes,
# they now count as Latin-side letters there too.
CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
CJK_RUN = re.compile(f"[{CJK_CLASS}]+")


def cjk_letters(text: str) -> int:
    """How many letters of the text are CJK (the class also holds a few marks, such as the
    Katakana middle dot, that are not letters)."""
    return sum(map(str.isalpha, "".join(CJK_RUN.findall(text))))


def has_cjk(text: str) -> bool:
    return CJK_RUN.search(text) is not None


def from_home(path: str) -> bool:
    """Whether a path starts at a home folder, as a shell reads `~/notes` or `~me/notes`: a
    vault-relative path never means that, whatever folder a vault may hold."""
    return path == "~" or re.match(r"~[^/]*/", path) is not None


def basename(path: str) -> str:
    """The file name of a vault-relative path (forward slashes): `a/b/c.md` -> `c.md`."""
    return path.rsplit("/", 1)[-1]


def stem(path: str) -> str:
    """The file name without its last suffix: `a/v1.2 notes.md` -> `v1.2 notes`. Only the last
    dot counts, because a note's name may have dots of its own."""
    return basename(path).rsplit(".", 1)[0]


def counted(number: int, noun: str) -> str:
    """ "1 result", "2,048 results": a count and its noun, plural but for one."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def text_hash(text: str) -> str:
    """A note's whole text as `read` and `write` compare it (`expected_hash`): sha256 hex of its
    UTF-8, a lone surrogate an editor's buffer may hold written as its own bytes rather than
    refused. One definition, so that a hash an agent was given is the hash a write checks."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def folded(text: str) -> str:
    """How names and property values are compared: Unicode NFC, case-insensitive (as Obsidian
    compares names)."""
    return unicodedata.normalize("NFC", text).casefold()
