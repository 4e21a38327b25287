"""What property filters cost: the same searches with and without `where`, side by side.

    python benchmarks/bench_filters.py [--vault ../shared/data/vaults/knowledge-garden]
        [--queries benchmarks/data/knowledge_garden_queries.jsonl] [--embedder bilingual|none]
        [--cache-dir DIR] [--rounds 3]

Indexes the vault (and embeds it, unless `--embedder none`) into the cache folder, then asks each
question of the set in one process, without and with a property filter (in turn `type=Movie`,
`state=想看`, `author`, `myRating>=4`, `type!=Movie`: scopes of 317 to 2,477 of knowledge-garden's
3,176 notes). Each pair runs on the same snapshot, the plain one first and then the other way
round, so that neither gains from caches the other warmed. It checks that every filtered result
holds its filter, and prints p50, p95 and the mean of each, and their ratio (the bar: at most
1.2x); then the time of a list by each filter alone (no query, every matching note).
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import replace

from dev_set import dev_set_parser, open_dev_set, percentile

from memlsp.model import MAX_LIMIT, SearchRequest
from memlsp.search.scope import NoteScope

FILTERS = ("type=Movie", "state=想看", "author", "myRating>=4", "type!=Movie")


def line(label: str, times: list[float]) -> str:
    p50, p95 = percentile(times, 0.5) * 1000, percentile(times, 0.95) * 1000
    return f"| {label} | {p50:.1f} | {p95:.1f} | {statistics.mean(times) * 1000:.1f} |"


def main() -> int:
    parser = dev_set_parser(__doc__)
    args = parser.parse_args()
    engine, questions = open_dev_set(args)
    try:
        snapshot = engine.read()
        plain_times: list[float] = []
        filtered_times: list[float] = []
        # per filter: (plain, filtered) times of the questions asked with it
        by_filter: dict[str, tuple[list[float], list[float]]] = {f: ([], []) for f in FILTERS}
        for _ in range(args.rounds):
            for number, question in enumerate(questions):
                where = FILTERS[number % len(FILTERS)]
                plain = SearchRequest(question["query"])
                filtered = replace(
                    plain, where=(NoteScope.from_entries((), (), where).where[0].text,)
                )
                order = [(plain, plain_times, 0), (filtered, filtered_times, 1)]
                if number % 2:
                    order.reverse()
                answers = {}
                for request, times, side in order:
                    started = time.perf_counter()
                    answers[bool(request.where)] = snapshot.search(request)
                    times.append(time.perf_counter() - started)
                    by_filter[where][side].append(times[-1])
                scope = NoteScope.from_entries((), (), where)
                for hit in answers[True].hits:
                    if scope.first_failed(snapshot.graph.notes[hit.chunk.path], snapshot.graph):
                        print(f"{hit.chunk.path} does not hold {where}", file=sys.stderr)
                        return 1
        listing_times: dict[str, tuple[float, int]] = {}
        for where in FILTERS:
            request = SearchRequest("", limit=MAX_LIMIT, where=(where,), expand=False)
            runs = []
            for _ in range(args.rounds):
                started = time.perf_counter()
                listed = snapshot.search(request)
                runs.append(time.perf_counter() - started)
            listing_times[where] = (statistics.median(runs), len(listed.hits))
    finally:
        engine.close()
    print(
        f"{args.vault.name}: {len(questions)} questions x {args.rounds}, embedder {args.embedder}"
    )
    print("| search | p50 ms | p95 ms | mean ms |")
    print("|---|---|---|---|")
    print(line("plain", plain_times))
    print(line("with a filter", filtered_times))
    ratio = percentile(filtered_times, 0.5) / percentile(plain_times, 0.5)
    print(f"p50 ratio {ratio:.2f}x (bar: at most 1.2x): {'PASS' if ratio <= 1.2 else 'FAIL'}")
    print("| filter | scope (notes) | plain p50 ms | filtered p50 ms |")
    print("|---|---|---|---|")
    for where, (plain_list, filtered_list) in by_filter.items():
        notes = listing_times[where][1]
        p50s = percentile(plain_list, 0.5) * 1000, percentile(filtered_list, 0.5) * 1000
        print(f"| {where} | {notes} | {p50s[0]:.1f} | {p50s[1]:.1f} |")
    print("| list by filter alone | notes | median ms |")
    print("|---|---|---|")
    for where, (seconds, count) in listing_times.items():
        print(f"| {where} | {count} | {seconds * 1000:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
