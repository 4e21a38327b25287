"""What explaining costs: the same searches with and without `explain`, side by side, in one run.

    python benchmarks/bench_explain.py [--vault ../shared/data/vaults/knowledge-garden]
        [--queries benchmarks/data/knowledge_garden_queries.jsonl] [--embedder bilingual|none]
        [--cache-dir DIR] [--rounds 3]

Indexes the vault (and embeds it, unless `--embedder none`) into the cache folder, then asks each
question of the set in one process, alternately without and with `explain` naming three notes:
the question's relevant note (often shown, sometimes past the limit), a note far from it, and a
name no note has. Each pair runs on the same snapshot, the plain one first and then the other
way round, so that neither gains from caches the other warmed. It checks that the results are
identical, and prints p50, p95 and the mean of each, and their ratio (the bar: at most 2x).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from dataclasses import replace

from dev_set import dev_set_parser, open_dev_set, percentile

from memlsp.model import SearchRequest


def main() -> int:
    parser = dev_set_parser(__doc__)
    args = parser.parse_args()
    engine, questions = open_dev_set(args)
    try:
        snapshot = engine.read()
        notes = sorted(path for path, record in snapshot.records.items() if record.note)
        pick = random.Random(7)
        plain_times: list[float] = []
        explain_times: list[float] = []
        for _ in range(args.rounds):
            for number, question in enumerate(questions):
                far = pick.choice(notes)
                asked = (*question.get("relevant", [])[:1], far, "no note has this name")
                plain = SearchRequest(question["query"])
                explained = replace(plain, explain=asked)
                order = [(plain, plain_times), (explained, explain_times)]
                if number % 2:
                    order.reverse()
                answers = {}
                for request, times in order:
                    started = time.perf_counter()
                    answers[bool(request.explain)] = snapshot.search(request)
                    times.append(time.perf_counter() - started)
                with_explain = answers[True]
                if replace(with_explain, explained=()) != answers[False]:
                    print(f"results differ for {question['id']}", file=sys.stderr)
                    return 1
                assert len(with_explain.explained) == len(asked)
    finally:
        engine.close()
    print(f"vault: {args.vault.name}, {len(notes):,} notes; embedder: {args.embedder}")
    print(f"{len(plain_times)} searches each ({len(questions)} questions x {args.rounds} rounds)")
    print("| search | p50 ms | p95 ms | mean ms |")
    print("|---|---|---|---|")
    for name, times in (("plain", plain_times), ("explain 3 notes", explain_times)):
        row = [percentile(times, 0.5), percentile(times, 0.95), statistics.mean(times)]
        print(f"| {name} | " + " | ".join(f"{value * 1000:.1f}" for value in row) + " |")
    ratio = statistics.median(explain_times) / statistics.median(plain_times)
    mean_ratio = statistics.mean(explain_times) / statistics.mean(plain_times)
    print(f"ratio explain/plain: p50 {ratio:.2f}x, mean {mean_ratio:.2f}x (bar: at most 2x)")
    return 0 if max(ratio, mean_ratio) <= 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
