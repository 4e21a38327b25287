#!/usr/bin/env python3
"""End-to-end proof that the memlsp VS Code extension works in a real editor.

Installs code-server (from npm, run by Node 24 from npm) and Debian Chromium, installs the
extension's .vsix (rebuilt whenever its sources changed), opens a copy of fixtures/vault and
drives the editor with Playwright. Three runs, each in a fresh profile (graph and graph10k only when named with --only):

main (memlsp.pythonPath in User settings only, as a remote window reads them)
  server      the memlsp status bar item reaches Ready
  one-status-item  no second progress item (the server's $/progress) while it opens
  settings-ui the Settings editor lists memlsp.pythonPath under User (not "No Settings Found")
  settings-fusion  it lists memlsp.fusion with its two rules, evidence and rrf
  outline     the Outline view lists each heading of index.md once, with no provider group
  quick-outline  Ctrl+Shift+O lists each heading once
  references  Shift+F12 on [[bm25]] lists the link under the cursor once
  workspace-symbols  Ctrl+T "Fusion" lists no heading twice
  hover       hovering a [[hybrid-search|...]] link shows the target's title and its neighbours
  definition  F12 on that link opens the target note
  preview-wikilinks  the Markdown preview shows wikilinks as links to the notes the server resolves;
              clicking one opens its note at the heading
  completion  `[[kyo` + Enter writes `[[kyoto-2023]]`; undone, the vault copy is unchanged
  search      "memlsp: Search Vault" lists kyoto-2023 for a query sharing no word with it
  restart     Restart Server says what it started
  code-lens   the lens on bm25.md's first line counts its links as the vault copy has them; a click
              lists them in the links picker
  explorer-rename  search/tantivy.md renamed in the Explorer (F2): every link to it follows
              (workspace/willRenameFiles), F12 on one opens the renamed note
  rename-symbol  F2 on [[zettelkasten]]: the note is renamed and every link to it follows
  related-view  the Explorer's Related notes view lists notes close to bm25.md
  insert-link  a row's Insert link button writes [[…]] at the cursor in bm25.md (then undone)
  link-all    the "N unlinked" lens of a note, then "Link all": the note that mentioned its name
              as plain text now links to it, nothing else in it changed
  graph       "memlsp: Show Graph" on bm25.md draws its graph beside the editor; a click on a
              neighbour opens that note, and the graph follows it

graph (the main run's setup, only the server and graph checks)

graph10k (a 10,000-note synthetic vault, benchmarks/synthetic_vault.py, built once into the build
folder)
  graph10k    the graph at depth 2 around its hub (linked from 5,000 notes) draws its first frame
              within 1 s of the answer reaching the page; the figures are reported

newcomer (no memlsp settings at all; memlsp installed only in <vault>/.venv; not on PATH)
  venv, server-from-venv, ready, outline, references, embedding-1, embedding-2,
  relative-pythonPath (.venv/bin/python in User settings), restart, output-clean

mcp (no extension; the .vscode/mcp.json of docs/agents.md in the vault, memlsp on code-server's PATH)
  listed      MCP: List Servers shows memlsp from .vscode/mcp.json, stopped
  server      started from that list, VS Code's output channel "MCP: memlsp" says it discovered
              5 tools, and its tools/list answer names search, read, links, related, recent

The runs are in the package memlsp_proof/ beside this file, one module per run.

Screenshots go to vscode-extension/proof/build/screenshots/. One PASS/FAIL line per check;
the exit status is 1 if any check (or a setup step) fails.

    python vscode-extension/proof/run_proof.py [--python /path/to/python-with-memlsp] [--only main]
        [--only mcp] [--only graph10k]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from memlsp_proof.graph import run_graph, run_graph10k
from memlsp_proof.main_run import run_main
from memlsp_proof.mcp import run_mcp
from memlsp_proof.newcomer import run_newcomer
from memlsp_proof.setup import PROOF_DIR, Paths, ProofError, build_vsix, install_all, log
from memlsp_proof.workbench import Results

# --- Main ----------------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--python", default=sys.executable, help="Python with memlsp installed (default: this one)"
    )
    parser.add_argument(
        "--build-dir", type=Path, default=PROOF_DIR / "build", help="tools, profile, screenshots"
    )
    parser.add_argument(
        "--port", type=int, default=0, help="code-server port (default: a free one)"
    )
    parser.add_argument(
        "--skip-install", action="store_true", help="do not install apt/npm/pip packages"
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=("main", "newcomer", "mcp", "graph", "graph10k"),
        help="run only this run; repeat for several (default: main, newcomer, mcp; graph: the "
        "main run's graph check alone; graph10k: the graph's speed on a 10,000-note vault)",
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    paths = Paths(args.build_dir.resolve())
    results = Results()
    runs = {"main": run_main, "newcomer": run_newcomer, "mcp": run_mcp}
    asked_only = {"graph": run_graph, "graph10k": run_graph10k}  # run only when named
    try:
        if not args.skip_install:
            install_all(paths)
        vsix = build_vsix(paths)
        if paths.screenshots.exists():
            shutil.rmtree(paths.screenshots)
        for name, run_one in {**runs, **asked_only}.items():
            if (name in args.only) if args.only else (name in runs):
                try:
                    run_one(paths, vsix, args.python, args.port, results)
                except ProofError as error:
                    results.record(f"{name}-setup", False, str(error))
    except ProofError as error:
        results.record("setup", False, str(error))
    log(f"screenshots in {paths.screenshots}")
    log(f"{len(results.passed)} passed, {len(results.failed)} failed")
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
