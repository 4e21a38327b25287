"""Check the related-notes judgements against their vaults and print their counts.

    python benchmarks/check_related_set.py [--vaults ../shared/data/vaults] [--sets vaultofknowledge]

Each set is `data/related_<vault>.jsonl`, one line per judged note:
`{"note": "path.md", "related": ["path.md", ...], "why": "..."}`, with vault-relative paths.
For every line it checks that the note and each related note exist in the vault, that a note does
not list itself, that no related note is listed twice, that it lists 3 to 8 related notes and has
a `why`, and that no note is judged twice in one set. It prints, per set, the notes judged, the
related notes listed (total, mean, min and max per note, distinct), how many top-level folders the
judged notes come from, and every problem found. It exits 1 if there is a problem, 0 otherwise; a
set whose vault is absent is skipped with a message. The vaults are only read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from common import BENCH_DIR, REPO_ROOT

DEFAULT_VAULTS = REPO_ROOT.parent / "shared" / "data" / "vaults"

# set name -> (vault folder under --vaults, judgements file)
SETS = {
    "vaultofknowledge": ("vaultofknowledge", BENCH_DIR / "data" / "related_vaultofknowledge.jsonl"),
    "knowledge-garden": ("knowledge-garden", BENCH_DIR / "data" / "related_knowledge_garden.jsonl"),
}

MIN_RELATED = 3
MAX_RELATED = 8


def check_set(vault: Path, path: Path) -> tuple[list[str], dict[str, object]]:
    """Problems found in one judgements file, and its counts."""
    problems: list[str] = []
    seen_notes: set[str] = set()
    sizes: list[int] = []
    distinct: set[str] = set()
    folders: Counter[str] = Counter()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"{where}: not JSON ({error})")
            continue
        note = record.get("note")
        related = record.get("related")
        why = record.get("why")
        if not isinstance(note, str) or not isinstance(related, list):
            problems.append(f"{where}: needs a string `note` and a list `related`")
            continue
        if not isinstance(why, str) or not why.strip():
            problems.append(f"{where}: `why` is missing or empty")
        if note in seen_notes:
            problems.append(f"{where}: {note!r} is judged twice")
        seen_notes.add(note)
        if not (vault / note).is_file():
            problems.append(f"{where}: note {note!r} is not in the vault")
        if note in related:
            problems.append(f"{where}: {note!r} lists itself")
        for name, count in Counter(related).items():
            if count > 1:
                problems.append(f"{where}: {name!r} is listed {count} times")
        if not MIN_RELATED <= len(related) <= MAX_RELATED:
            problems.append(
                f"{where}: {len(related)} related notes, expected {MIN_RELATED} to {MAX_RELATED}"
            )
        for name in related:
            if not isinstance(name, str) or not (vault / name).is_file():
                problems.append(f"{where}: related {name!r} is not in the vault")
        sizes.append(len(related))
        distinct.update(name for name in related if isinstance(name, str))
        folders[note.split("/", 1)[0] if "/" in note else "(vault root)"] += 1
    counts: dict[str, object] = {
        "notes": len(sizes),
        "related": sum(sizes),
        "mean": sum(sizes) / len(sizes) if sizes else 0.0,
        "min": min(sizes, default=0),
        "max": max(sizes, default=0),
        "distinct": len(distinct),
        "folders": dict(sorted(folders.items())),
    }
    return problems, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--vaults",
        type=Path,
        default=DEFAULT_VAULTS,
        help="folder holding the vaults (default: ../shared/data/vaults)",
    )
    parser.add_argument(
        "--sets",
        default=",".join(SETS),
        help=f"comma-separated sets to check (default: {','.join(SETS)})",
    )
    args = parser.parse_args(argv)

    failed = False
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        if name not in SETS:
            print(f"unknown set {name!r}; known: {', '.join(SETS)}")
            failed = True
            continue
        folder, path = SETS[name]
        vault = args.vaults / folder
        if not vault.is_dir():
            print(f"{name}: vault {vault} is absent, skipped")
            continue
        problems, counts = check_set(vault, path)
        print(
            f"{name}: {counts['notes']} notes, {counts['related']} related "
            f"(mean {counts['mean']:.1f}, min {counts['min']}, max {counts['max']}, "
            f"{counts['distinct']} distinct)"
        )
        folder_counts = counts["folders"]
        assert isinstance(folder_counts, dict)
        print(
            f"  from {len(folder_counts)} top-level folders: "
            + ", ".join(f"{key} {value}" for key, value in folder_counts.items())
        )
        for problem in problems:
            print(f"  PROBLEM {problem}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
