"""Search quality on real vaults: note-level nDCG@10 and recall@10 per mode, per kind of question.

    python benchmarks/bench_vaults.py [--vaults ../shared/data/vaults] [--sets vaultofknowledge]
        [--cache-dir benchmarks/build/cache] [--dump benchmarks/build/vaults.json]

Each set is a vault of the shared data folder and our questions about it (`data/*.jsonl`:
`{"id", "query", "relevant", "kind"}`, written by reading the notes; kinds `paraphrase`, `keyword`,
`cross-lingual`, and in the hard set `no-shared-word`, `zh-en`, `title`, `natural`). Two sets may
ask about one vault (`vaultofknowledge-hard` is more questions about `vaultofknowledge`): they
share its index. The vault is read where it is, never copied or written: `memlsp index VAULT
--cache-dir DIR` with the default embedder, as a user runs it (DIR is kept between runs, so each
vault is embedded once), then ONE batch `memlsp search --queries FILE --json --limit 200
--no-expand --mode M` per mode. A note counts once, at the rank of its best chunk. `--dump FILE`
writes every query's results of each mode with the evidence of both sides, for tuning the fusion
offline. A set whose vault is absent is skipped with a message. Every judged path must exist in
its vault, or the run stops before searching (`--check` checks only that).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from common import (
    BENCH_DIR,
    REPO_ROOT,
    batch_results,
    dump_results,
    memlsp,
    result_paths,
    write_dump,
)
from metrics import dedupe, evaluate_groups

DEFAULT_VAULTS = REPO_ROOT.parent / "shared" / "data" / "vaults"
DEFAULT_CACHE = BENCH_DIR / "build" / "cache"
MODES = ("keyword", "vector", "hybrid", "rrf")  # "rrf": the hybrid with --fusion rrf
KINDS = (
    "all", "paraphrase", "keyword", "cross-lingual", "no-shared-word", "zh-en", "title", "natural",
    "no-shared-name", "en-zh",
)  # fmt: skip
LIMIT = 200
K = 10


@dataclass(frozen=True)
class QuerySet:
    name: str
    queries: Path
    folder: str = ""  # the vault's folder name in the shared data, when it is not `name`

    @property
    def vault(self) -> str:
        return self.folder or self.name


SETS = (
    QuerySet("vaultofknowledge", BENCH_DIR / "data" / "vaultofknowledge_queries.jsonl"),
    QuerySet("knowledge-garden", BENCH_DIR / "data" / "knowledge_garden_queries.jsonl"),
    QuerySet(
        "vaultofknowledge-hard",
        BENCH_DIR / "data" / "vaultofknowledge_hard.jsonl",
        folder="vaultofknowledge",
    ),
    QuerySet(
        "knowledge-garden-hard",
        BENCH_DIR / "data" / "knowledge_garden_hard.jsonl",
        folder="knowledge-garden",
    ),
    QuerySet(
        "knowledge-garden-en",
        BENCH_DIR / "data" / "knowledge_garden_en.jsonl",
        folder="knowledge-garden",
    ),
    QuerySet(
        "vaultofknowledge-zh",
        BENCH_DIR / "data" / "vaultofknowledge_zh.jsonl",
        folder="vaultofknowledge",
    ),
)


@dataclass(frozen=True)
class Question:
    id: str
    query: str
    relevant: tuple[str, ...]
    kind: str
    grades: tuple[int, ...] = ()  # each relevant note's gain, 2 or 1; all 1 when not given

    def judgements(self) -> dict[str, int]:
        return dict(zip(self.relevant, self.grades or (1,) * len(self.relevant), strict=True))


def read_questions(path: Path) -> list[Question]:
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        entry = json.loads(line)
        relevant = entry.get("relevant") or []
        if not relevant:
            sys.exit(f"{path.name} line {number}: no relevant note")
        grades = entry.get("grades") or {}
        if grades and set(grades) != set(relevant):
            sys.exit(f"{path.name} line {number}: grades and relevant name different notes")
        questions.append(
            Question(
                str(entry["id"]),
                entry["query"],
                tuple(relevant),
                entry.get("kind", "?"),
                tuple(int(grades[p]) for p in relevant) if grades else (),
            )
        )
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        sys.exit(f"{path.name}: query ids repeat")
    return questions


def check_relevant(vault: Path, questions: Sequence[Question], source: Path) -> None:
    """Stop, naming each one, if a judged note is not a file of the vault."""
    missing = [
        f"  {q.id}: {path}"
        for q in questions
        for path in q.relevant
        if not (vault / path).is_file()
    ]
    if missing:
        sys.exit(f"{source.name}: judged notes missing from {vault}:\n" + "\n".join(missing))


def write_search_file(questions: Sequence[Question], out: Path) -> None:
    """Only id and query go to memlsp: the judgements never reach the search."""
    lines = (json.dumps({"id": q.id, "query": q.query}, ensure_ascii=False) for q in questions)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def kind_groups(questions: Sequence[Question]) -> dict[str, list[str]]:
    groups = {kind: [q.id for q in questions if kind in ("all", q.kind)] for kind in KINDS}
    return {kind: ids for kind, ids in groups.items() if ids}


Scores = dict[str, dict[str, dict[str, float]]]  # mode -> kind -> metric -> value


def run_set(
    qset: QuerySet, vault: Path, cache: Path, embedder: str | None, records: list[dict[str, object]]
) -> Scores:
    questions = read_questions(qset.queries)
    check_relevant(vault, questions, qset.queries)
    chosen = ("--embedder", embedder) if embedder else ()
    seconds, summary = memlsp("index", vault, *chosen, "--cache-dir", cache)
    vectors = [line for line in summary.splitlines() if line.startswith("vectors:")]
    print(f"{qset.name}: memlsp index {seconds:.1f} s — {vectors[0] if vectors else summary[:80]}")
    qrels = {q.id: q.judgements() for q in questions}
    groups = kind_groups(questions)
    runs: dict[str, dict[str, list[dict[str, object]]]] = {}
    scores: Scores = {}
    with tempfile.TemporaryDirectory(prefix="memlsp-vaults-") as tmp:
        search_file = Path(tmp) / "queries.jsonl"
        write_search_file(questions, search_file)
        for mode in MODES:
            seconds, run, errors = batch_results(vault, cache, search_file, mode, LIMIT, embedder)
            print(f"  --mode {mode}: {len(questions)} queries in {seconds:.1f} s")
            for error in errors[:3]:
                print(f"    {error}")
            runs[mode] = run
            notes = {qid: dedupe(paths) for qid, paths in result_paths(run).items()}
            scores[mode] = evaluate_groups(notes, qrels, groups, K, K)
    for q in questions:
        record: dict[str, object] = {
            "set": qset.name, "vault": qset.vault, "id": q.id, "query": q.query, "kind": q.kind,
            "relevant": list(q.relevant),
        }  # fmt: skip
        for mode in MODES:
            record[mode] = dump_results(runs[mode].get(q.id, []))
        records.append(record)
    return scores


def print_table(all_scores: Mapping[str, Scores]) -> None:
    print(f"\n| set | kind (queries) | mode | nDCG@{K} | recall@{K} |")
    print("|---|---|---|---|---|")
    for name, scores in all_scores.items():
        for kind in KINDS:
            if kind not in scores[MODES[0]]:
                continue
            count = int(scores[MODES[0]][kind]["queries"])
            best = max(scores[m][kind][f"ndcg@{K}"] for m in MODES)
            for mode in MODES:
                cell = scores[mode][kind]
                ndcg = f"{cell[f'ndcg@{K}']:.3f}"
                if cell[f"ndcg@{K}"] == best:
                    ndcg = f"**{ndcg}**"
                print(
                    f"| {name} | {kind} ({count}) | {mode} | {ndcg} | {cell[f'recall@{K}']:.3f} |"
                )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vaults", type=Path, default=DEFAULT_VAULTS, help="the vaults' folder")
    parser.add_argument(
        "--sets", default=",".join(s.name for s in SETS), help="comma-separated set names"
    )
    parser.add_argument(
        "--cache-dir", type=Path, default=DEFAULT_CACHE, help="index cache, kept between runs"
    )
    parser.add_argument("--embedder", help="pass --embedder E (default: memlsp's default)")
    parser.add_argument("--dump", type=Path, help="write every query's results here (JSON)")
    parser.add_argument(
        "--check", action="store_true", help="only check that every judged note exists, then stop"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    wanted = [name for name in args.sets.split(",") if name]
    unknown = set(wanted) - {s.name for s in SETS}
    if unknown:
        sys.exit(f"unknown set(s): {', '.join(sorted(unknown))}")
    all_scores: dict[str, Scores] = {}
    records: list[dict[str, object]] = []
    for qset in SETS:
        if qset.name not in wanted:
            continue
        vault = args.vaults / qset.vault
        if not vault.is_dir():
            print(f"{qset.name}: vault not found ({vault}); skipped. Pass --vaults DIR.")
            continue
        if args.check:
            check_relevant(vault, read_questions(qset.queries), qset.queries)
            print(f"{qset.name}: every judged note exists")
            continue
        args.cache_dir.mkdir(parents=True, exist_ok=True)
        all_scores[qset.name] = run_set(qset, vault, args.cache_dir, args.embedder, records)
    if all_scores:
        print_table(all_scores)
    if args.dump is not None and records:
        write_dump(args.dump, records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
