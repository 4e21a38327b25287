"""How fusion rules rank on the development sets, offline, from `search_features.py`'s output.

    python benchmarks/fusion_study.py benchmarks/build/features.json [--only RULE,...]

Each rule turns one question's candidates (keyword BM25 and coverage, cosine per vector block,
note fields) into a ranking of notes; the table gives note-level nDCG@10 per set and kind of
question. Rules are chosen here on development sets only (our questions, SciFact train);
held-out judgements are for the README.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common import BENCH_DIR  # noqa: F401  (puts the repository on sys.path)
from metrics import ndcg_at_k, recall_at_k

Q = Mapping[str, Any]
Rule = Callable[[Q], list[str]]
LATIN_QUERY = (1.0, 0.6, 0.0)
CJK_QUERY = (0.25, 1.0, 0.6)


def is_cjk(query: str) -> bool:
    letters = [c for c in query if c.isalpha()]
    cjk = sum(1 for c in letters if "\u4e00" <= c <= "\u9fff")
    return bool(letters) and cjk / len(letters) >= 0.1


def ranked(scores: Mapping[str, float]) -> list[str]:
    return [key for key, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0]))]


def per_note(scores: Mapping[str, float], paths: Mapping[str, str]) -> dict[str, float]:
    best: dict[str, float] = {}
    for key, value in scores.items():
        path = paths[key]
        if value > best.get(path, -math.inf):
            best[path] = value
    return best


# -- the vector side ---------------------------------------------------------------------------


@dataclass(frozen=True)
class VectorModel:
    """How a chunk's similarity is read from its blocks' cosines."""

    name: str
    latin: tuple[float, float, float] = LATIN_QUERY
    cjk: tuple[float, float, float] = CJK_QUERY
    combine: str = "max"  # "max": best block (as stored); "mean": ensemble of the blocks held

    def similarity(self, q: Q, row: Sequence[Any]) -> float:
        weights = self.cjk if is_cjk(q["query"]) else self.latin
        norm = math.sqrt(sum(w * w for w in weights)) or 1.0
        values = [
            (w / norm) * cos for w, cos in zip(weights, row[1:], strict=True) if cos is not None and w
        ]
        if not values:
            return -1.0
        if self.combine == "max":
            return max(values)
        if self.combine == "sum":
            return sum(values)
        return sum(values) / len(values)


CURRENT = VectorModel("current")


def evidence(q: Q, row: Sequence[Any], model: VectorModel, clip: bool = True) -> float:
    """Calibrated evidence in the current rule's scales (the best block's)."""
    weights = model.cjk if is_cjk(q["query"]) else model.latin
    norm = math.sqrt(sum(w * w for w in weights)) or 1.0
    best = 0.0 if clip else -math.inf
    for index, cos in enumerate(row[1:]):
        if cos is None or not weights[index]:
            continue
        low, high, _ = q["scales"][index]
        sim = weights[index] / norm * cos
        best = max(best, (sim - low) / (high - low) if high > low else sim)
    return best


def vector_scores(q: Q, model: VectorModel, floor: bool = True) -> dict[str, float]:
    scores = {}
    for key, row in q["vector"].items():
        sim = model.similarity(q, row)
        scores[key] = sim
    top = sorted(scores.items(), key=lambda item: -item[1])[:200]
    return dict(top)


def keyword_scores(q: Q) -> dict[str, float]:
    return {key: score for key, _, score in q["keyword"]}


# -- rules -------------------------------------------------------------------------------------


def minmax(scores: Mapping[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    return {k: (v - low) / (high - low) if high > low else 1.0 for k, v in scores.items()}


def current_rule(weight: float = 0.6, model: VectorModel = CURRENT) -> Rule:
    def rule(q: Q) -> list[str]:
        w = weight + (1 - weight) * (1 - q["known"]) ** 2
        kw = minmax(keyword_scores(q))
        vec = minmax(vector_scores(q, model))
        fused = {k: (1 - w) * kw.get(k, 0) + w * vec.get(k, 0) for k in {*kw, *vec}}
        return ranked(per_note(fused, q["paths"]))

    return rule


def side_only(side: str, model: VectorModel = CURRENT) -> Rule:
    def rule(q: Q) -> list[str]:
        scores = keyword_scores(q) if side == "keyword" else vector_scores(q, model)
        return ranked(per_note(scores, q["paths"]))

    return rule


def rrf(k: int = 60, wk: float = 1.0, wv: float = 1.0, model: VectorModel = CURRENT) -> Rule:
    def rule(q: Q) -> list[str]:
        fused: dict[str, float] = defaultdict(float)
        for weight, side in ((wk, keyword_scores(q)), (wv, vector_scores(q, model))):
            notes = ranked(per_note(side, q["paths"]))
            for rank, path in enumerate(notes, 1):
                fused[path] += weight / (k + rank)
        return ranked(fused)

    return rule


def side_evidence(q: Q, model: VectorModel, power: float) -> tuple[float, float]:
    """The keyword side's best coverage (to `power`) and the vector side's best evidence, over
    each side's first 10 candidates."""
    kw = [q["coverage"][key] for key, _, _ in q["keyword"][:10]]
    vec = sorted(q["vector"].items(), key=lambda item: -model.similarity(q, item[1]))[:10]
    ev = [evidence(q, row, model) for _, row in vec]
    return max(kw, default=0.0) ** power, min(1.0, max(ev, default=0.0))


def evidence_weighted(
    power: float = 3.0, model: VectorModel = CURRENT, prior: float = 0.5, base: str = "minmax"
) -> Rule:
    """Min-max within each side, each side weighted by its own best evidence (times a prior)."""

    def rule(q: Q) -> list[str]:
        ek, ev = side_evidence(q, model, power)
        wk, wv = (1 - prior) * ek, prior * ev
        if wk + wv == 0:
            wk = wv = 1.0
        kw = minmax(keyword_scores(q))
        vec = minmax(vector_scores(q, model))
        fused = {k: wk * kw.get(k, 0) + wv * vec.get(k, 0) for k in {*kw, *vec}}
        return ranked(per_note(fused, q["paths"]))

    return rule


def evidence_rrf(power: float = 3.0, k: int = 60, model: VectorModel = CURRENT) -> Rule:
    def rule(q: Q) -> list[str]:
        ek, ev = side_evidence(q, model, power)
        if ek + ev == 0:
            ek = ev = 1.0
        fused: dict[str, float] = defaultdict(float)
        for weight, side in ((ek, keyword_scores(q)), (ev, vector_scores(q, model))):
            for rank, path in enumerate(ranked(per_note(side, q["paths"])), 1):
                fused[path] += weight / (k + rank)
        return ranked(fused)

    return rule


def combsum(power: float = 3.0, alpha: float = 0.5, model: VectorModel = CURRENT) -> Rule:
    """Each candidate by its own absolute evidence: coverage^power (BM25 breaking ties) and its
    calibrated vector evidence."""

    def rule(q: Q) -> list[str]:
        kw = minmax(keyword_scores(q))
        fused: dict[str, float] = {}
        for key in {*kw, *q["vector"]}:
            k_part = q["coverage"].get(key, 0.0) ** power * (0.5 + 0.5 * kw.get(key, 0.0))
            row = q["vector"].get(key)
            v_part = evidence(q, row, model) if row else 0.0
            fused[key] = alpha * k_part + (1 - alpha) * v_part
        return ranked(per_note(fused, q["paths"]))

    return rule


FIELDS = ["title", "aliases", "description"]


def as_notes(
    fused: Mapping[str, float], q: Q, title: float, others: float, power: float
) -> list[str]:
    """Notes by their best chunk, plus `others` times their second best, plus `title` times the
    share of the query their title or aliases hold (to `power`)."""
    chunks: dict[str, list[float]] = defaultdict(list)
    for key, value in fused.items():
        chunks[q["paths"][key]].append(value)
    scores = {}
    for path, values in chunks.items():
        values.sort(reverse=True)
        fields = q["notes"].get(path, {})
        named = max(fields.get(name, 0.0) for name in FIELDS) ** power
        second = values[1] if len(values) > 1 else min(values[0], 0.0)
        scores[path] = values[0] + others * max(second, 0.0) + title * named
    return ranked(scores)


def combsum2(
    power: float = 3.0,
    alpha: float = 0.5,
    model: VectorModel = CURRENT,
    tie: float = 0.5,
    title: float = 0.0,
    others: float = 0.0,
    gate: float = 0.0,
) -> Rule:
    """Each candidate by its own evidence on both sides, unclipped on the vector side (a
    candidate the vector side did not return counts as its last)."""

    def rule(q: Q) -> list[str]:
        kw = minmax(keyword_scores(q))
        values = {key: evidence(q, row, model, clip=False) for key, row in q["vector"].items()}
        vec = dict(sorted(values.items(), key=lambda item: -item[1])[:200])
        last = min(vec.values(), default=0.0)
        best = max((q["coverage"].get(key, 0.0) for key, _, _ in q["keyword"][:10]), default=0.0)
        fused: dict[str, float] = {}
        for key in {*kw, *vec}:
            k_part = q["coverage"].get(key, 0.0) ** power * (1 - tie + tie * kw.get(key, 0.0))
            k_part *= best**gate
            fused[key] = alpha * k_part + (1 - alpha) * vec.get(key, last)
        if title or others:
            return as_notes(fused, q, alpha * title, others, power)
        return ranked(per_note(fused, q["paths"]))

    return rule


def rules() -> list[tuple[str, Rule]]:
    chosen: list[tuple[str, Rule]] = [
        ("keyword only", side_only("keyword")),
        ("vector only", side_only("vector")),
        ("current (w_v 0.6 adaptive)", current_rule()),
        ("rrf k=60", rrf()),
        ("rrf k=20", rrf(20)),
    ]
    for power in (1, 2, 3):
        for prior in (0.4, 0.5, 0.6):
            chosen.append((f"evidence-weighted p={power} prior={prior}", evidence_weighted(power, prior=prior)))
    for power in (2, 3):
        chosen.append((f"evidence rrf p={power}", evidence_rrf(power)))
        for alpha in (0.3, 0.5):
            chosen.append((f"combsum p={power} a={alpha}", combsum(power, alpha)))
    for power in (2, 3, 4):
        for alpha in (0.3, 0.4, 0.5):
            chosen.append((f"combsum2 p={power} a={alpha}", combsum2(power, alpha)))
    for power in (2, 3):
        for alpha in (0.4, 0.5, 0.6):
            for gate in (0, 1, 2):
                chosen.append(
                    (f"notes p={power} a={alpha} g={gate}", combsum2(power, alpha, others=0.3, gate=gate))
                )
    for others in (0.3, 0.5):
        chosen.append((f"vector notes o={others}", combsum2(2, 0.0, others=others)))
        chosen.append((f"keyword notes o={others}", combsum2(2, 1.0, others=others)))
    for x in (0.3, 0.5, 0.7, 1.0):
        model = VectorModel(f"sum {x}", latin=(1.0, 0.6, x), combine="sum")
        chosen.append((f"vector sum latin bridge={x}", side_only("vector", model)))
    for x in (0.25, 0.5, 1.0):
        model = VectorModel(f"cjk sum {x}", cjk=(x, 1.0, 0.6), combine="sum")
        chosen.append((f"vector sum cjk minilm={x}", side_only("vector", model)))
    chosen.append(("vector use only latin", side_only("vector", VectorModel("u", latin=(0, 0.6, 1.0)))))
    return chosen


# -- the table ----------------------------------------------------------------------------------


def groups(questions: Sequence[Q]) -> dict[str, list[Q]]:
    found: dict[str, list[Q]] = defaultdict(list)
    for q in questions:
        found[q["set"]].append(q)
        found[f"{q['set']}/{q['kind']}"].append(q)
    return dict(sorted(found.items()))


def score(rule: Rule, questions: Sequence[Q]) -> tuple[float, float]:
    ndcg = recall = 0.0
    for q in questions:
        notes = rule(q)
        judged = {path: 1 for path in q["relevant"]}
        ndcg += ndcg_at_k(notes, judged, 10)
        recall += recall_at_k(notes, judged, 10)
    return ndcg / len(questions), recall / len(questions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("features", nargs="+", type=Path)
    parser.add_argument("--only", help="rules whose label contains one of these, comma-separated")
    args = parser.parse_args()
    questions = [q for path in args.features for q in json.loads(path.read_text("utf-8"))]
    sets = groups(questions)
    chosen = rules()
    if args.only:
        wanted = args.only.split(",")
        chosen = [(label, rule) for label, rule in chosen if any(w in label for w in wanted)]
    names = list(sets)
    print("| rule | " + " | ".join(f"{n} ({len(sets[n])})" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for label, rule in chosen:
        cells = [score(rule, sets[name])[0] for name in names]
        print(f"| {label} | " + " | ".join(f"{n:.3f}" for n in cells) + " |")


if __name__ == "__main__":
    main()
