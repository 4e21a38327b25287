"""What the in-process benchmarks over a vault and its questions share: their arguments, the
vault indexed and embedded, and percentiles."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from common import REPO_ROOT

from memlsp.engine.backfill import Backfill
from memlsp.engine.engine import Engine
from memlsp.settings.table import Settings

DEFAULT_VAULT = REPO_ROOT.parent / "shared" / "data" / "vaults" / "knowledge-garden"
DEFAULT_QUERIES = REPO_ROOT / "benchmarks" / "data" / "knowledge_garden_queries.jsonl"


def dev_set_parser(doc: str) -> argparse.ArgumentParser:
    """`--vault`, `--queries`, `--embedder`, `--cache-dir` and `--rounds`, described by `doc`."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--queries", type=Path, default=DEFAULT_QUERIES)
    parser.add_argument("--embedder", default="bilingual")
    parser.add_argument("--cache-dir", type=Path, help="default: the per-user cache")
    parser.add_argument("--rounds", type=int, default=3)
    return parser


def open_dev_set(args: argparse.Namespace, **settings: Any) -> tuple[Engine, list[dict[str, Any]]]:
    """The vault indexed (and embedded, unless `--embedder none`) and its questions; exits with
    a sentence when the vault is not there."""
    if not args.vault.is_dir():
        sys.exit(f"vault not found: {args.vault}; pass --vault DIR")
    questions = [json.loads(line) for line in args.queries.read_text().splitlines() if line]
    chosen = Settings(cache_dir=args.cache_dir, embedder=args.embedder, **settings)
    engine = Engine.open(args.vault, chosen)
    engine.refresh()
    if engine.semantic:
        Backfill(engine, batch=256).run()
    return engine, questions


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]
