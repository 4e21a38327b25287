"""Search quality of two checkouts side by side, on every development set, in one run.

    python benchmarks/bench_quality.py --vs ../memlsp-before [--sets knowledge-garden,...]
        [--modes keyword,vector,hybrid] [--cache-dir benchmarks/build/quality] [--no-scifact]

A change to ranking is kept when it helps questions a person would ask and loses nothing
elsewhere; this answers that in one table. For each checkout (`--vs DIR`, the one before, then
this one) it runs that checkout's own memlsp (`python -m memlsp` with it first on `PYTHONPATH`)
on the same questions, with the default embedder, as a user runs it:
- every set of `bench_vaults.py` (the vaults read where they are in the shared data folder),
  note-level nDCG@10 and recall@10 per kind of question and mode, graded where the set grades;
- SciFact's `--split` (dev by default) as `bench_scifact.py` builds it, nDCG@10 per mode;
- off-topic questions (`data/offtopic_queries.jsonl`) on each vault: the share answered with
  nothing (hybrid);
- top-1 independent of the limit: each vault question's first hybrid result asked with
  `--limit 1` and with `--limit 10`, the number that differ.
Each checkout keeps its own indexes under `--cache-dir` (kept between runs: the first run embeds
each vault once per checkout, about ten minutes on two cores). Judgements never reach memlsp.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import common
from bench_scifact import DEFAULT_DATA, doc_run, read_qrels, write_queries, write_vault
from bench_vaults import (
    DEFAULT_VAULTS,
    SETS,
    Question,
    check_relevant,
    kind_groups,
    read_questions,
    write_search_file,
)
from common import BENCH_DIR, REPO_ROOT, batch_answers, batch_results, memlsp, result_paths
from metrics import dedupe, evaluate, evaluate_groups

K = 10
LIMIT = 100
OFFTOPIC = BENCH_DIR / "data" / "offtopic_queries.jsonl"
Scores = dict[str, dict[str, float]]  # "set / kind (n) / mode" -> {"ndcg", "recall"}


def revision(checkout: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    dirty = subprocess.run(
        ["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return (done.stdout.strip() or checkout.name) + ("+changes" if dirty else "")


def vault_sets(vaults: Path, wanted: set[str]) -> list[tuple[str, Path, list[Question]]]:
    chosen = []
    for qset in SETS:
        vault = vaults / qset.vault
        if qset.name not in wanted or not qset.queries.is_file():
            continue
        if not vault.is_dir():
            print(f"{qset.name}: vault not found ({vault}); skipped")
            continue
        questions = read_questions(qset.queries)
        check_relevant(vault, questions, qset.queries)
        chosen.append((qset.name, vault, questions))
    return chosen


def measure_vaults(
    sets: list[tuple[str, Path, list[Question]]], cache: Path, modes: Sequence[str], tmp: Path
) -> Scores:
    scores: Scores = {}
    indexed: set[Path] = set()
    for name, vault, questions in sets:
        if vault not in indexed:
            seconds, _ = memlsp("index", vault, "--cache-dir", cache)
            print(f"  {vault.name}: indexed in {seconds:.1f} s", flush=True)
            indexed.add(vault)
        search_file = tmp / f"{name}.jsonl"
        write_search_file(questions, search_file)
        qrels = {q.id: q.judgements() for q in questions}
        groups = kind_groups(questions)
        for mode in modes:
            _, run, _ = batch_results(vault, cache, search_file, mode, K * 5)
            notes = {qid: dedupe(paths) for qid, paths in result_paths(run).items()}
            for kind, cell in evaluate_groups(notes, qrels, groups, K, K).items():
                key = f"{name} | {kind} ({int(cell['queries'])}) | {mode}"
                scores[key] = {"ndcg": cell[f"ndcg@{K}"], "recall": cell[f"recall@{K}"]}
        scores[f"{name} | top-1 differs at --limit 1 | hybrid"] = {
            "count": float(top1_differences(vault, cache, search_file))
        }
    for vault in sorted(indexed):
        _, answers, _ = batch_answers(vault, cache, OFFTOPIC, "hybrid", K)
        empty = sum(1 for answer in answers.values() if not answer.get("results"))
        scores[f"{vault.name} | off-topic answered with nothing | hybrid"] = {
            "share": empty / max(len(answers), 1)
        }
    return scores


def top1_differences(vault: Path, cache: Path, search_file: Path) -> int:
    firsts = []
    for limit in (1, K):
        _, run, _ = batch_results(vault, cache, search_file, "hybrid", limit)
        firsts.append({qid: paths[:1] for qid, paths in result_paths(run).items()})
    return sum(1 for qid in firsts[1] if firsts[0].get(qid) != firsts[1][qid])


def measure_scifact(
    data: Path, split: str, work: Path, cache: Path, modes: Sequence[str]
) -> Scores:
    vault, queries = work / "vault", work / "queries.jsonl"
    qrels = read_qrels(data / "qrels" / f"{split}.tsv")
    if not (vault / "docs").is_dir():
        write_vault(data / "corpus.jsonl", vault)
    write_queries(data / "queries.jsonl", qrels, queries)
    seconds, _ = memlsp("index", vault, "--cache-dir", cache)
    print(f"  SciFact: indexed in {seconds:.1f} s", flush=True)
    scores: Scores = {}
    for mode in modes:
        _, results, _ = batch_results(vault, cache, queries, mode, LIMIT)
        cell = evaluate(doc_run(result_paths(results)), qrels, K, LIMIT)
        key = f"scifact-{split} | all ({int(cell['queries'])}) | {mode}"
        scores[key] = {"ndcg": cell[f"ndcg@{K}"], "recall": cell[f"recall@{LIMIT}"]}
    return scores


def measure(checkout: Path, args: argparse.Namespace, sets: list[Any], tmp: Path) -> Scores:
    common.code_root = checkout
    cache = args.cache_dir / checkout.resolve().name
    print(f"{checkout} ({revision(checkout)}):", flush=True)
    scores = measure_vaults(sets, cache / "vaults", args.modes, tmp)
    if not args.no_scifact and (args.scifact / "corpus.jsonl").is_file():
        work = args.cache_dir / "scifact"
        scores |= measure_scifact(args.scifact, args.split, work, cache / "scifact", args.modes)
    return scores


def print_table(before: Scores, after: Scores, labels: tuple[str, str]) -> None:
    """One line per measure: nDCG@10 and recall@10 (SciFact: @100) of a set's kind and mode, or
    the count or share named."""
    print(f"\n| set | kind (questions) | mode | nDCG@10 {labels[0]} | {labels[1]} | change "
          f"| recall {labels[0]} | {labels[1]} |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for key, cell in after.items():
        metric = next(name for name in ("ndcg", "count", "share") if name in cell)
        value, previous = cell[metric], before.get(key, {}).get(metric)
        shown = f"{previous:.3f}" if previous is not None else "–"
        change = f"{value - previous:+.3f}" if previous is not None else ""
        recalls = ""
        if "recall" in cell:
            old_recall = before.get(key, {}).get("recall")
            recalls = f" {old_recall:.3f} |" if old_recall is not None else " – |"
            recalls += f" {cell['recall']:.3f} |"
        else:
            recalls = " | |"
        print(f"| {key} | {shown} | {value:.3f} | {change} |{recalls}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vs", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--vaults", type=Path, default=DEFAULT_VAULTS)
    parser.add_argument("--sets", default=",".join(s.name for s in SETS))
    parser.add_argument("--modes", default="keyword,vector,hybrid")
    parser.add_argument("--scifact", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--no-scifact", action="store_true")
    parser.add_argument("--cache-dir", type=Path, default=BENCH_DIR / "build" / "quality")
    parser.add_argument("--json", type=Path, help="write both checkouts' figures here")
    args = parser.parse_args(argv)
    args.modes = [mode for mode in args.modes.split(",") if mode]
    # memlsp runs from each checkout's own folder: every path it is given must be absolute.
    for name in ("vs", "vaults", "scifact", "cache_dir"):
        setattr(args, name, getattr(args, name).resolve())
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not (args.vs / "memlsp" / "__init__.py").is_file():
        sys.exit(f"{args.vs} is not a memlsp checkout")
    sets = vault_sets(args.vaults, {name for name in args.sets.split(",") if name})
    checkouts = (args.vs.resolve(), REPO_ROOT)
    labels = (revision(checkouts[0]), revision(checkouts[1]))
    with tempfile.TemporaryDirectory(prefix="memlsp-quality-") as tmp:
        before, after = (measure(checkout, args, sets, Path(tmp)) for checkout in checkouts)
    print_table(before, after, labels)
    if args.json is not None:
        figures = {labels[0]: before, labels[1]: after}
        args.json.write_text(json.dumps(figures, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
