"""Related notes on real vaults: recall@10 of the notes a reader listed, against searching with the
note's own text, and how long one answer takes.

    python benchmarks/bench_related.py [--vaults ../shared/data/vaults] [--data benchmarks/data]
        [--cache-dir benchmarks/build/cache] [--sets vaultofknowledge knowledge-garden]

Each set (`data/related_<vault>.jsonl`, one line per note: `{"note": PATH, "related": [PATH, ...]}`,
written by reading the notes) is about a vault of the shared data folder, read where it is. The
engine runs in this process on the index `bench_vaults.py` keeps in `--cache-dir` (`memlsp index
VAULT --cache-dir DIR` makes it; nothing is embedded here). Per set:

- `related`: `Snapshot.related(note, 10)`, as `memlsp related VAULT NOTE --limit 10` answers;
- the variants compared (`search/related.py` `combine` over the same pairs): the earlier rule
  (best pair + 0.3 x the second best section, +0.2 when linked, ranked by the score held to 1.0),
  then one step at a time to the default: the order by the score not held to 1.0, the link bonus,
  the linked and naming notes the nearest chunks missed as candidates (`compared_pairs`), the
  bonus for naming this note, the bonus for the same folder; and the default with one part
  changed;
- `search`: `memlsp search` in hybrid mode with the note's title and body (its first 2,000
  characters) as the query, the note itself left out.

Recall@10 per set and over every note of both; then the time of one `related` answer (p50, p95)
over the judged notes and 100 others, each asked once after one warm-up answer.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from common import BENCH_DIR, REPO_ROOT
from metrics import recall_at_k

from memlsp.engine.engine import Engine
from memlsp.engine.snapshot import Snapshot
from memlsp.model import SearchRequest
from memlsp.search.related import (
    NoteScore,
    Weights,
    combine,
    compared_pairs,
    note_ties,
    section_pairs,
)
from memlsp.settings.table import Settings

DEFAULT_VAULTS = REPO_ROOT.parent / "shared" / "data" / "vaults"
DEFAULT_CACHE = BENCH_DIR / "build" / "cache"
SETS = ("vaultofknowledge", "knowledge-garden")
K = 10
QUERY_CHARS = 2000
TIMED_OTHERS = 100
NO_BONUS = Weights(second=0.0, linked=0.0, mentions=0.0, same_folder=0.0)


@dataclass(frozen=True)
class Variant:
    label: str
    weights: Weights
    compared: bool = True  # linked and naming notes missed by the nearest chunks are candidates
    held: bool = False  # ranked by the score held to 1.0, as before


VARIANTS = (
    Variant(
        "before: best + 0.3 second, linked +0.2, held to 1.0",
        replace(NO_BONUS, second=0.3, linked=0.2),
        compared=False,
        held=True,
    ),
    Variant(
        "best + 0.3 second, linked +0.2, not held",
        replace(NO_BONUS, second=0.3, linked=0.2),
        compared=False,
    ),
    Variant("best pair, linked +0.2", replace(NO_BONUS, linked=0.2), compared=False),
    Variant("best pair, linked +0.5", replace(NO_BONUS, linked=0.5), compared=False),
    Variant("  + linked and naming notes compared", replace(NO_BONUS, linked=0.5)),
    Variant("  + names it +0.2 x coverage", replace(NO_BONUS, linked=0.5, mentions=0.2)),
    Variant("  + same folder +0.2 (the default)", Weights()),
    Variant("default, nearest chunks only", Weights(), compared=False),
    Variant("default, + 0.3 second", replace(Weights(), second=0.3)),
    Variant("default, linked +0.3", replace(Weights(), linked=0.3)),
    Variant("default, names it +0.1", replace(Weights(), mentions=0.1)),
    Variant("default, names it +0.3", replace(Weights(), mentions=0.3)),
    Variant("default, same folder +0.1", replace(Weights(), same_folder=0.1)),
    Variant("default, same folder +0.3", replace(Weights(), same_folder=0.3)),
    Variant("default, raw cosine", replace(Weights(), placed=False)),
)


def ranked(scores: Sequence[NoteScore], held: bool) -> list[str]:
    """The first K notes, by the score or (`held`) by the score held to 1.0, the best pair next."""
    if held:
        scores = sorted(
            scores, key=lambda n: (-min(1.0, max(0.0, n.score)), -n.best.placed, n.path)
        )
    return [n.path for n in scores[:K]]


@dataclass(frozen=True)
class Judged:
    note: str
    related: tuple[str, ...]


def read_set(path: Path, vault: Path) -> list[Judged]:
    judged = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        entry = json.loads(line)
        related = tuple(p for p in entry["related"] if p != entry["note"])
        missing = [p for p in (entry["note"], *related) if not (vault / p).is_file()]
        if missing:
            sys.exit(f"{path.name} line {number}: not in {vault}: {missing}")
        if related:
            judged.append(Judged(entry["note"], related))
    return judged


def own_text(snapshot: Snapshot, path: str) -> str:
    """The note's title and body (after its frontmatter), cut to `QUERY_CHARS`."""
    note = snapshot.graph.notes[path]
    lines = (snapshot.read(path) or "").split("\n")[note.body_start_line :]
    return (note.title + "\n" + "\n".join(lines))[:QUERY_CHARS]


def searched(snapshot: Snapshot, path: str) -> list[str]:
    request = SearchRequest(
        query=own_text(snapshot, path), limit=K + 1, expand=False, mode="hybrid", min_strength=0.0
    )
    found = [hit.chunk.path for hit in snapshot.search(request).hits]
    return [p for p in dict.fromkeys(found) if p != path][:K]


def mean_recall(
    judged: Sequence[Judged], ranking: Callable[[str], list[str]]
) -> tuple[float, list[float]]:
    each = [recall_at_k(ranking(j.note), dict.fromkeys(j.related, 1), K) for j in judged]
    return (statistics.fmean(each) if each else 0.0), each


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run_set(
    name: str, vault: Path, cache: Path, data: Path
) -> tuple[dict[str, list[float]], list[float]]:
    """Recall@10 of each note, per method; and the seconds of each timed `related` answer."""
    judged = read_set(data / f"related_{name.replace('-', '_')}.jsonl", vault)
    engine = Engine.open(vault, Settings(cache_dir=cache))
    try:
        engine.refresh()
        snapshot = engine.read()
        snapshot = replace(snapshot, vectors=replace(snapshot.vectors, connect=True))
        side = snapshot.vectors.side
        assert side is not None and side.connect(), f"{name}: no vectors in {cache}"
        snapshot.related(judged[0].note, K)  # opens the store and loads what it needs
        recalls: dict[str, list[float]] = {}
        warnings = [(j.note, snapshot.related(j.note, K).warning) for j in judged]
        for note, warning in warnings:
            if warning:
                print(f"  {note}: {warning}")
        _, recalls["related"] = mean_recall(
            judged, lambda p: [r.path for r in snapshot.related(p, K).results]
        )
        graph, keyword = snapshot.graph, snapshot.keyword
        found = {j.note: section_pairs(j.note, graph, keyword, side, K) for j in judged}
        ties = {j.note: note_ties(j.note, graph, keyword) for j in judged}
        more = {
            j.note: compared_pairs(
                j.note, found[j.note], ties[j.note].candidates(), graph, keyword, side
            )
            for j in judged
        }
        for variant in VARIANTS:

            def ranking(path: str, v: Variant = variant) -> list[str]:
                pairs = (*found[path].pairs, *(more[path] if v.compared else ()))
                return ranked(combine(pairs, ties[path], v.weights), v.held)

            _, recalls[variant.label] = mean_recall(judged, ranking)
        _, recalls["search with the note's text"] = mean_recall(
            judged, lambda p: searched(snapshot, p)
        )
        others = sorted(set(snapshot.graph.notes) - {j.note for j in judged})
        timed = [j.note for j in judged] + random.Random(7).sample(
            others, min(TIMED_OTHERS, len(others))
        )
        seconds = []
        for path in timed:
            started = time.perf_counter()
            snapshot.related(path, K)
            seconds.append(time.perf_counter() - started)
        return recalls, seconds
    finally:
        engine.close()


def print_table(results: Mapping[str, dict[str, list[float]]]) -> None:
    sets = list(results)
    methods = list(next(iter(results.values())))
    width = max(map(len, methods)) + 2
    header = "".join(f"{name:>20}" for name in sets) + f"{'overall':>12}"
    print(f"\nrecall@{K} (notes: " + ", ".join(str(len(results[s]["related"])) for s in sets) + ")")
    print(f"{'':<{width}}{header}")
    for method in methods:
        row = "".join(f"{statistics.fmean(results[s][method]):>20.3f}" for s in sets)
        every = [value for s in sets for value in results[s][method]]
        print(f"{method:<{width}}{row}{statistics.fmean(every):>12.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vaults", type=Path, default=DEFAULT_VAULTS)
    parser.add_argument("--data", type=Path, default=BENCH_DIR / "data")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    args = parser.parse_args()
    results: dict[str, dict[str, list[float]]] = {}
    for name in args.sets:
        vault = args.vaults / name
        data = args.data / f"related_{name.replace('-', '_')}.jsonl"
        if not vault.is_dir() or not data.is_file():
            print(f"{name}: skipped ({vault if not vault.is_dir() else data} is absent)")
            continue
        recalls, seconds = run_set(name, vault.resolve(), args.cache_dir.resolve(), args.data)
        results[name] = recalls
        print(
            f"{name}: related in {statistics.median(seconds) * 1000:.0f} ms p50, "
            f"{percentile(seconds, 0.95) * 1000:.0f} ms p95 over {len(seconds)} notes"
        )
    if results:
        print_table(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
