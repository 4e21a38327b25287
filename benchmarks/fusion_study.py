"""How fusion choices rank on the development sets, offline, from the benchmarks' dumps.

    python benchmarks/fusion_study.py benchmarks/build/vaults.json benchmarks/build/scifact-train.json

The dumps (`bench_vaults.py --dump`, `bench_scifact.py --dump`) hold each query's keyword-only and
vector-only results with their raw scores. Here each note keeps its best score per side, the two
sides are fused again by each candidate rule, and note-level nDCG@10 / recall@10 are printed per
set (cross-lingual questions as a set of their own). The score fusion is memlsp's own
`memlsp.search.fusion.fuse`; reciprocal rank fusion, the rule it replaced, is computed here for
comparison. Choose on train and development sets only; held-out judgements are for the README.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

from common import REPO_ROOT  # noqa: F401  (puts the repository on sys.path)
from metrics import evaluate

from memlsp.search.fusion import fuse

Scores = dict[str, float]
Rule = Callable[[Scores, Scores], list[str]]


def load(paths: Sequence[Path]) -> dict[str, list[dict[str, Any]]]:
    sets: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for path in paths:
        for query in json.loads(path.read_text(encoding="utf-8")):
            name = query["set"]
            if query.get("kind") == "cross-lingual":
                name += " (cross-lingual)"
            sets[name].append(query)
    return dict(sets)


def best_per_note(results: Sequence[Mapping[str, Any]], field: str) -> Scores:
    scores: Scores = {}
    for result in results:
        value = result.get(field)
        if value is not None and result["path"] not in scores:
            scores[result["path"]] = float(value)
    return scores


def ranked(scores: Mapping[str, float]) -> list[str]:
    return [path for path, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0]))]


def score_fusion(vector_weight: float) -> Rule:
    def rule(keyword: Scores, vector: Scores) -> list[str]:
        sides = [list(zip(ranked(keyword), (keyword[p] for p in ranked(keyword)), strict=True))]
        sides.append(list(zip(ranked(vector), (vector[p] for p in ranked(vector)), strict=True)))
        ties: dict[Hashable, tuple[str, int]] = {p: (p, 0) for p in {*keyword, *vector}}
        return [str(item.key) for item in fuse(sides, [1 - vector_weight, vector_weight], ties)]

    return rule


def rank_fusion(vector_weight: float, k: int = 60) -> Rule:
    def rule(keyword: Scores, vector: Scores) -> list[str]:
        fused: Scores = defaultdict(float)
        for weight, side in ((1 - vector_weight, keyword), (vector_weight, vector)):
            for rank, path in enumerate(ranked(side), 1):
                fused[path] += weight / (k + rank)
        return ranked(fused)

    return rule


def rules() -> list[tuple[str, Rule]]:
    chosen: list[tuple[str, Rule]] = [
        ("keyword only", lambda keyword, vector: ranked(keyword)),
        ("vector only", lambda keyword, vector: ranked(vector)),
    ]
    chosen += [(f"RRF w_v={w}", rank_fusion(w)) for w in (0.3, 0.5, 0.7)]
    chosen += [(f"score fusion w_v={w}", score_fusion(w)) for w in (0.4, 0.5, 0.6, 0.7, 0.8)]
    return chosen


def measure(queries: Sequence[Mapping[str, Any]], rule: Rule) -> tuple[float, float]:
    run = {
        q["id"]: rule(
            best_per_note(q["keyword"], "keyword_score"), best_per_note(q["vector"], "vector_score")
        )
        for q in queries
    }
    qrels = {q["id"]: {path: 1 for path in q["relevant"]} for q in queries}
    figures = evaluate(run, qrels, 10, 10)
    return figures["ndcg@10"], figures["recall@10"]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("dumps", nargs="+", type=Path)
    sets = load(parser.parse_args().dumps)
    names = sorted(sets)
    print("| rule | " + " | ".join(f"{n} ({len(sets[n])})" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for label, rule in rules():
        cells = [measure(sets[name], rule) for name in names]
        print(f"| {label} | " + " | ".join(f"{n:.3f} / {r:.3f}" for n, r in cells) + " |")


if __name__ == "__main__":
    main()
