"""How many questions hold a name of the vault that jieba cuts apart.

    python benchmarks/names_in_questions.py [--vault ../shared/data/vaults/knowledge-garden]
        [QUERIES.jsonl ...]

Adding a vault's own names (titles, aliases, headings, tags) to the segmenter can only change a
question that holds such a name which jieba's dictionary lacks and cuts into pieces: the question's
terms then gain the whole name. This counts the vault's Chinese names, those jieba does not know,
and for each question file how many questions hold one that their segmentation does not keep
whole, with the first few.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from bench_vaults import read_questions
from common import BENCH_DIR
from dev_set import DEFAULT_VAULT

from memlsp.parse.markdown import parse_markdown
from memlsp.parse.tokens import dictionary, segment

CHINESE_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")
DEFAULT_SETS = ("knowledge_garden_queries", "knowledge_garden_hard", "knowledge_garden_en")


def vault_names(vault: Path) -> set[str]:
    names: set[str] = set()
    for path in vault.rglob("*.md"):
        relative = path.relative_to(vault).as_posix()
        if any(part.startswith(".") for part in relative.split("/")):
            continue
        note = parse_markdown(relative, path.read_text(encoding="utf-8", errors="replace"))
        fields = (path.stem, note.title, *note.aliases, *(h.text for h in note.headings))
        for name in (*fields, *(tag.name for tag in note.tags)):
            names.update(CHINESE_RUN.findall(name))
    return names


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("queries", type=Path, nargs="*")
    args = parser.parse_args(argv)
    if not args.vault.is_dir():
        print(f"vault not found: {args.vault}; pass --vault DIR")
        return 0
    files = args.queries or [BENCH_DIR / "data" / f"{name}.jsonl" for name in DEFAULT_SETS]
    names = vault_names(args.vault)
    frequency, _ = dictionary()
    unknown = {name for name in names if name not in frequency and len(name) >= 3}
    print(
        f"{len(names)} Chinese names in the vault, {len(unknown)} of 3+ characters unknown to jieba"
    )
    for file in files:
        questions = read_questions(file)
        holding = []
        for q in questions:
            terms = set(segment(q.query).split())
            cut = sorted(name for name in unknown if name in q.query and name not in terms)
            if cut:
                holding.append(f"{q.id} {'/'.join(cut[:3])}")
        print(
            f"{file.name}: {len(holding)} of {len(questions)} questions: {', '.join(holding[:8])}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
