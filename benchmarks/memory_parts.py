"""Where a memlsp process's memory goes: each part loaded one after the other, RSS after each.

    python benchmarks/memory_parts.py VAULT [--cache-dir CACHE]

Loads what the language server holds once a vault is embedded, in the order it loads it, and
prints the resident memory each step added (freed heap pages given back first, so a step is
charged only for what it keeps). With a `--cache-dir` whose vectors are all stored (e.g. the
`cache/` of `bench_lsp.py --semantic --keep DIR`), the Chroma step is that of an embedded vault.
Then 50 hybrid searches, p50 / p95, in this one thread.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from pathlib import Path

from memlsp.heap import limit_arenas, release_memory


def resident_mib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


class Ledger:
    def __init__(self) -> None:
        self.last = resident_mib()
        print(f"{'Python':60s} {self.last:5d} MiB")

    def step(self, what: str) -> None:
        gc.collect()
        release_memory()
        now = resident_mib()
        print(f"{what:60s} +{now - self.last:4d} = {now:5d} MiB")
        self.last = now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--cache-dir", type=Path)
    args = parser.parse_args()
    limit_arenas()
    ledger = Ledger()
    import jieba
    import numpy  # noqa: F401
    import tantivy  # noqa: F401

    from memlsp.engine.engine import Engine
    from memlsp.model import SearchRequest
    from memlsp.settings.table import Settings

    ledger.step("imports: numpy, tantivy, jieba's module, the engine")
    import lsprotocol.types  # noqa: F401
    import pygls.lsp.server  # noqa: F401

    ledger.step("imports: pygls, lsprotocol (the language server only)")
    engine = Engine.open(args.vault, Settings(cache_dir=args.cache_dir), connect_on_search=False)
    engine.refresh()
    ledger.step("the engine: records, link graph, tantivy reader")
    jieba.initialize()
    ledger.step("jieba's dictionary")
    import chromadb  # noqa: F401

    ledger.step("chromadb's import")
    import onnxruntime  # noqa: F401

    ledger.step("onnxruntime's import")
    engine.connect_vectors()
    embedder = engine.vector_side.embedder
    assert embedder is not None, "no embedder: is the `embedder` setting `none`?"
    ledger.step(f"Chroma opened, {engine.read().vectors.status.stored} vector ids listed")
    embedder.embed_query("the harbour lantern is lit at dusk")
    ledger.step("MiniLM (and USE where blocks need it) loaded, an English query embedded")
    embedder.embed_query("量子纠缠的解释")
    embedder.embed_documents(["word " * 300, "长文本 " * 300])
    ledger.step("a Chinese query and two long texts embedded (both models loaded)")
    for query in ("lantern keeper harbour", "量子 纠缠", "gradient notes"):
        engine.read().search(SearchRequest(query=query, mode="vector"))
    ledger.step("three vector searches (Chroma loads its indexes)")
    queries = ["lantern keeper harbour", "量子 纠缠", "gradient notes", "river stone mill"] * 13
    took = []
    for query in queries[:50]:
        started = time.perf_counter()
        engine.read().search(SearchRequest(query=query, mode="hybrid"))
        took.append(time.perf_counter() - started)
    took.sort()
    p95 = took[int(len(took) * 0.95)]
    print(f"hybrid search p50 / p95: {statistics.median(took) * 1000:.1f} / {p95 * 1000:.1f} ms")
    print(f"{'all of it':60s} {resident_mib():5d} MiB")
    engine.close()


if __name__ == "__main__":
    main()
