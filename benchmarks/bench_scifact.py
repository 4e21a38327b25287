"""Search quality of memlsp on BEIR SciFact: nDCG@10 and recall@100.

    python benchmarks/bench_scifact.py [--data ../shared/data/scifact] [--split dev] [--keep DIR]

Builds a vault with one note per abstract (`docs/<_id>.md`: `# <title>`, a blank line, the text),
indexes it with `memlsp index`, runs the split's judged queries through ONE batch
`memlsp search --queries FILE --json --limit 100 --no-expand`, maps each result path back to its doc
id (the first, best-ranked chunk of a doc counts), and scores the ranking against the qrels.
Exits 0 with a message when the data folder is absent.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from common import REPO_ROOT, child_env, work_dir
from metrics import evaluate

DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data" / "scifact"
NDCG_BAR = 0.66
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


def parse_run(output: str) -> tuple[dict[str, list[str]], list[str]]:
    """Batch search output -> ({qid: [doc ids in rank order]}, error messages)."""
    run: dict[str, list[str]] = {}
    errors: list[str] = []
    for line in output.splitlines():
        if not line.strip():
            continue
        answer = json.loads(line)
        qid = str(answer.get("id"))
        if "error" in answer:
            errors.append(f"{qid}: {answer['error']}")
            continue
        ids = (doc_id(str(result.get("path", ""))) for result in answer.get("results", []))
        run[qid] = [doc for doc in ids if doc is not None]
    return run, errors


def memlsp(*args: str | Path) -> tuple[float, str]:
    """Run `python -m memlsp ARGS`; (seconds, stdout). Exits with its stderr if it fails."""
    command = [sys.executable, "-m", "memlsp", *map(str, args)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=child_env(), check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"`memlsp {args[0]}` failed (exit {done.returncode}):\n{done.stderr.strip()}")
    return seconds, done.stdout


def first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else "(no output)"


def missing_data(data: Path, split: str) -> str | None:
    needed = [data / "corpus.jsonl", data / "queries.jsonl", data / "qrels" / f"{split}.tsv"]
    absent = [str(path) for path in needed if not path.is_file()]
    return ", ".join(absent) if absent else None


def benchmark(data: Path, split: str, base: Path) -> None:
    vault, cache, queries_file = base / "vault", base / "cache", base / "queries.jsonl"
    qrels = read_qrels(data / "qrels" / f"{split}.tsv")
    docs = write_vault(data / "corpus.jsonl", vault)
    asked = write_queries(data / "queries.jsonl", qrels, queries_file)
    print(f"SciFact {split}: {docs} docs, {len(qrels)} judged queries ({asked} with text)")

    index_seconds, summary = memlsp("index", vault, "--cache-dir", cache)
    print(f"memlsp index: {index_seconds:.2f} s — {first_line(summary)}")
    search_args: list[str | Path] = [
        "--queries",
        queries_file,
        "--json",
        "--limit",
        str(LIMIT),
        "--no-expand",
    ]
    search_seconds, output = memlsp("search", vault, *search_args, "--cache-dir", cache)
    run, errors = parse_run(output)
    print(f"memlsp search (batch of {asked}): {search_seconds:.2f} s in all")
    for error in errors[:5]:
        print(f"  query error {error}")

    scores = evaluate(run, qrels, ndcg_k=10, recall_k=LIMIT)
    ndcg = scores["ndcg@10"]
    verdict = "PASS" if ndcg >= NDCG_BAR else "FAIL"
    print(f"\nqueries scored: {scores['queries']:.0f} (a query without results scores 0)")
    print(f"nDCG@10:    {ndcg:.4f}   bar ≥ {NDCG_BAR}  {verdict}")
    print(f"recall@100: {scores[f'recall@{LIMIT}']:.4f}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the scifact folder")
    parser.add_argument("--split", default="dev", help="qrels/<split>.tsv (default: dev)")
    parser.add_argument("--keep", type=Path, help="build the vault and index here and keep them")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    absent = missing_data(args.data, args.split)
    if absent:
        print(f"SciFact data not found ({absent}); nothing to measure. Pass --data DIR.")
        return 0
    with work_dir(args.keep, "memlsp-scifact-") as (base, _):
        benchmark(args.data, args.split, base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
