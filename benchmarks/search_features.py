"""Everything a fusion rule could weigh, per question and candidate, from the benchmarks' indexes.

    python benchmarks/search_features.py OUT.json [--sets vaultofknowledge,knowledge-garden]
        [--cache-dir benchmarks/build/cache] [--scifact benchmarks/build/scifact --split train]

The vaults must have been indexed with the default embedder first (`bench_vaults.py` does it, into
the same `--cache-dir`; `bench_scifact.py --keep DIR` for SciFact). For each question this opens
the vault's engine and records, without fusing anything:
- the keyword side's first CANDIDATES chunks: BM25 score and the idf-weighted share of the
  query's words each contains (`search/evidence.coverage`; a chunk the keyword side did not
  find counts as containing none);
- the vector side per block of the bilingual embedder, each model's own query vector
  (block 0: MiniLM of Latin-script chunks; 1: USE of Chinese chunks; 2: USE of Latin-script
  chunks, the bridge): the first CANDIDATES chunks of each block, and the exact cosine of every
  candidate in every block that holds it, so a rule may combine blocks;
- each candidate note's title, aliases and description, with the share of the query's words
  they contain; the query's share of known words and the blocks' similarity scales.
`fusion_study.py --features OUT.json` ranks notes from these by each rule. Choose rules on
development sets only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from bench_vaults import DEFAULT_CACHE, DEFAULT_VAULTS, SETS, Question, read_questions

from memlsp.embed.base import similarity_scales
from memlsp.engine.engine import Engine
from memlsp.search.evidence import coverage
from memlsp.settings.table import Settings

CANDIDATES = 200


def _block_queries(embedder: Any, query: str) -> list[np.ndarray | None]:
    """Each block's own query vector (unit length), None for a block the embedder lacks."""
    latin = embedder.latin.get().embed_query(query)[0]
    cjk = embedder.cjk.get().embed_query(query)[0]
    return [latin, cjk, cjk]


def _vector_features(store: Any, vectors: list[np.ndarray | None]) -> dict[str, list[Any]]:
    """chunk id -> [path, cosine in block 0, 1, 2 (None where the block lacks the chunk)]."""
    found: dict[str, list[Any]] = {}
    blocks = store._blocks
    for index, (_, _, collection) in enumerate(blocks):
        vector = vectors[index]
        if vector is None or collection.count() == 0:
            continue
        answer = collection.query(
            query_embeddings=vector.reshape(1, -1),
            n_results=min(CANDIDATES, collection.count()),
            include=["distances", "metadatas"],
        )
        for chunk_id, distance, meta in zip(
            answer["ids"][0], answer["distances"][0], answer["metadatas"][0], strict=True
        ):
            row = found.setdefault(chunk_id, [meta.get("path", ""), None, None, None])
            row[1 + index] = round(1.0 - float(distance), 6)
    ids = list(found)
    for index, (_, _, collection) in enumerate(blocks):
        vector = vectors[index]
        missing = [i for i in ids if found[i][1 + index] is None]
        if vector is None or not missing:
            continue
        got = collection.get(ids=missing, include=["embeddings"])
        for chunk_id, embedding in zip(got["ids"], got["embeddings"], strict=True):
            stored = np.asarray(embedding, dtype=np.float32)
            norm = float(np.linalg.norm(stored)) or 1.0
            found[chunk_id][1 + index] = round(float(stored @ vector) / norm, 6)
    return found


def features(engine: Engine, question: Any) -> dict[str, Any]:
    snapshot = engine.read()
    keyword, graph = snapshot.keyword, snapshot.graph
    side = snapshot.vectors.side
    assert side is not None and side.connect(), "the vault has no vectors: index it first"
    terms = keyword.query_terms(question.query)
    stats = keyword.term_stats(terms)
    weights = stats.weights()
    keyword_hits = keyword.search(terms, CANDIDATES)
    chunks = {hit.chunk.id: hit.chunk for hit in keyword_hits}
    vectors = _vector_features(side.store, _block_queries(side.embedder, question.query))
    chunks.update(keyword.chunks_by_id([i for i in vectors if i not in chunks]))
    vectors = {key: value for key, value in vectors.items() if key in chunks}
    notes: dict[str, Any] = {}
    for chunk in chunks.values():
        note = graph.notes.get(chunk.path)
        if note is None or chunk.path in notes:
            continue
        fields = {
            "title": " ".join((note.title, note.stem)),
            "aliases": " ".join(note.aliases),
            "description": note.description,
        }
        notes[chunk.path] = {
            name: round(coverage(keyword.terms(text), weights), 6) for name, text in fields.items()
        } | {"chunks": len(snapshot.records[chunk.path].chunk_ids)}
    assert side.embedder is not None
    scales = [[scale.low, scale.high, scale.floor] for scale in side.scales(question.query)] or [
        [s.low, s.high, s.floor] for s in similarity_scales(side.embedder, question.query)
    ]
    return {
        "id": question.id,
        "query": question.query,
        "kind": question.kind,
        "relevant": list(question.relevant),
        "known": stats.known_share,
        "scales": scales,
        "keyword": [[hit.chunk.id, hit.chunk.path, round(hit.score, 6)] for hit in keyword_hits],
        "coverage": {
            hit.chunk.id: round(coverage(hit.matched, weights), 6) for hit in keyword_hits
        },
        "vector": vectors,
        "paths": {key: chunk.path for key, chunk in chunks.items()},
        "notes": notes,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--sets", default=",".join(s.name for s in SETS))
    parser.add_argument("--vaults", type=Path, default=DEFAULT_VAULTS)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--scifact", type=Path, help="bench_scifact.py --keep folder")
    parser.add_argument("--split", default="train", help="SciFact split (never test)")
    args = parser.parse_args(argv)
    wanted = set(args.sets.split(",")) if args.sets else set()
    records: list[dict[str, Any]] = []
    for qset in SETS:
        if qset.name not in wanted:
            continue
        vault = args.vaults / getattr(qset, "vault", qset.name)
        engine = Engine.open(vault, Settings(cache_dir=args.cache_dir.resolve()))
        try:
            for question in read_questions(qset.queries):
                records.append({"set": qset.name, **features(engine, question)})
        finally:
            engine.close()
        print(f"{qset.name}: {sum(r['set'] == qset.name for r in records)} questions")
    if args.scifact is not None:
        records += scifact_features(args.scifact, args.split)
    args.out.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {args.out} ({len(records)} questions)")
    return 0


def scifact_features(keep: Path, split: str) -> list[dict[str, Any]]:
    """SciFact's judged questions of `split` over the vault bench_scifact.py wrote into `keep`."""
    if split == "test":
        sys.exit("choose rules on train or dev, never on held-out judgements")
    from bench_scifact import DEFAULT_DATA, query_texts, read_qrels

    qrels = read_qrels(DEFAULT_DATA / "qrels" / f"{split}.tsv")
    texts = query_texts(DEFAULT_DATA / "queries.jsonl")
    questions = [
        Question(qid, texts[qid], tuple(f"docs/{doc}.md" for doc in docs), "scifact")
        for qid, docs in qrels.items()
        if qid in texts
    ]
    engine = Engine.open(keep / "vault", Settings(cache_dir=(keep / "cache").resolve()))
    try:
        return [{"set": f"scifact-{split}", **features(engine, q)} for q in questions]
    finally:
        engine.close()


if __name__ == "__main__":
    sys.exit(main())
