"""Search quality of memlsp on BEIR SciFact: nDCG@10 and recall@100, per embedder and mode.

    python benchmarks/bench_scifact.py [--data ../shared/data/scifact] [--split dev]
        [--embedders bilingual,minilm,use] [--keep DIR] [--dump FILE]

Builds a vault with one note per abstract (`docs/<_id>.md`: `# <title>`, a blank line, the text),
indexes it with `memlsp index --embedder E` (which embeds every chunk), runs the split's judged
queries through ONE batch `memlsp search --queries FILE --json --limit 100 --no-expand --mode M` per
mode, maps each result path back to its doc id (the first, best-ranked chunk of a doc counts), and
scores the ranking against the qrels. Keyword-only does not depend on the embedder: it runs once.
`--dump FILE` writes each judged query's results per mode (of the first embedder) with both sides'
scores and ranks; relevant docs are given as their paths `docs/<id>.md`.
Exits 0 with a message when the data folder is absent.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from common import (
    REPO_ROOT,
    batch_results,
    dump_results,
    memlsp,
    result_paths,
    work_dir,
    write_dump,
)
from metrics import evaluate

DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data" / "scifact"
HYBRID_BAR = 0.70
LIMIT = 100
DOC_FOLDER = "docs"


def read_jsonl(path: Path) -> Iterator[dict[str, object]]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """`query-id  corpus-id  score` lines (with a header) -> {qid: {doc_id: grade}}."""
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            if len(row) < 3 or row[0] == "query-id":
                continue
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    return qrels


def write_vault(corpus: Path, vault: Path) -> int:
    """One note per abstract; returns how many were written."""
    folder = vault / DOC_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for doc in read_jsonl(corpus):
        text = f"# {doc.get('title', '')}\n\n{doc.get('text', '')}\n"
        (folder / f"{doc['_id']}.md").write_text(text, encoding="utf-8")
        count += 1
    return count


def write_queries(queries: Path, qrels: Mapping[str, object], out: Path) -> int:
    """The queries that have judgements, as `{"id", "query"}` lines; returns how many."""
    count = 0
    with open(out, "w", encoding="utf-8") as handle:
        for query in read_jsonl(queries):
            if str(query["_id"]) in qrels:
                line = {"id": str(query["_id"]), "query": query["text"]}
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
                count += 1
    return count


def doc_id(path: str) -> str | None:
    """`docs/123.md` -> `123`; None for anything else."""
    folder, _, name = path.partition("/")
    if folder != DOC_FOLDER or not name.endswith(".md") or "/" in name:
        return None
    return name[: -len(".md")]


def first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else "(no output)"


def missing_data(data: Path, split: str) -> str | None:
    needed = [data / "corpus.jsonl", data / "queries.jsonl", data / "qrels" / f"{split}.tsv"]
    absent = [str(path) for path in needed if not path.is_file()]
    return ", ".join(absent) if absent else None


def doc_run(run: Mapping[str, list[str]]) -> dict[str, list[str]]:
    return {qid: [d for d in map(doc_id, paths) if d is not None] for qid, paths in run.items()}


def query_texts(queries: Path) -> dict[str, str]:
    return {str(q["_id"]): str(q["text"]) for q in read_jsonl(queries)}


def dump_records(
    split: str,
    qrels: Mapping[str, Mapping[str, int]],
    texts: Mapping[str, str],
    runs: Mapping[str, Mapping[str, list[dict[str, object]]]],
) -> list[dict[str, object]]:
    """One record per judged query, as bench_vaults.py writes them."""
    records: list[dict[str, object]] = []
    for qid, judgements in qrels.items():
        record: dict[str, object] = {
            "set": f"scifact-{split}", "id": qid, "query": texts.get(qid, ""), "kind": "claim",
            "relevant": [f"{DOC_FOLDER}/{doc}.md" for doc, grade in judgements.items() if grade > 0],
        }  # fmt: skip
        for mode, run in runs.items():
            record[mode] = dump_results(run.get(qid, []))
        records.append(record)
    return records


def benchmark(
    data: Path, split: str, base: Path, embedders: list[str], dump: Path | None = None
) -> None:
    vault, cache, queries_file = base / "vault", base / "cache", base / "queries.jsonl"
    qrels = read_qrels(data / "qrels" / f"{split}.tsv")
    docs = write_vault(data / "corpus.jsonl", vault)
    asked = write_queries(data / "queries.jsonl", qrels, queries_file)
    print(f"SciFact {split}: {docs} docs, {len(qrels)} judged queries ({asked} with text)")

    rows: list[tuple[str, str, dict[str, float], float]] = []
    index_seconds, summary = memlsp("index", vault, "--embedder", "none", "--cache-dir", cache)
    print(f"memlsp index (keyword): {index_seconds:.2f} s — {first_line(summary)}")
    seconds, results, errors = batch_results(vault, cache, queries_file, "keyword", LIMIT, "none")
    dumped = {"keyword": results}
    rows.append(
        ("-", "keyword", evaluate(doc_run(result_paths(results)), qrels, 10, LIMIT), seconds)
    )
    for embedder in embedders:
        index_seconds, summary = memlsp(
            "index", vault, "--embedder", embedder, "--cache-dir", cache
        )
        vectors = [line for line in summary.splitlines() if line.startswith("vectors:")]
        print(
            f"memlsp index --embedder {embedder}: {index_seconds:.1f} s — {vectors[0] if vectors else '?'}"
        )
        for mode in ("vector", "hybrid", "rrf"):  # "rrf": the hybrid with --fusion rrf
            seconds, results, more = batch_results(
                vault, cache, queries_file, mode, LIMIT, embedder
            )
            errors.extend(more)
            if embedder == embedders[0]:
                dumped[mode] = results
            run = doc_run(result_paths(results))
            rows.append((embedder, mode, evaluate(run, qrels, 10, LIMIT), seconds))
    for error in errors[:5]:
        print(f"  query error {error}")
    if dump is not None:
        texts = query_texts(data / "queries.jsonl")
        write_dump(dump, dump_records(split, qrels, texts, dumped))

    keyword = rows[0][2]["ndcg@10"]
    print(f"\n| embedder | mode | nDCG@10 | recall@{LIMIT} | batch of {asked} queries |")
    print("|---|---|---|---|---|")
    for embedder, mode, scores, seconds in rows:
        print(
            f"| {embedder} | {mode} | {scores['ndcg@10']:.4f} | {scores[f'recall@{LIMIT}']:.4f} "
            f"| {seconds:.1f} s |"
        )
    default = next((r for r in rows if r[0] == "bilingual" and r[1] == "hybrid"), None)
    if default is not None:
        ndcg = default[2]["ndcg@10"]
        verdict = "PASS" if ndcg >= HYBRID_BAR and ndcg >= keyword else "FAIL"
        print(
            f"\ndefault hybrid nDCG@10 {ndcg:.4f}: bar ≥ {HYBRID_BAR} and ≥ keyword-only {keyword:.4f}  {verdict}"
        )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the scifact folder")
    parser.add_argument("--split", default="dev", help="qrels/<split>.tsv (default: dev)")
    parser.add_argument("--keep", type=Path, help="build the vault and index here and keep them")
    parser.add_argument("--dump", type=Path, help="write every query's results here (JSON)")
    parser.add_argument(
        "--embedders", default="bilingual,minilm,use", help="comma-separated; '' for keyword only"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    absent = missing_data(args.data, args.split)
    if absent:
        print(f"SciFact data not found ({absent}); nothing to measure. Pass --data DIR.")
        return 0
    with work_dir(args.keep, "memlsp-scifact-") as (base, _):
        embedders = [e for e in args.embedders.split(",") if e]
        benchmark(args.data, args.split, base, embedders, args.dump)
    return 0


if __name__ == "__main__":
    sys.exit(main())
