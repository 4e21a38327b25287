"""Related notes on real vaults: recall@10 of the notes a reader listed, against searching with the
note's own text, and how long one answer takes.

    python benchmarks/bench_related.py [--vaults ../shared/data/vaults] [--data benchmarks/data]
        [--cache-dir benchmarks/build/cache] [--sets vaultofknowledge knowledge-garden]

Each set (`data/related_<vault>.jsonl`, one line per note: `{"note": PATH, "related": [PATH, ...]}`,
written by reading the notes) is about a vault of the shared data folder, read where it is. The
engine runs in this process on the index `bench_vaults.py` keeps in `--cache-dir` (`memlsp index
VAULT --cache-dir DIR` makes it; nothing is embedded here). Per set:

- `related`: `Snapshot.related(note, 10)`, as `memlsp related VAULT NOTE --limit 10` answers;
- the combinations compared: the same section pairs combined with other shares of the second best
  section, on the embedder's scale or by raw cosine, with other bonuses for a linked note
  (`search/related.py` `combine`);
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

from memlsp.config import Settings
from memlsp.engine import Engine
from memlsp.model import SearchRequest
from memlsp.search.related import combine, linked_notes, section_pairs
from memlsp.snapshot import Snapshot

DEFAULT_VAULTS = REPO_ROOT.parent / "shared" / "data" / "vaults"
DEFAULT_CACHE = BENCH_DIR / "build" / "cache"
SETS = ("vaultofknowledge", "knowledge-garden")
K = 10
QUERY_CHARS = 2000
TIMED_OTHERS = 100
# (label, share of the second best section, on the embedder's scale, bonus of a linked note)
COMBINATIONS = (
    ("best pair, scaled, no link bonus", 0.0, True, 0.0),
    ("best + 0.3 second, scaled, no link bonus", 0.3, True, 0.0),
    ("best + 0.5 second, scaled, no link bonus", 0.5, True, 0.0),
    ("best + 1.0 second, scaled, no link bonus", 1.0, True, 0.0),
    ("best pair, raw cosine, no link bonus", 0.0, False, 0.0),
    ("best + 0.3 second, raw cosine, no link bonus", 0.3, False, 0.0),
    ("best pair, scaled, link bonus 0.2", 0.0, True, 0.2),
    ("best + 0.3 second, scaled, link bonus 0.1", 0.3, True, 0.1),
    ("best + 0.3 second, scaled, link bonus 0.3", 0.3, True, 0.3),
)


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
        pairs = {
            j.note: section_pairs(j.note, snapshot.graph, snapshot.keyword, side, K).pairs
            for j in judged
        }
        linked = {j.note: linked_notes(snapshot.graph, j.note) for j in judged}
        for label, second, placed, bonus in COMBINATIONS:

            def ranking(
                path: str, s: float = second, c: bool = placed, b: float = bonus
            ) -> list[str]:
                return [n.path for n in combine(pairs[path], s, c, linked[path], b)[:K]]

            _, recalls[label] = mean_recall(judged, ranking)
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
