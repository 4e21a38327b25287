"""Unlinked mentions: precision and recall per kind of name on a small labelled vault, and the time
to find every mention in every note of a real vault.

    python benchmarks/bench_mentions.py [--vault ../shared/data/vaults/knowledge-garden]

`data/mentions_labelled/` is our own vault (25 notes, English and Chinese) with names inside links,
code, math, comments, URLs, tags and longer words, shared and short names;
`data/mentions_labels.jsonl` lists every true mention: path, 0-based line, code-point columns
(end exclusive), the text, the target notes and the kind of name (latin, chinese, mixed: with
punctuation or both scripts, shared: several notes, short: under `mention_min_length`). A found
mention is right when the same place and targets are labelled; its kind is its name's, the same
rule as the labels'. The real vault is read where it is, never copied.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from pathlib import Path

from common import BENCH_DIR

from memlsp.navigation.mentions import mentions_in
from memlsp.parse.markdown import parse_markdown
from memlsp.queries.mentions import Mention, mentions_of, name_index
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.view import VaultView

VAULT = BENCH_DIR / "data" / "mentions_labelled"
LABELS = BENCH_DIR / "data" / "mentions_labels.jsonl"
_CJK = re.compile("[\u3400-\u9fff]")
Place = tuple[str, int, int, int, tuple[str, ...]]


def kind(text: str, targets: tuple[str, ...]) -> str:
    key = " ".join(text.casefold().split())
    if len(targets) > 1:
        return "shared"
    if sum(2 if _CJK.match(c) else 1 for c in key if not c.isspace()) < 3:
        return "short"
    if _CJK.search(key) and not re.search("[a-z0-9]", key):
        return "chinese"
    if _CJK.search(key) or re.search(r"[^\w\s]", key):
        return "mixed"
    return "latin"


def open_view(root: Path) -> VaultView:
    texts = {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*.md"))
        if not any(part.startswith(".") for part in path.relative_to(root).parts)
    }
    graph = LinkGraph()
    graph.load([parse_markdown(path, text) for path, text in texts.items()])
    return VaultView(0, graph.freeze(), texts.get)


def place(mention: Mention) -> Place:
    span = mention.span
    return (mention.path, span.line, span.start, span.end, mention.targets)


def quality(min_length: int) -> None:
    view = open_view(VAULT)
    names = name_index(view.graph, min_length)
    labels: dict[Place, str] = {}
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        label = json.loads(line)
        where = (
            label["path"],
            label["line"],
            label["start"],
            label["end"],
            tuple(label["targets"]),
        )
        labels[where] = label["category"]
    found: dict[Place, str] = {}
    for path in sorted(view.graph.notes):
        for mention in mentions_in(view, path, names):
            found[place(mention)] = kind(mention.text, mention.targets)
    # The other way round (what `memlsp mentions` answers) must find the same.
    every = sorted(view.graph.notes)
    of = {
        place(m)
        for path in every
        for m in mentions_of(view, path, lambda _names: every, min_length).mentions
    }
    print(f"min_length {min_length}: mentions_of agrees with mentions_in: {of == set(found)}")
    print(f"{'kind':<8} {'labels':>6} {'found':>6} {'right':>6} {'precision':>9} {'recall':>6}")
    kinds = sorted(set(labels.values()) | set(found.values()))
    for name in [*kinds, "all"]:
        wanted = {p for p, k in labels.items() if name in (k, "all")}
        got = {p for p, k in found.items() if name in (k, "all")}
        right = len(wanted & got)
        precision = f"{right / len(got):.2f}" if got else "-"
        recall = f"{right / len(wanted):.2f}" if wanted else "-"
        print(f"{name:<8} {len(wanted):>6} {len(got):>6} {right:>6} {precision:>9} {recall:>6}")
    for where in sorted(set(found) - set(labels)):
        print("  not a mention:", where[:4], _text(view, where))
    for where in sorted(set(labels) - set(found)):
        print("  missed:", where[:4], _text(view, where))


def _text(view: VaultView, where: Place) -> str:
    text = view.read(where[0]) or ""
    return text.splitlines()[where[1]][where[2] : where[3]]


def speed(root: Path, min_length: int) -> None:
    started = time.perf_counter()
    view = open_view(root)
    loaded = time.perf_counter()
    names = name_index(view.graph, min_length)
    indexed = time.perf_counter()
    per_note = []
    counts: Counter[int] = Counter()
    for path in sorted(view.graph.notes):
        began = time.perf_counter()
        counts[len(mentions_in(view, path, names))] += 1
        per_note.append(time.perf_counter() - began)
    per_note.sort()
    total = sum(n * c for n, c in counts.items())
    # The next revision, after an edit that changes no name: its names are the ones built above.
    path = min(view.graph.notes)
    edited = view.graph.edited()
    edited.upsert(parse_markdown(path, (view.read(path) or "") + "\nOne more line.\n"))
    began = time.perf_counter()
    kept = name_index(edited.freeze(), min_length) is names
    again = time.perf_counter() - began
    print(
        f"{root.name}: {len(view.graph.notes)} notes, {len(names.targets)} names; parse "
        f"{loaded - started:.1f} s, names {indexed - loaded:.2f} s (next revision: "
        f"{again * 1000:.2f} ms, {'kept' if kept else 'built again'}); mentions_in per note "
        f"median {per_note[len(per_note) // 2] * 1000:.1f} ms, p90 "
        f"{per_note[int(len(per_note) * 0.9)] * 1000:.1f} ms, max {per_note[-1] * 1000:.0f} ms; "
        f"{total} mentions"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, action="append", default=[])
    parser.add_argument("--min-length", type=int, default=3)
    args = parser.parse_args()
    quality(args.min_length)
    for root in args.vault:
        if root.is_dir():
            speed(root, args.min_length)
        else:
            print(f"{root} is absent: speed not measured")


if __name__ == "__main__":
    main()
