"""What `--about NOTE` does to a search: each question of a set, asked without and with `about`
naming a note its relevant note links to (as an agent that knows the entity a question is about
would), on one snapshot, in one process.

    python benchmarks/bench_about.py [--vault ../shared/data/vaults/knowledge-garden]
        [--queries benchmarks/data/knowledge_garden_queries.jsonl] [--embedder bilingual|none]
        [--cache-dir DIR] [--boost 1.0]

It prints, over every (question, entity) pair: the relevant note's mean reciprocal rank and its
share in first place and in the top 10, without and with `about`; how often the first result is
about the entity whenever the plain top 10 holds a note linking to it (the bar: always); and the
time of a search with `about` beside one without.
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import replace

from dev_set import dev_set_parser, open_dev_set

from memlsp.engine.snapshot import Snapshot
from memlsp.model import SearchRequest, SearchResponse

ENTITIES = 3  # notes linked from each relevant note taken as the entity asked about


def rank_of(response: SearchResponse, path: str) -> int | None:
    paths = [hit.chunk.path for hit in response.hits]
    return paths.index(path) + 1 if path in paths else None


def timed(snapshot: Snapshot, request: SearchRequest) -> tuple[SearchResponse, float]:
    started = time.perf_counter()
    response = snapshot.search(request)
    return response, time.perf_counter() - started


def main() -> int:
    parser = dev_set_parser(__doc__)
    parser.add_argument("--boost", type=float, default=1.0, help="the about_boost setting")
    args = parser.parse_args()
    engine, questions = open_dev_set(args, about_boost=args.boost)
    plain_ranks: list[int | None] = []
    about_ranks: list[int | None] = []
    plain_times: list[float] = []
    about_times: list[float] = []
    held = lifted = 0
    try:
        snapshot = engine.read()
        for question in questions:
            relevant = question["relevant"][0]
            linked = [
                target
                for item in snapshot.graph.outlinks(relevant)
                for target in item.resolution.targets
                if target != relevant and target in snapshot.graph.notes
            ]
            plain_request = SearchRequest(question["query"], expand=False)
            for entity in list(dict.fromkeys(linked))[:ENTITIES]:
                plain, plain_time = timed(snapshot, plain_request)
                favoured, about_time = timed(snapshot, replace(plain_request, about=(entity,)))
                plain_times.append(plain_time)
                about_times.append(about_time)
                plain_ranks.append(rank_of(plain, relevant))
                about_ranks.append(rank_of(favoured, relevant))
                about, _ = snapshot.about([entity])
                if any(hit.chunk.path in about - {entity} for hit in plain.hits[:10]):
                    held += 1
                    lifted += bool(favoured.hits) and favoured.hits[0].chunk.path in about
    finally:
        engine.close()
    print(f"vault: {args.vault.name}; embedder: {args.embedder}; about_boost {args.boost}")
    print(f"{len(plain_ranks)} (question, entity) pairs from {len(questions)} questions")
    print("| search | MRR@10 | relevant first | relevant in top 10 | p50 ms |")
    print("|---|---|---|---|---|")
    for name, ranks, times in (
        ("plain", plain_ranks, plain_times),
        ("--about ENTITY", about_ranks, about_times),
    ):
        mrr = statistics.mean(1 / rank if rank and rank <= 10 else 0 for rank in ranks)
        first = sum(rank == 1 for rank in ranks) / len(ranks)
        top = sum(rank is not None and rank <= 10 for rank in ranks) / len(ranks)
        p50 = statistics.median(times) * 1000
        print(f"| {name} | {mrr:.3f} | {first:.0%} | {top:.0%} | {p50:.1f} |")
    print(f"first result about the entity whenever the plain top 10 held a note linking to it: "
          f"{lifted} of {held}")  # fmt: skip
    return 0 if lifted == held else 1


if __name__ == "__main__":
    sys.exit(main())
