"""The code lens of a hub, whose `N unlinked` part looks for its name in every note that may hold
it, over a real stdio session.

    python benchmarks/bench_lens.py [--notes 10000] [--edits 20] [--keep DIR]

Generates the synthetic vault (benchmarks/synthetic_vault.py: `Hub.md` is linked from 5,000 notes,
so the keyword index names 5,000 notes that may hold its name, nearly all of them only in links),
cold-indexes it once with `memlsp index --embedder none`, starts `python -m memlsp --stdio` on the
warm cache with the hub and another note open, then times `textDocument/codeLens` of the hub:
the first one; the same again in the same revision; after each of `--edits` edits of the other
note (a new revision that changes no name: what every keystroke makes, after which an editor asks
for the lenses again), each writing the hub's name once more as plain text; and after an edit that
adds a name to the vault (a new note). It checks that the lens's count is what `memlsp/mentions`
lists for the hub.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_lsp import (
    POLL_TIMEOUT,
    initialize_params,
    insert_line,
    latency_rows,
    mention_count,
    ms,
    notification_after,
    running_server,
    uri,
)
from bench_speed import Row, checked, generate_vault, machine_lines, memlsp, run_child, table
from common import work_dir
from synthetic_vault import HUB_TITLE

from tests.helpers.lsp_client import StdioClient

HUB = f"{HUB_TITLE}.md"
UNLINKED = re.compile(r"^(\d+)(\+?) unlinked$")
BODY_LINE = 2  # after the title and a blank line, in a note without frontmatter
QUIET = 1.0  # seconds without a new revision before the first lens


def open_note(server: StdioClient, vault: Path, rel: str, text: str | None = None) -> str:
    note_uri = uri(vault, rel)
    body = (vault / rel).read_text(encoding="utf-8") if text is None else text
    item = {"uri": note_uri, "languageId": "markdown", "version": 1, "text": body}
    server.notify("textDocument/didOpen", {"textDocument": item})
    return note_uri


def lens_of_hub(server: StdioClient, vault: Path) -> tuple[str, float]:
    """The hub's `N unlinked` lens title ("none" without one) and the request's time."""
    lenses, seconds = server.timed_request(
        "textDocument/codeLens", {"textDocument": {"uri": uri(vault, HUB)}}
    )
    titles = [lens["command"]["title"] for lens in lenses or []]
    unlinked = [title for title in titles if UNLINKED.match(title)]
    return (unlinked[0] if unlinked else "none"), seconds


def revision(server: StdioClient) -> int:
    """The newest revision a `memlsp/changed` has named so far."""
    return max((int(p["revision"]) for p in server.notifications("memlsp/changed")), default=0)


def new_revision(server: StdioClient, note_uri: str, version: int, text: str) -> None:
    """A line added at the top of the note's body (the top of the file may be frontmatter); back
    once the server names a revision newer than any before it."""
    seen = revision(server)
    sent = insert_line(server, note_uri, version, BODY_LINE, text)
    newer = notification_after(
        server, "memlsp/changed", sent, lambda p: int(p["revision"]) > seen, POLL_TIMEOUT
    )
    if newer is None:
        raise RuntimeError("no new revision after an edit")


def quiet(server: StdioClient, seconds: float = QUIET) -> None:
    """Until no new revision has come for `seconds` (the watcher's first rescan, opened notes)."""
    while True:
        seen = revision(server)
        time.sleep(seconds)
        if revision(server) == seen:
            return


def session(vault: Path, cache: Path, edits: int) -> list[Row]:
    other = next(
        p.relative_to(vault).as_posix()
        for p in sorted(vault.glob("*/*.md"))
        if "[[Hub" not in (text := p.read_text(encoding="utf-8"))
        and len(text.splitlines()) > BODY_LINE
        and not text.startswith("---")
    )
    with tempfile.TemporaryFile() as stderr, running_server(stderr) as server:
        server.timed_request("initialize", initialize_params(vault, cache))
        server.notify("initialized", {})
        server.wait_notification("memlsp/indexed", timeout=120)
        open_note(server, vault, HUB)
        other_uri = open_note(server, vault, other)
        new_revision(server, other_uri, 2, "an edit before the first lens")
        quiet(server)

        before = revision(server)
        _, first = lens_of_hub(server, vault)
        _, again = lens_of_hub(server, vault)
        same = "same revision" if revision(server) == before else "a revision came between"
        rows = [
            Row("codeLens of the hub, the first", ms(first)),
            Row(f"  the same again, {same}", ms(again)),
        ]
        timings = []
        for version in range(3, 3 + edits):  # each names the hub once more, unlinked
            new_revision(server, other_uri, version, f"revision {version} names the Hub")
            timings.append(lens_of_hub(server, vault)[1])
        rows += latency_rows(
            "codeLens of the hub after an edit of another note",
            timings,
            bar=0.2,
            detail="edits",
        )
        names = []
        for number in range(3):  # a new note: its name is new, the vault's names are built again
            open_note(server, vault, f"Lens scratch {number}.md", f"# Lens scratch {number}\n")
            new_revision(server, other_uri, 3 + edits + number, "after a new name")
            names.append(lens_of_hub(server, vault)[1])
        rows.append(Row("codeLens of the hub after a new note (3), max", ms(max(names))))
        title = lens_of_hub(server, vault)[0]
        listed: Any = server.request("memlsp/mentions", {"uri": uri(vault, HUB)})
        match = UNLINKED.match(title)
        counted = int(match.group(1)) if match else 0
        capped = bool(match and match.group(2))
        agree = "capped" if capped else str(counted == mention_count(listed)).lower()
        rows.append(
            Row(
                "  the lens / memlsp/mentions of the hub",
                f"{title} / {mention_count(listed)} listed, {listed.get('unread', 0)} notes unread"
                f" (equal: {agree})",
            )
        )
        server.shutdown()
    return rows


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with work_dir(args.keep, "memlsp-bench-lens-") as (base, _temporary):
        vault, cache = base / "vault", base / "cache"
        print("\n".join(machine_lines()))
        if not (vault / HUB).exists():
            generate_vault(vault, args.notes, args.seed)
            cold = checked(
                run_child(memlsp("index", vault, "--embedder", "none", "--cache-dir", cache)),
                "memlsp index",
            )
            print(f"vault: {args.notes} synthetic notes, cold-indexed in {cold.seconds:.1f} s")
        print(table(session(vault, cache, args.edits)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
