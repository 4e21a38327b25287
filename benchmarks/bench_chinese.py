"""Search quality on a real Chinese vault: recall@10 and nDCG@10, keyword-only against hybrid.

    python benchmarks/bench_chinese.py [--vault ../shared/data/vaults/knowledge-garden]
        [--queries benchmarks/data/knowledge_garden_queries.jsonl] [--embedders bilingual,use]

The queries are our own: questions a user would ask, paraphrased rather than copied from titles,
26 in Chinese and 13 in English about Chinese notes (`kind` cross-lingual), each with the notes that
answer it. The vault is read where it is, never copied; its index goes to a temporary cache folder.
A note counts once, at the rank of its best chunk. Exits 0 with a message when the vault is absent.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from common import BENCH_DIR, REPO_ROOT, batch_search, memlsp
from metrics import dedupe, evaluate

DEFAULT_VAULT = REPO_ROOT.parent / "shared" / "data" / "vaults" / "knowledge-garden"
DEFAULT_QUERIES = BENCH_DIR / "data" / "knowledge_garden_queries.jsonl"
K = 10


def read_judgements(path: Path) -> tuple[dict[str, dict[str, int]], dict[str, str]]:
    """({query id: {relevant path: 1}}, {query id: kind})."""
    qrels: dict[str, dict[str, int]] = {}
    kinds: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            entry = json.loads(line)
            qrels[entry["id"]] = {p: 1 for p in entry["relevant"]}
            kinds[entry["id"]] = entry.get("kind", "paraphrase")
    return qrels, kinds


def note_run(run: Mapping[str, list[str]]) -> dict[str, list[str]]:
    return {qid: dedupe(paths) for qid, paths in run.items()}


def scores_by_kind(
    run: Mapping[str, list[str]], qrels: Mapping[str, Mapping[str, int]], kinds: Mapping[str, str]
) -> dict[str, dict[str, float]]:
    groups = {"all": list(qrels)}
    for kind in sorted(set(kinds.values())):
        groups[kind] = [q for q in qrels if kinds[q] == kind]
    return {
        name: evaluate({q: run.get(q, []) for q in ids}, {q: qrels[q] for q in ids}, K, K)
        for name, ids in groups.items()
    }


def benchmark(vault: Path, queries: Path, cache: Path, embedders: list[str]) -> None:
    qrels, kinds = read_judgements(queries)
    rows: list[tuple[str, str, dict[str, dict[str, float]]]] = []
    seconds, summary = memlsp("index", vault, "--embedder", "none", "--cache-dir", cache)
    print(f"memlsp index (keyword): {seconds:.1f} s — {summary.splitlines()[0]}")
    _, run, errors = batch_search(vault, cache, queries, "keyword", "none", K * 3)
    rows.append(("-", "keyword", scores_by_kind(note_run(run), qrels, kinds)))
    for embedder in embedders:
        seconds, summary = memlsp("index", vault, "--embedder", embedder, "--cache-dir", cache)
        vectors = [line for line in summary.splitlines() if line.startswith("vectors:")]
        print(
            f"memlsp index --embedder {embedder}: {seconds:.1f} s — {vectors[0] if vectors else '?'}"
        )
        for mode in ("vector", "hybrid", "rrf"):  # "rrf": the hybrid with --fusion rrf
            _, run, more = batch_search(vault, cache, queries, mode, embedder, K * 3)
            errors.extend(more)
            rows.append((embedder, mode, scores_by_kind(note_run(run), qrels, kinds)))
    for error in errors[:5]:
        print(f"  query error {error}")
    groups = list(rows[0][2])
    counts = {name: int(rows[0][2][name]["queries"]) for name in groups}
    header = " | ".join(f"{g} ({counts[g]}) R@{K} / nDCG@{K}" for g in groups)
    print(f"\n| embedder | mode | {header} |")
    print("|---|---|" + "---|" * len(groups))
    for embedder, mode, scores in rows:
        cells = " | ".join(
            f"{scores[g][f'recall@{K}']:.3f} / {scores[g][f'ndcg@{K}']:.3f}" for g in groups
        )
        print(f"| {embedder} | {mode} | {cells} |")
    keyword = rows[0][2]["all"][f"ndcg@{K}"]
    default = next((r for r in rows if r[0] == "bilingual" and r[1] == "hybrid"), None)
    if default is not None:
        hybrid = default[2]["all"][f"ndcg@{K}"]
        verdict = "PASS" if hybrid > keyword else "FAIL"
        print(
            f"\ndefault hybrid nDCG@{K} {hybrid:.3f} against keyword-only {keyword:.3f}: {verdict}"
        )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--queries", type=Path, default=DEFAULT_QUERIES)
    parser.add_argument("--embedders", default="bilingual,use,minilm", help="comma-separated")
    parser.add_argument("--cache-dir", type=Path, help="keep the index here (default: temporary)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.vault.is_dir():
        print(f"vault not found ({args.vault}); nothing to measure. Pass --vault DIR.")
        return 0
    embedders = [e for e in args.embedders.split(",") if e]
    if args.cache_dir is not None:
        benchmark(args.vault, args.queries, args.cache_dir, embedders)
        return 0
    with tempfile.TemporaryDirectory(prefix="memlsp-chinese-") as cache:
        benchmark(args.vault, args.queries, Path(cache), embedders)
    return 0


if __name__ == "__main__":
    sys.exit(main())
