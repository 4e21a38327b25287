"""What unloading idle models (`model_idle_seconds`) gives back, and what the first question after
it costs: one process with the default embedder, as a server holds it.

    PYTHONPATH=. python benchmarks/bench_model_idle.py [--rounds 5] [--cycles 20]

Embeds the fixture vault's paragraphs as a backfill does (groups of 4, freed pages given back after
every 16), then prints the resident memory (VmRSS) with both models loaded and once they are
unloaded (`BilingualEmbedder.unload_idle`, then `release_memory`, as the server's embedding thread
does). Then, `--rounds` times each, from unloaded models: the first English question and the first
Chinese one of a vault with notes in both languages (each loads both models: every question reads
USE's blocks), the first English question of an English-only vault (MiniLM alone), and each
model's load alone; beside the same questions with the models loaded. Medians, with the range.
Last, the memory once the models were loaded and unloaded `--cycles` times more: glibc and
Python's allocator keep a little of each load, up to a point. The int8 MiniLM is converted once
per machine beforehand if it is not yet (not timed).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from memlsp.heap import limit_arenas, release_memory, resident_mib

BENCH_DIR = Path(__file__).resolve().parent
VAULT = BENCH_DIR.parent / "fixtures" / "vault"
GROUP, STEP = 4, 16  # as index/semantic.py embeds: texts per model call, per step


def paragraphs() -> list[str]:
    texts = []
    for note in sorted(VAULT.rglob("*.md")):
        for block in note.read_text(encoding="utf-8").split("\n\n"):
            if len(block.strip()) >= 20:
                texts.append(block.strip())
    return texts


def questions(name: str, count: int) -> list[str]:
    lines = (BENCH_DIR / "data" / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["query"] for line in lines[:count]]


def rss() -> int:
    gc.collect()
    release_memory()
    return resident_mib() or 0


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def summary(ms: list[float]) -> str:
    return f"{statistics.median(ms):7.1f} ms  ({min(ms):.1f}-{max(ms):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cycles", type=int, default=20)
    args = parser.parse_args()
    limit_arenas()
    import memlsp
    from memlsp.embed.bilingual import BilingualEmbedder
    from memlsp.embed.factory import build_embedder
    from memlsp.settings.table import Settings

    print(f"memlsp from {Path(memlsp.__file__).parent}")
    embedder = build_embedder(Settings())
    assert isinstance(embedder, BilingualEmbedder)
    embedder.latin.get()  # converts MiniLM to int8 products once per machine, in a child process
    embedder.unload_idle(0.0)
    english = questions("vaultofknowledge_queries.jsonl", args.rounds)
    chinese = questions("knowledge_garden_queries.jsonl", args.rounds)
    texts = paragraphs()
    print(f"{'before any model is loaded':58s} {rss():5d} MiB")

    started = time.perf_counter()
    for start in range(0, len(texts), GROUP):
        embedder.embed_documents(texts[start : start + GROUP])
        if (start + GROUP) % STEP == 0:
            release_memory()
    seconds = time.perf_counter() - started
    for query in english + chinese:
        embedder.embed_query(query)
    loaded = rss()
    print(
        f"{len(texts)} paragraphs embedded in {seconds:.1f} s, {len(english + chinese)} questions"
    )
    print(f"{'both models loaded':58s} {loaded:5d} MiB")
    embedder.unload_idle(0.0)
    unloaded = rss()
    print(
        f"{'both unloaded, freed pages given back':58s} {unloaded:5d} MiB ({unloaded - loaded:+d})"
    )

    def unloaded_then(action: Callable[[], object]) -> float:
        embedder.unload_idle(0.0)
        release_memory()
        return timed(action)

    def first(query: str) -> float:
        return unloaded_then(lambda: embedder.embed_query(query))

    def warm(query: str) -> float:
        return timed(lambda: embedder.embed_query(query))

    embedder.embed_query(english[0] + " " + chinese[0])  # both models loaded again
    rows = {
        "English question, models loaded": [warm(q) for q in english],
        "Chinese question, models loaded": [warm(q) for q in chinese],
        "first English question after an unload (both models)": [first(q) for q in english],
        "first Chinese question after an unload (both models)": [first(q) for q in chinese],
    }
    both = rss()
    embedder.use_parts((True, False, True))  # no Chinese note: an English question reads MiniLM
    rows["first English question, English-only vault (MiniLM)"] = [first(q) for q in english]
    rows["MiniLM loaded alone"] = [unloaded_then(embedder.latin.get) for _ in english]
    rows["USE loaded alone"] = [unloaded_then(embedder.cjk.get) for _ in english]
    for name, ms in rows.items():
        print(f"{name:58s} {summary(ms)}")
    embedder.unload_idle(0.0)
    print(f"{'after the rounds, loaded / unloaded again':58s} {both:5d} / {rss():5d} MiB")
    embedder.use_parts((True, True, True))
    for _ in range(args.cycles):
        embedder.embed_documents([*texts[:8], "word " * 300, "长文本 " * 300])
        embedder.embed_query(english[0] + " " + chinese[0])
        both = rss()
        embedder.unload_idle(0.0)
    cycles = f"after {args.cycles} more loads and unloads, loaded / unloaded"
    print(f"{cycles:58s} {both:5d} / {rss():5d} MiB")


if __name__ == "__main__":
    main()
