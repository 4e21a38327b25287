"""Would a static embedding model do? One distilled from the bundled MiniLM, against MiniLM itself,
on BEIR SciFact, vector search alone.

    python benchmarks/static_model.py [--data ../shared/data/scifact] [--split dev] [--minilm]

The static model is MiniLM's answer for each word piece alone (`[CLS] piece [SEP]`, mean-pooled),
and a text's vector the sum of its pieces' vectors weighted by their idf over the corpus: how
static-embedding tools make a model from a transformer. It embeds in milliseconds what MiniLM
takes minutes for; the question is what it costs in nDCG@10 (benchmarks/README.md, "Embedding speed").
`--minilm` also embeds the corpus with MiniLM (about two minutes on 2 cores) for the comparison.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import numpy.typing as npt
from bench_scifact import DEFAULT_DATA, missing_data, query_texts, read_jsonl, read_qrels
from metrics import evaluate
from tokenizers import Tokenizer

from memlsp.embed.onnx import OnnxEmbedder, bundled_minilm, integer_model

Matrix = npt.NDArray[np.float32]
PIECES_PER_RUN = 256  # every input is three pieces long: nothing is padded


def piece_table(embedder: OnnxEmbedder, tokenizer: Tokenizer) -> Matrix:
    """Row i: MiniLM's vector for word piece i alone."""
    size = tokenizer.get_vocab_size()
    first, last = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    table = np.zeros((size, embedder.dimension), dtype=np.float32)
    for start in range(0, size, PIECES_PER_RUN):
        pieces = range(start, min(size, start + PIECES_PER_RUN))
        ids = np.array([[first, piece, last] for piece in pieces], dtype=np.int64)
        table[start : start + len(ids)] = embedder.token_states(ids).mean(axis=1)
    return table


def static_vectors(texts: list[str], tokenizer: Tokenizer, table: Matrix, idf: Matrix) -> Matrix:
    out = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
    for row, encoding in enumerate(tokenizer.encode_batch(texts)):
        ids = np.array(encoding.ids, dtype=np.int64)
        weights = np.maximum(idf[ids], 0.5)  # a piece the corpus lacks still counts a little
        out[row] = (table[ids] * weights[:, None]).sum(axis=0)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    result: Matrix = out / np.maximum(norms, 1e-9)
    return result


def ranked(queries: Matrix, documents: Matrix, ids: list[str], k: int = 100) -> list[list[str]]:
    scores = queries @ documents.T
    return [[ids[j] for j in np.argsort(-row)[:k]] for row in scores]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--minilm", action="store_true", help="MiniLM itself too (slow)")
    args = parser.parse_args()
    absent = missing_data(args.data, args.split)
    if absent:
        print(f"skipped: the SciFact data is absent ({absent})", file=sys.stderr)
        return 1
    corpus = list(read_jsonl(args.data / "corpus.jsonl"))
    ids = [str(doc["_id"]) for doc in corpus]
    texts = [f"{doc['title']}\n\n{doc['text']}" for doc in corpus]
    qrels = read_qrels(args.data / "qrels" / f"{args.split}.tsv")
    questions = query_texts(args.data / "queries.jsonl")
    qids = sorted(qrels)
    model, tokenizer_file = bundled_minilm()
    with tempfile.TemporaryDirectory() as models:
        embedder = OnnxEmbedder(integer_model(model, Path(models)), tokenizer_file, "minilm")
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.no_padding()
        started = time.perf_counter()
        table = piece_table(embedder, tokenizer)
        print(f"static model made from MiniLM in {time.perf_counter() - started:.1f} s")
        counts: Counter[int] = Counter()
        for encoding in tokenizer.encode_batch(texts):
            counts.update(set(encoding.ids))
        idf = np.zeros(tokenizer.get_vocab_size(), dtype=np.float32)
        for piece, count in counts.items():
            idf[piece] = math.log(len(texts) / count)
        for special in ("[CLS]", "[SEP]"):
            idf[tokenizer.token_to_id(special)] = 0.0
        started = time.perf_counter()
        documents = static_vectors(texts, tokenizer, table, idf)
        took = time.perf_counter() - started
        queries = static_vectors([questions[q] for q in qids], tokenizer, table, idf)
        run = dict(zip(qids, ranked(queries, documents, ids), strict=True))
        score = evaluate(run, qrels)
        print(f"static: {len(texts)} documents in {took:.1f} s, nDCG@10 {score['ndcg@10']:.3f}")
        if args.minilm:
            started = time.perf_counter()
            documents = embedder.embed_documents(texts)
            took = time.perf_counter() - started
            queries = np.concatenate([embedder.embed_query(questions[q]) for q in qids])
            run = dict(zip(qids, ranked(queries, documents, ids), strict=True))
            score = evaluate(run, qrels)
            print(f"MiniLM: {len(texts)} documents in {took:.1f} s, nDCG@10 {score['ndcg@10']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
