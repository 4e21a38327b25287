"""The distinctive words each question shares with the notes that answer it.

    python benchmarks/word_overlap.py QUERIES.jsonl --vault DIR [--kinds no-shared-word] [--strict]
        [--against names]

A question written to share no word with its answer is only a test of search by meaning if the
keyword index agrees that it shares none: words are compared as memlsp's analyzer makes its terms
(lower case, English stems, Chinese cut into words), after dropping the common words that a query
loses anyway (`memlsp.parse.stopwords`). A note is its whole file, frontmatter included, and its
file name, which is its title when it has none of its own. With `--against names` a note is only
what names it: its file name, title, aliases, headings and tags (a question may then share words
with the body, as a reader who half-remembers a note does). `--strict` exits 1 if a question of the
chosen kinds shares a word.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from bench_vaults import read_questions

from memlsp.index.keyword import KeywordIndex, KeywordReader
from memlsp.parse.markdown import parse_markdown
from memlsp.parse.stopwords import COMMON_WORDS


def distinctive_terms(reader: KeywordReader, text: str) -> set[str]:
    """The index terms of `text`, common words left out (both as written and as analyzed)."""
    return {
        term
        for term in reader.terms(text)
        if term not in COMMON_WORDS and term not in reader.common_terms
    }


def note_text(vault: Path, relative: str) -> str:
    path = vault / relative
    return f"{path.stem}\n{path.read_text(encoding='utf-8', errors='replace')}"


def note_names(vault: Path, relative: str) -> str:
    """What names a note: its file name, title, aliases, headings and tags."""
    path = vault / relative
    note = parse_markdown(relative, path.read_text(encoding="utf-8", errors="replace"))
    names = [path.stem, note.title, *note.aliases]
    names += [heading.text for heading in note.headings]
    names += [tag.name.replace("/", " ") for tag in note.tags]
    return "\n".join(names)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("queries", type=Path, help="JSONL of {id, query, relevant, kind}")
    parser.add_argument("--vault", type=Path, required=True, help="the vault the notes are in")
    parser.add_argument("--kinds", help="comma-separated kinds to look at (default: all)")
    parser.add_argument(
        "--against",
        choices=("text", "names"),
        default="text",
        help="compare with the whole note (default) or only what names it",
    )
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 if any question shares a word"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    kinds = {kind for kind in (args.kinds or "").split(",") if kind}
    questions = [q for q in read_questions(args.queries) if not kinds or q.kind in kinds]
    reader = KeywordIndex(None).reader()  # in memory: only its analyzer is used
    notes: dict[str, set[str]] = {}
    read_note = note_names if args.against == "names" else note_text
    clean = 0
    for q in questions:
        query_terms = distinctive_terms(reader, q.query)
        print(f"{q.id} [{q.kind}] {q.query}")
        shared_any = False
        for relevant in q.relevant:
            if relevant not in notes:
                notes[relevant] = distinctive_terms(reader, read_note(args.vault, relevant))
            shared = sorted(query_terms & notes[relevant])
            shared_any = shared_any or bool(shared)
            print(f"    {relevant}: {', '.join(shared) if shared else '-'}")
        clean += not shared_any
    print(f"\n{clean} of {len(questions)} questions share no distinctive word with their notes")
    return 1 if args.strict and clean < len(questions) else 0


if __name__ == "__main__":
    sys.exit(main())
