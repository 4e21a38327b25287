"""What `recall_weight` does to search quality on the dev sets: note-level nDCG@10 of questions a
user asked before and of questions new to the vault, with the weight off and at a few values.

    python benchmarks/bench_recall.py [--vaults ../shared/data/vaults]
        [--sets knowledge-garden,vaultofknowledge] [--mode keyword] [--embedder none]
        [--weights 0,0.1,0.3,1]

Each set's questions (bench_vaults.py's) are split in two halves by their order (even, odd). A
simulated user asked the first half once before and was shown the first 10 results of each,
counted as recalled as `memlsp search` counts them. Then every question is asked again, counted
by nothing (`record=False`: a benchmark must not train the ranking it measures), at each weight:
"asked before" is the mean nDCG@10 of the first half, "new" of the second. The vault is read where
it is; its index and its recall counts live in a temporary cache folder, gone after the run.
Keyword mode with no embedder by default: it runs in a minute on two cores, where the default
embedder would first embed each vault.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from bench_vaults import DEFAULT_VAULTS, SETS, Question, check_relevant, read_questions
from metrics import dedupe, ndcg_at_k

from memlsp.engine.backfill import Backfill
from memlsp.engine.engine import Engine
from memlsp.model import SearchRequest
from memlsp.settings.table import Settings

K = 10
DEFAULT_SETS = ("knowledge-garden", "vaultofknowledge")


def ranked(engine: Engine, question: Question, mode: str, *, record: bool) -> list[str]:
    """The notes a search shows for the question, best first; counted as recalled when `record`,
    where an answer leaves for its asker (the engine's search alone counts nothing)."""
    snapshot = engine.read()
    request = SearchRequest(question.query, limit=K, expand=False, mode=mode, record=record)
    response = snapshot.recalled(snapshot.search(request), record=record)
    return dedupe(hit.chunk.path for hit in response.hits)


def mean_ndcg(engine: Engine, questions: Sequence[Question], mode: str) -> float:
    scores = [
        ndcg_at_k(ranked(engine, q, mode, record=False), dict.fromkeys(q.relevant, 1), K)
        for q in questions
    ]
    return sum(scores) / len(scores) if scores else 0.0


def run_set(
    vault: Path, questions: Sequence[Question], args: argparse.Namespace
) -> list[tuple[float, float, float]]:
    """(weight, nDCG@10 asked before, nDCG@10 new) for each weight."""
    asked, new = list(questions[0::2]), list(questions[1::2])
    with tempfile.TemporaryDirectory(prefix="memlsp-recall-") as cache:
        settings = Settings(cache_dir=Path(cache), embedder=args.embedder)
        engine = Engine.open(vault, settings)
        try:
            started = time.perf_counter()
            engine.refresh()
            if args.mode != "keyword":
                Backfill(engine, batch=256).run()
            print(f"  indexed in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            for question in asked:  # the user's history: each shown once
                ranked(engine, question, args.mode, record=True)
            rows = []
            for weight in args.weights:
                engine.use_settings(replace(settings, recall_weight=weight))
                before = mean_ndcg(engine, asked, args.mode)
                rows.append((weight, before, mean_ndcg(engine, new, args.mode)))
            return rows
        finally:
            engine.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vaults", type=Path, default=DEFAULT_VAULTS, help="the vaults' folder")
    parser.add_argument("--sets", default=",".join(DEFAULT_SETS), help="comma-separated sets")
    parser.add_argument("--mode", default="keyword", choices=("keyword", "vector", "hybrid"))
    parser.add_argument("--embedder", default="none", help="the embedder for other modes")
    parser.add_argument(
        "--weights",
        default="0,0.1,0.3,1",
        type=lambda text: [float(item) for item in text.split(",")],
        help="comma-separated recall_weight values",
    )
    args = parser.parse_args(argv)
    print(
        f"| set | questions (before/new) | recall_weight | nDCG@{K} asked before | nDCG@{K} new |"
    )
    print("|---|---|---|---|---|")
    for name in args.sets.split(","):
        qset = next((s for s in SETS if s.name == name), None)
        if qset is None:
            sys.exit(f"unknown set {name}")
        vault = args.vaults / qset.vault
        if not vault.is_dir():
            print(f"{name}: skipped, {vault} is absent", file=sys.stderr)
            continue
        questions = read_questions(qset.queries)
        check_relevant(vault, questions, qset.queries)
        print(f"{name}: {len(questions)} questions, --mode {args.mode}", file=sys.stderr)
        halves = f"{len(questions[0::2])}/{len(questions[1::2])}"
        for weight, before, new in run_set(vault, questions, args):
            print(f"| {name} | {halves} | {weight:g} | {before:.3f} | {new:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
