"""How fusion rules rank on the development sets, offline, from `search_features.py`'s output.

    python benchmarks/fusion_study.py benchmarks/build/features-*.json [--only LABEL,...]

Each rule turns one question's candidates (keyword BM25 and coverage, cosine per vector block,
note fields) into a ranking of notes, and the table gives note-level nDCG@10 per set and kind of
question. The rules compared:
- each side alone, by its raw score and by its evidence with notes ranked as memlsp ranks them;
- "min-max": the rule memlsp had before, each side min-max scaled, the vector side weighted 0.6,
  rising for queries whose words the vault lacks;
- "rrf": reciprocal rank fusion over notes;
- "evidence": memlsp's default (search/fusion.py, search/notes.py), and variants of it: other
  powers of coverage, other weights, without the notes' second sections or fields, and each
  side weighted per query by its best evidence;
- "ensemble": English questions reading English notes by MiniLM and USE (the bridge block)
  together, `bridge` the share of USE;
- "learned": a logistic regression over the same evidence per note (best keyword and vector
  evidence, second section, fields), trained on every other set and scored on the one left out.
Choose rules on development sets only (our questions, SciFact train); held-out judgements are
for the figures of benchmarks/README.md.
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

import numpy as np
from common import BENCH_DIR  # noqa: F401  (puts the repository on sys.path)
from metrics import ndcg_at_k

from memlsp.embed.bilingual import CJK_QUERY, LATIN_QUERY, cjk_share
from memlsp.search.evidence import BM25_SHARE
from memlsp.search.notes import NAMED, SECOND_SECTION

Q = Mapping[str, Any]
Rule = Callable[[Q], list[str]]


def ranked(scores: Mapping[str, float]) -> list[str]:
    return [key for key, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0]))]


def best_per_note(scores: Mapping[str, float], paths: Mapping[str, str]) -> dict[str, float]:
    best: dict[str, float] = {}
    for key, value in scores.items():
        if value > best.get(paths[key], -math.inf):
            best[paths[key]] = value
    return best


def minmax(scores: Mapping[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    return {k: (v - low) / (high - low) if high > low else 1.0 for k, v in scores.items()}


# -- the vector side ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Vectors:
    """How a chunk's similarity is read from its blocks' cosines: memlsp's best block, each
    weighted by the query's share in it; with `bridge`, an English question reads an English
    chunk by `(minilm + bridge * use) / (1 + bridge)` on MiniLM's scale times `shift`."""

    bridge: float = 0.0
    shift: float = 1.0

    def placed(self, q: Q, row: Sequence[Any]) -> float:
        """The chunk's similarity placed on its block's scale, unclipped (embed/base.py)."""
        chinese = cjk_share(q["query"]) >= 0.1
        weights = CJK_QUERY if chinese else LATIN_QUERY
        norm = math.sqrt(sum(w * w for w in weights))
        best = -math.inf
        for index, cos in enumerate(row[1:]):
            if cos is None or not weights[index]:
                continue
            low, high, _ = q["scales"][index]
            similarity = weights[index] / norm * cos
            if index == 0 and self.bridge and not chinese:
                use = row[3] if row[3] is not None else cos
                similarity = weights[0] / norm * (cos + self.bridge * use) / (1 + self.bridge)
                low, high = low * self.shift, high * self.shift
            best = max(best, (similarity - low) / (high - low))
        return best

    def similarity(self, q: Q, row: Sequence[Any]) -> float:
        """The chunk's similarity as the vector store gives it: its best block's cosine times
        the query's share in that block."""
        weights = CJK_QUERY if cjk_share(q["query"]) >= 0.1 else LATIN_QUERY
        norm = math.sqrt(sum(w * w for w in weights))
        return max(
            (
                w / norm * cos
                for w, cos in zip(weights, row[1:], strict=True)
                if cos is not None and w
            ),
            default=-1.0,
        )


MEMLSP = Vectors()


def vector_evidence(q: Q, vectors: Vectors) -> dict[str, float]:
    return {key: vectors.placed(q, row) for key, row in q["vector"].items()}


def keyword_evidence(q: Q, power: float, bm25_share: float = BM25_SHARE) -> dict[str, float]:
    """`power` below 0: coverage above -power counts, linearly, from 0 there to 1 at 1."""
    scores = minmax({key: score for key, _, score in q["keyword"]})

    def shaped(cover: float) -> float:
        if power >= 0:
            return float(cover**power)
        return max(0.0, (cover + power) / (1 + power))

    return {
        key: shaped(q["coverage"].get(key, 0.0)) * (1 - bm25_share + bm25_share * scores[key])
        for key in scores
    }


# -- rules -------------------------------------------------------------------------------------


def side_alone(side: str, raw: bool) -> Rule:
    def rule(q: Q) -> list[str]:
        if side == "keyword":
            scores = {key: s for key, _, s in q["keyword"]} if raw else keyword_evidence(q, 2)
        elif raw:
            scores = {key: MEMLSP.similarity(q, row) for key, row in q["vector"].items()}
        else:
            scores = vector_evidence(q, MEMLSP)
        if raw:
            return ranked(best_per_note(scores, q["paths"]))
        return as_notes(scores, q, 0.0 if side == "vector" else 1.0, SECOND_SECTION, NAMED)

    return rule


def min_max(weight: float = 0.6) -> Rule:
    """The rule memlsp had before: min-max per side, the vector weight rising with the share of
    the query's words the vault lacks."""

    def rule(q: Q) -> list[str]:
        w = weight + (1 - weight) * (1 - q["known"]) ** 2
        kw = minmax({key: s for key, _, s in q["keyword"]})
        # The store's first 200 by similarity, as memlsp asked for them.
        similar = {key: MEMLSP.similarity(q, row) for key, row in q["vector"].items()}
        vec = minmax(dict(sorted(similar.items(), key=lambda item: -item[1])[:200]))
        fused = {k: (1 - w) * kw.get(k, 0) + w * vec.get(k, 0) for k in {*kw, *vec}}
        return ranked(best_per_note(fused, q["paths"]))

    return rule


def rrf(k: int = 60) -> Rule:
    def rule(q: Q) -> list[str]:
        fused: dict[str, float] = defaultdict(float)
        vector = {key: MEMLSP.similarity(q, row) for key, row in q["vector"].items()}
        sides = ({key: s for key, _, s in q["keyword"]}, vector)
        for side in sides:
            for rank, path in enumerate(ranked(best_per_note(side, q["paths"])), 1):
                fused[path] += 1 / (k + rank)
        return ranked(fused)

    return rule


def as_notes(
    fused: Mapping[str, float], q: Q, keyword_weight: float, second: float, named: float
) -> list[str]:
    """Notes by their best section, plus `second` of their second best, plus `named` (times the
    keyword side's weight) of their fields' evidence (search/notes.py)."""
    sections: dict[str, list[float]] = defaultdict(list)
    for key, value in fused.items():
        sections[q["paths"][key]].append(value)
    scores = {}
    for path, values in sections.items():
        values.sort(reverse=True)
        fields = q["notes"].get(path, {})
        name = max(fields.get(f, 0.0) for f in ("title", "aliases", "description")) ** 2
        extra = second * max(values[1], 0.0) if len(values) > 1 else 0.0
        scores[path] = values[0] + extra + keyword_weight * named * name
    return ranked(scores)


def fused_evidence(
    q: Q,
    power: float,
    alpha: float,
    vectors: Vectors,
    gate: bool = False,
    bm25: float = BM25_SHARE,
) -> dict[str, float]:
    """Each candidate's weighted evidence (search/fusion.weigh_evidence); `gate` also weighs
    each side by its best evidence among its first ten, per query."""
    kw = keyword_evidence(q, power, bm25)
    vec = vector_evidence(q, vectors)
    k_weight, v_weight = alpha, 1 - alpha
    if gate:
        k_best = max(sorted(kw.values(), reverse=True)[:10], default=0.0)
        v_best = min(1.0, max(0.0, max(vec.values(), default=0.0)))
        k_weight, v_weight = alpha * k_best, (1 - alpha) * v_best
        if k_weight + v_weight == 0:
            k_weight, v_weight = alpha, 1 - alpha
    missed_k = min(0.0, min(kw.values(), default=0.0))
    missed_v = min(0.0, min(vec.values(), default=0.0))
    return {
        key: k_weight * kw.get(key, missed_k) + v_weight * vec.get(key, missed_v)
        for key in {*kw, *vec}
    }


def evidence(
    power: float = 2,
    alpha: float = 0.5,
    second: float = SECOND_SECTION,
    named: float = NAMED,
    vectors: Vectors = MEMLSP,
    gate: bool = False,
    bm25: float = BM25_SHARE,
) -> Rule:
    def rule(q: Q) -> list[str]:
        fused = fused_evidence(q, power, alpha, vectors, gate, bm25)
        return as_notes(fused, q, alpha, second, named)

    return rule


# -- a learned combination ---------------------------------------------------------------------


def note_features(q: Q) -> tuple[list[str], np.ndarray]:
    """Per candidate note: best keyword evidence, best vector evidence, second best fused
    evidence, field evidence."""
    kw = keyword_evidence(q, 2)
    vec = vector_evidence(q, MEMLSP)
    fused = fused_evidence(q, 2, 0.5, MEMLSP)
    paths = sorted({q["paths"][key] for key in fused})
    rows = []
    for path in paths:
        keys = [key for key in fused if q["paths"][key] == path]
        values = sorted((fused[key] for key in keys), reverse=True)
        fields = q["notes"].get(path, {})
        rows.append(
            [
                max((kw.get(key, 0.0) for key in keys), default=0.0),
                max((vec.get(key, -1.0) for key in keys), default=-1.0),
                max(values[1], 0.0) if len(values) > 1 else 0.0,
                max(fields.get(f, 0.0) for f in ("title", "aliases", "description")) ** 2,
            ]
        )
    return paths, np.array(rows, dtype=np.float64).reshape(len(paths), 4)


def learn(questions: Sequence[Q]) -> np.ndarray:
    """Logistic regression weights (bias last) over the notes' features, by gradient descent."""
    xs, ys = [], []
    for q in questions:
        paths, features = note_features(q)
        xs.append(features)
        ys.append([path in q["relevant"] for path in paths])
    x = np.vstack(xs)
    x = np.hstack([x, np.ones((len(x), 1))])
    y = np.concatenate(ys).astype(np.float64)
    balance = np.where(y > 0, (len(y) - y.sum()) / max(y.sum(), 1), 1.0)
    w = np.zeros(x.shape[1])
    for _ in range(2000):
        p = 1 / (1 + np.exp(-(x @ w)))
        w -= 0.5 * (x.T @ ((p - y) * balance)) / len(y)
    return w


def learned(weights: np.ndarray) -> Rule:
    def rule(q: Q) -> list[str]:
        paths, features = note_features(q)
        scores = features @ weights[:-1]
        return ranked(dict(zip(paths, scores.tolist(), strict=True)))

    return rule


# -- the table ----------------------------------------------------------------------------------


def rules() -> list[tuple[str, Rule]]:
    return [
        ("keyword alone (BM25)", side_alone("keyword", raw=True)),
        ("keyword alone (evidence, notes)", side_alone("keyword", raw=False)),
        ("vector alone (similarity)", side_alone("vector", raw=True)),
        ("vector alone (evidence, notes)", side_alone("vector", raw=False)),
        ("min-max, w_v 0.6 adaptive (before)", min_max()),
        ("rrf k=60", rrf()),
        ("evidence (default)", evidence()),
        ("evidence, coverage^1", evidence(power=1)),
        ("evidence, coverage^3", evidence(power=3)),
        ("evidence, coverage over 0.2", evidence(power=-0.2)),
        ("evidence, coverage over 0.3", evidence(power=-0.3)),
        ("evidence, coverage over 0.4", evidence(power=-0.4)),
        ("evidence, w_v 0.4", evidence(alpha=0.6)),
        ("evidence, w_v 0.6", evidence(alpha=0.4)),
        ("evidence, BM25 share 0.5", evidence(bm25=0.5)),
        ("evidence, BM25 share 0.75", evidence(bm25=0.75)),
        ("evidence, BM25 share 1", evidence(bm25=1.0)),
        ("evidence, coverage^2.5", evidence(power=2.5)),
        ("evidence, coverage^2.5, w_v 0.4", evidence(power=2.5, alpha=0.6)),
        ("evidence, no second section", evidence(second=0.0)),
        ("evidence, no fields", evidence(named=0.0)),
        ("evidence, each side gated by its best", evidence(gate=True)),
        ("evidence, ensemble bridge 0.25", evidence(vectors=Vectors(0.25, 0.95))),
        ("evidence, ensemble bridge 0.35", evidence(vectors=Vectors(0.35, 0.95))),
        ("vector alone, ensemble bridge 0.35", evidence(alpha=0.0, vectors=Vectors(0.35, 0.95))),
    ]


def groups(questions: Sequence[Q]) -> dict[str, list[Q]]:
    found: dict[str, list[Q]] = defaultdict(list)
    for q in questions:
        found[q["set"]].append(q)
        if q["kind"] != q["set"]:
            found[f"{q['set']}/{q['kind']}"].append(q)
    return dict(sorted(found.items()))


def ndcg(rule: Rule, questions: Sequence[Q]) -> float:
    total = sum(ndcg_at_k(rule(q), {p: 1 for p in q["relevant"]}, 10) for q in questions)
    return total / len(questions)


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
        cells = [ndcg(rule, sets[name]) for name in names]
        print(f"| {label} | " + " | ".join(f"{n:.3f}" for n in cells) + " |")
    if not args.only or "learned" in args.only:
        vaults = sorted({str(q["set"]) for q in questions})
        cells = []
        for name in names:
            left_out = name.split("/")[0]
            train = [q for q in questions if q["set"] != left_out] if len(vaults) > 1 else []
            rule = learned(learn(train or questions))
            cells.append(ndcg(rule, sets[name]))
        print("| learned, leave one set out | " + " | ".join(f"{n:.3f}" for n in cells) + " |")


if __name__ == "__main__":
    main()
