"""How fusion choices rank on the development sets, offline, from the benchmarks' dumps.

    python benchmarks/fusion_study.py benchmarks/build/vaults.json benchmarks/build/scifact-train.json
        [--cache-dir benchmarks/build/cache] [--scifact benchmarks/build/scifact]

The dumps (`bench_vaults.py --dump`, `bench_scifact.py --dump`) hold each query's keyword-only and
vector-only results with their raw scores. Here each note keeps its best score per side, the two
sides are fused again by each candidate rule, and note-level nDCG@10 / recall@10 are printed per
set (cross-lingual questions as a set of their own). The score fusion is memlsp's own
`memlsp.search.fusion.fuse`; reciprocal rank fusion, the rule it replaced, is computed here for
comparison. The query-adaptive weights need the share of each query's words that its vault uses
at all: that comes from the benchmarks' keyword indexes (`--cache-dir` of bench_vaults.py, the
`--keep` folder of bench_scifact.py), opened read-only; without them those rows are left out.
Choose on train and development sets only; held-out judgements are for the README.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

from common import BENCH_DIR, REPO_ROOT  # noqa: F401  (puts the repository on sys.path)
from metrics import evaluate

from memlsp.index.keyword import KeywordIndex, KeywordReader
from memlsp.search.fusion import fuse

Scores = dict[str, float]
Rule = Callable[[Scores, Scores, float], list[str]]  # keyword, vector, share of known words


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


def score_fusion(
    vector_weight: float, adapt: Callable[[float, float], float] | None = None
) -> Rule:
    """Memlsp's fusion; `adapt(weight, known)` turns the weight into the query's own."""

    def rule(keyword: Scores, vector: Scores, known: float) -> list[str]:
        weight = adapt(vector_weight, known) if adapt else vector_weight
        sides = [list(zip(ranked(keyword), (keyword[p] for p in ranked(keyword)), strict=True))]
        sides.append(list(zip(ranked(vector), (vector[p] for p in ranked(vector)), strict=True)))
        ties: dict[Hashable, tuple[str, int]] = {p: (p, 0) for p in {*keyword, *vector}}
        return [str(item.key) for item in fuse(sides, [1 - weight, weight], ties)]

    return rule


def rank_fusion(vector_weight: float, k: int = 60) -> Rule:
    def rule(keyword: Scores, vector: Scores, known: float) -> list[str]:
        fused: Scores = defaultdict(float)
        for weight, side in ((1 - vector_weight, keyword), (vector_weight, vector)):
            for rank, path in enumerate(ranked(side), 1):
                fused[path] += weight / (k + rank)
        return ranked(fused)

    return rule


def rules(adaptive: bool) -> list[tuple[str, Rule]]:
    chosen: list[tuple[str, Rule]] = [
        ("keyword only", lambda keyword, vector, known: ranked(keyword)),
        ("vector only", lambda keyword, vector, known: ranked(vector)),
    ]
    chosen += [(f"RRF w_v={w}", rank_fusion(w)) for w in (0.3, 0.5, 0.7)]
    chosen += [(f"score fusion w_v={w}", score_fusion(w)) for w in (0.4, 0.5, 0.6, 0.7, 0.8)]
    if adaptive:
        chosen += [
            (f"score fusion w_v=0.6, adaptive {name}", score_fusion(0.6, curve))
            for name, curve in ADAPTIVE.items()
        ]
    return chosen


# How the vector weight rises as fewer of the query's words occur in the vault (`known`).
ADAPTIVE: dict[str, Callable[[float, float], float]] = {
    "linear": lambda w, known: w + (1 - w) * (1 - known),
    "squared": lambda w, known: w + (1 - w) * (1 - known) ** 2,
    "cubed": lambda w, known: w + (1 - w) * (1 - known) ** 3,
}


def known_shares(
    sets: Mapping[str, Sequence[Mapping[str, Any]]], cache: Path, scifact: Path
) -> dict[str, float] | None:
    """(set, query id) -> share of the query's terms its vault's index has; None without the
    indexes."""
    indexes: dict[str, KeywordReader] = {}
    shares: dict[str, float] = {}
    for name, queries in sets.items():
        for q in queries:
            vault = str(q.get("vault") or q["set"])
            if vault not in indexes:
                where = scifact / "cache" if vault.startswith("scifact") else cache
                found = sorted(
                    where.glob("*/keyword" if vault.startswith("scifact") else f"{vault}-*/keyword")
                )
                if not found:
                    return None
                indexes[vault] = KeywordIndex(found[0], writable=False).reader()
            index = indexes[vault]
            shares[f"{name}/{q['id']}"] = index.term_stats(
                index.query_terms(str(q["query"]))
            ).known_share
    return shares


def measure(
    name: str, queries: Sequence[Mapping[str, Any]], rule: Rule, known: Mapping[str, float]
) -> tuple[float, float]:
    run = {
        q["id"]: rule(
            best_per_note(q["keyword"], "keyword_score"),
            best_per_note(q["vector"], "vector_score"),
            known.get(f"{name}/{q['id']}", 1.0),
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
    parser.add_argument("--cache-dir", type=Path, default=BENCH_DIR / "build" / "cache")
    parser.add_argument("--scifact", type=Path, default=BENCH_DIR / "build" / "scifact")
    args = parser.parse_args()
    sets = load(args.dumps)
    known = known_shares(sets, args.cache_dir, args.scifact)
    if known is None:
        print("(no keyword indexes for every set: the adaptive weights are left out)")
    names = sorted(sets)
    print("| rule | " + " | ".join(f"{n} ({len(sets[n])})" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for label, rule in rules(known is not None):
        cells = [measure(name, sets[name], rule, known or {}) for name in names]
        print(f"| {label} | " + " | ".join(f"{n:.3f} / {r:.3f}" for n, r in cells) + " |")


if __name__ == "__main__":
    main()
