"""What an embedder's similarities mean, measured: the `SimilarityScale` of memlsp/embed/base.py, and
what `--min-score` then costs and gains.

    python benchmarks/calibrate.py [--vaults ../shared/data/vaults] [--embedder E]
        [--cache-dir benchmarks/build/cache]

On each real vault it runs the development questions (`data/*_queries.jsonl`) and questions no
note of either vault answers (`data/offtopic_queries.jsonl`, English and Chinese), as a user runs
them (`memlsp search --queries FILE --json`, the cache kept between runs like bench_vaults.py).
It prints:
1. per language pair read (the vault's language and the question's script), the best vector
   similarity of questions with answers, of questions without, and of the judged answers the
   vector side finds in its first ten; and the scale proposed from them: `low` the median best
   similarity of questions without answers, `high` the 90th percentile of questions with, `floor`
   the lowest similarity at which a judged answer was found. Run it with plain cosine scales
   (memlsp/embed/bilingual.py), since the floor it proposes cuts what it measures;
2. each kind of question's strength (how well it is answered at all, search/evidence.py) with
   the scale the embedder has now;
3. for each `min_strength` (the setting: a weaker query returns nothing) and each `--min-score`
   (a result scoring less is cut): the share of no-answer questions that return nothing, and the
   development sets' note-level nDCG@10.
The judgements never reach memlsp: only ids and questions go into the query file.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_vaults import (
    DEFAULT_CACHE,
    DEFAULT_VAULTS,
    SETS,
    Question,
    read_questions,
    write_search_file,
)
from common import BENCH_DIR, batch_answers, memlsp
from metrics import dedupe, evaluate

from memlsp.embed.bilingual import CJK_SHARE, cjk_share

OFFTOPIC = BENCH_DIR / "data" / "offtopic_queries.jsonl"
THRESHOLDS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)


def read_offtopic(path: Path) -> list[Question]:
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [Question(str(e["id"]), e["query"], (), "nothing-relevant") for e in entries]


@dataclass(frozen=True)
class Answer:
    results: list[dict[str, Any]]
    strength: float


def run(
    vault: Path, cache: Path, questions: Sequence[Question], mode: str, embedder: str | None
) -> dict[str, Answer]:
    """One batch search as bench_vaults.py runs it, with the floor off, keeping each answer's
    strength too."""
    with tempfile.TemporaryDirectory(prefix="memlsp-calibrate-") as tmp:
        search_file = Path(tmp) / "queries.jsonl"
        write_search_file(questions, search_file)
        _, answers, _ = batch_answers(
            vault, cache, search_file, mode, 200, embedder, "--min-strength", "0"
        )
    return {
        qid: Answer(answer.get("results", []), answer.get("strength", 0.0))
        for qid, answer in answers.items()
    }


def top_similarity(results: list[dict[str, Any]]) -> float | None:
    scores = [float(r["vector_score"]) for r in results if r.get("vector_score") is not None]
    return max(scores) if scores else None


def describe(label: str, values: Sequence[float]) -> str:
    if not values:
        return f"| {label} | 0 | | | |"
    ordered = sorted(values)
    return (
        f"| {label} | {len(ordered)} | {ordered[0]:.3f} | {statistics.median(ordered):.3f} |"
        f" {ordered[-1]:.3f} |"
    )


@dataclass
class Pair:
    """One language pair's best similarities: questions with answers, without, and the judged
    answers' own."""

    answered: list[float] = field(default_factory=list)
    none: list[float] = field(default_factory=list)
    answers: list[float] = field(default_factory=list)

    def proposal(self) -> str:
        """low: the median best of questions without answers; high: the 90th percentile of the
        best of those with; floor: the lowest judged answer found."""
        if not (self.answered and self.none and self.answers):
            return "not enough questions"
        low = statistics.median(self.none)
        high = statistics.quantiles(self.answered, n=10)[-1]
        return f"low={low:.2f} high={high:.2f} floor={min(self.answers):.2f}"


@dataclass
class Tally:
    """Per threshold: whether each no-answer question went silent; each set's nDCG@10."""

    silent: dict[float, list[bool]] = field(default_factory=dict)
    ndcg: dict[str, dict[float, float]] = field(default_factory=dict)

    def table(self, label: str) -> str:
        names = list(self.ndcg)
        lines = [
            f"| {label} | no-answer questions returning nothing | "
            + " | ".join(f"{name} nDCG@10" for name in names)
            + " |",
            "|---|---|" + "---|" * len(names),
        ]
        for threshold, silent in self.silent.items():
            cells = " | ".join(f"{self.ndcg[name][threshold]:.3f}" for name in names)
            lines.append(f"| {threshold:.2f} | {sum(silent) / len(silent):.0%} | {cells} |")
        return "\n".join(lines)


def tally(
    tally: Tally,
    name: str,
    questions: Sequence[Question],
    offtopic: Sequence[Question],
    hybrid: dict[str, Answer],
    keep: Callable[[Answer, dict[str, Any], float], bool],
) -> None:
    qrels = {q.id: {path: 1 for path in q.relevant} for q in questions}
    empty = Answer([], 0.0)
    tally.ndcg[name] = {}
    for threshold in THRESHOLDS:
        kept = {
            q.id: dedupe(
                str(r["path"])
                for r in hybrid.get(q.id, empty).results
                if keep(hybrid[q.id], r, threshold)
            )
            for q in questions
        }
        tally.ndcg[name][threshold] = evaluate(kept, qrels, 10, 10)["ndcg@10"]
        answers = [hybrid.get(q.id, empty) for q in offtopic]
        tally.silent.setdefault(threshold, []).extend(
            not any(keep(answer, r, threshold) for r in answer.results) for answer in answers
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--vaults", type=Path, default=DEFAULT_VAULTS)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--embedder", help="embedder to calibrate (default: the CLI's default)")
    args = parser.parse_args(argv)
    offtopic = read_offtopic(OFFTOPIC)
    pairs: dict[str, Pair] = {}
    strengths: dict[str, list[float]] = {}
    by_score, by_strength = Tally(), Tally()
    for qset in SETS:
        if qset.folder:  # more questions about the vault of another set: not calibrated on
            continue
        vault = args.vaults / qset.name
        if not vault.is_dir():
            print(f"{qset.name}: not in {args.vaults}; skipped")
            continue
        chosen = ("--embedder", args.embedder) if args.embedder else ()
        memlsp("index", vault, *chosen, "--cache-dir", args.cache_dir)
        questions = read_questions(qset.queries)
        asked = [*questions, *offtopic]
        vector = run(vault, args.cache_dir, asked, "vector", args.embedder)
        hybrid = run(vault, args.cache_dir, asked, "hybrid", args.embedder)
        for q in asked:
            found = vector.get(q.id, Answer([], 0.0)).results
            best = top_similarity(found)
            # The language pair read: which block answers depends on the question's script
            # and the vault's (vaultofknowledge is English, knowledge-garden Chinese).
            pair = f"{qset.name}, {'Chinese' if cjk_share(q.query) >= CJK_SHARE else 'Latin'}"
            group = pairs.setdefault(pair, Pair())
            if best is not None:
                (group.none if q.kind == "nothing-relevant" else group.answered).append(best)
            group.answers += [
                float(r["vector_score"]) for r in found[:10] if r["path"] in q.relevant
            ]
            if q.id in hybrid:
                strengths.setdefault(q.kind, []).append(hybrid[q.id].strength)
        tally(by_score, qset.name, questions, offtopic, hybrid, lambda a, r, t: r["score"] >= t)
        tally(by_strength, qset.name, questions, offtopic, hybrid, lambda a, r, t: a.strength >= t)
    print(
        "\n| vault, question script: best vector similarity of | questions | min | median | max |"
    )
    print("|---|---|---|---|---|")
    for name, group in pairs.items():
        print(describe(f"{name}: questions with answers", group.answered))
        print(describe(f"{name}: questions without", group.none))
        print(describe(f"{name}: judged answers in the first 10", group.answers))
    print("\n| vault, question script | proposed scale |\n|---|---|")
    for name, group in pairs.items():
        print(f"| {name} | {group.proposal()} |")
    print("\n| strength of | questions | min | median | max |\n|---|---|---|---|---|")
    for kind in sorted(strengths):
        print(describe(kind, strengths[kind]))
    print("\n" + by_strength.table("min_strength"))
    print("\n" + by_score.table("--min-score"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
