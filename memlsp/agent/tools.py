"""The tools an agent sees, each a command line's `--json` answer asked of the vault's source.

Names and parameters are fixed (agents' configurations name them). Every answer is capped by the
agent's `budget_tokens` or `DEFAULT_BUDGET` and says what was cut. An error is one sentence the
agent can act on, never a trace.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from memlsp.agent.source import VaultSource
from memlsp.agent.writing import (
    Section,
    WriteRefused,
    appended,
    note_path,
    replaced,
    target_file,
    write_atomically,
)
from memlsp.parse.tokens import estimate_tokens
from memlsp.vault.rules import VaultRules

# Tokens of one answer when the agent names no budget: what an answer is whole in nearly every
# case (depth 2 around nine notes in ten of the real vaults is under 8,000 tokens, around their
# hubs up to ~15,000; a long note's section as much), under the 25,000 tokens Claude Code accepts
# of one tool answer.
DEFAULT_BUDGET = 20000
MAX_WRITE_BYTES = 1 << 20  # a note an agent writes; larger ones are refused


class ToolFailed(ToolError):
    """An answer the agent gets as a tool error: one sentence."""


class Memory:
    """The tools' work, over a vault source; the MCP server (server.py) only presents them."""

    def __init__(self, source: VaultSource, *, allow_writes: bool) -> None:
        self.source = source
        self.allow_writes = allow_writes
        self.root = str(source.root)

    def search(
        self,
        query: str,
        limit: int,
        mode: str,
        paths: list[str] | None,
        tags: list[str] | None,
        after: str | None,
        before: str | None,
        budget_tokens: int | None,
    ) -> dict[str, Any]:
        flags = ["--limit", str(limit), "--mode", mode]
        flags += ["--budget-tokens", str(budget_tokens or DEFAULT_BUDGET)]
        for path in paths or ():
            flags += ["--path", path]
        for tag in tags or ():
            flags += ["--tag", tag]
        if after:
            flags += ["--start-date", after]
        if before:
            flags += ["--end-date", before]
        answer = self._ask("search", flags, query)
        if not answer.get("results"):
            why = "; ".join(answer.get("warnings") or [])
            raise ToolFailed(f"nothing found for {query!r}" + (f": {why}" if why else ""))
        return answer

    def read(
        self,
        path: str,
        heading: str | None,
        start_line: int | None,
        end_line: int | None,
        budget_tokens: int | None,
    ) -> dict[str, Any]:
        flags = ["--budget-tokens", str(budget_tokens or DEFAULT_BUDGET)]
        if heading is not None:
            flags += ["--heading", heading]
        if start_line is not None:
            flags += ["--start-line", str(start_line)]
        if end_line is not None:
            flags += ["--end-line", str(end_line)]
        return self._ask("read", flags, path)

    def links(self, path: str, direction: str, depth: int) -> dict[str, Any]:
        # The links alone: `related` is the tool for notes close in meaning.
        flags = ["--depth", str(depth), "--direction", direction, "--meaning", "0"]
        answer = self._ask("graph", flags, path)
        return within_budget(answer, DEFAULT_BUDGET)

    def related(self, path: str, limit: int) -> dict[str, Any]:
        answer = self._ask("related", ["--limit", str(limit)], path)
        return list_within_budget(answer, "results", DEFAULT_BUDGET)

    def recent(self, days: float, limit: int) -> dict[str, Any]:
        answer = self._ask("recent", ["--days", str(days), "--limit", str(limit)])
        return list_within_budget(answer, "notes", DEFAULT_BUDGET)

    def write(self, path: str, content: str, mode: str, heading: str | None) -> dict[str, Any]:
        if not self.allow_writes:
            raise ToolFailed(WRITES_OFF)
        data = content.encode("utf-8", errors="surrogateescape")
        if len(data) > MAX_WRITE_BYTES:
            raise ToolFailed(f"content is {len(data):,} bytes; a note is limited to 1 MiB here")
        try:
            path = note_path(path, VaultRules.of(self.source.settings))
            target = target_file(self.source.root, path)
        except WriteRefused as refused:
            raise ToolFailed(str(refused)) from None
        exists = target.exists()
        if mode == "create":
            if exists:
                raise ToolFailed(
                    f"{path} exists: write with mode 'append' or 'replace_section' to change it"
                )
            if heading is not None:
                raise ToolFailed("'heading' is for mode 'replace_section' only")
            text = content
        else:
            if not exists:
                raise ToolFailed(f"no note {path} to change: write it with mode 'create' first")
            old = self._unchanged_on_disk(path, target)
            if mode == "append":
                if heading is not None:
                    raise ToolFailed("'heading' is for mode 'replace_section' only")
                text = appended(old, content)
            else:
                if heading is None:
                    raise ToolFailed("mode 'replace_section' needs the section's 'heading'")
                text = replaced(old, self._section(path, heading), content)
        write_atomically(target, text.encode("utf-8", errors="surrogateescape"))
        now = self._ask("read", ["--budget-tokens", "1"], path)  # indexed once this answers
        answer = {"path": path, "mode": mode, "bytes": target.stat().st_size}
        answer["line_count"] = now.get("line_count")
        return answer

    def _unchanged_on_disk(self, path: str, target: Path) -> str:
        """The note's text on disk, refused when the vault holds other text for it (an editor's
        unsaved changes, which a write would have the editor overwrite or fight)."""
        old = target.read_bytes().decode("utf-8", errors="surrogateescape")
        seen = self._ask("read", ["--budget-tokens", str(1 << 30)], path)
        if seen.get("text", "").splitlines() != old.splitlines():
            raise ToolFailed(
                f"{path} has unsaved changes in an editor (or changed while read): save it first"
            )
        return old

    def _section(self, path: str, heading: str) -> Section:
        found = self._ask("read", ["--heading", heading, "--budget-tokens", str(1 << 30)], path)
        return Section(str(found["heading"]), int(found["start_line"]), int(found["end_line"]))

    def _ask(self, command: str, flags: list[str], *after: str) -> dict[str, Any]:
        """`memlsp COMMAND --json FLAGS -- VAULT AFTER...` (after `--`, a query or a path that
        starts with '-' is still a query or a path)."""
        reply = self.source.ask([command, "--json", *flags, "--", self.root, *after])
        if reply.code != 0:
            lines = [line.removeprefix("memlsp: ") for line in reply.stderr.splitlines()]
            raise ToolFailed(" ".join(line for line in lines if line) or "failed")
        answer = json.loads(reply.stdout)
        assert isinstance(answer, dict)
        return answer


WRITES_OFF = (
    "writing is off: this memlsp server was started without --allow-writes "
    "(the user adds it to the server's command to let agents write notes)"
)


def within_budget(graph: dict[str, Any], budget: int) -> dict[str, Any]:
    """A graph answer cut to `budget` tokens: the farthest nodes go first, with their edges."""
    if answer_tokens(graph) <= budget:
        return graph
    nodes = sorted(graph["nodes"], key=lambda node: node["distance"])
    kept = len(nodes)
    while kept > 1:
        kept = max(1, kept * 3 // 4)
        ids = {node["id"] for node in nodes[:kept]}
        edges = [e for e in graph["edges"] if e["source"] in ids and e["target"] in ids]
        smaller = {**graph, "nodes": nodes[:kept], "edges": edges}
        if answer_tokens(smaller) <= budget:
            break
    cut = len(nodes) - kept
    smaller["cut"] = (
        f"{cut} of {len(nodes)} nodes (the farthest) left out to stay within {budget:,} tokens; "
        "ask with a smaller depth or direction 'out' or 'in'"
    )
    return smaller


def list_within_budget(answer: dict[str, Any], key: str, budget: int) -> dict[str, Any]:
    """An answer whose list under `key` is cut from its end to fit `budget` tokens."""
    items = answer[key]
    kept = len(items)
    while kept > 1 and answer_tokens({**answer, key: items[:kept]}) > budget:
        kept -= 1
    if kept == len(items):
        return answer
    return {
        **answer,
        key: items[:kept],
        "cut": f"the last {len(items) - kept} of {len(items)} {key} left out to stay within "
        f"{budget:,} tokens; ask with a smaller limit",
    }


def answer_tokens(answer: object) -> int:
    """Tokens of an answer as JSON: a word or a CJK character each (`estimate_tokens`), or, for
    JSON's punctuation and paths, which that leaves out, one per 3.5 bytes when that is more."""
    text = json_text(answer)
    return max(estimate_tokens(text), math.ceil(len(text.encode("utf-8")) / 3.5))


def json_text(answer: object) -> str:
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


# -- how the tools are presented: names, parameters and descriptions ------------------------------

NotePath = Annotated[str, Field(description="vault-relative path (notes/x.md) or note name")]


def tool_functions(memory: Memory) -> list[Callable[..., str]]:
    """The tools as functions whose signatures are their schemas and docstrings their
    descriptions (the `mcp` SDK reads both)."""

    def search(
        query: Annotated[str, Field(description="words or a question, Chinese or English")],
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
        mode: Literal["hybrid", "keyword", "vector"] = "hybrid",
        paths: Annotated[
            list[str] | None, Field(description="only notes in these folders or globs")
        ] = None,
        tags: Annotated[list[str] | None, Field(description="only notes with any tag")] = None,
        after: Annotated[str | None, Field(description="note date ≥ YYYY-MM-DD")] = None,
        before: Annotated[str | None, Field(description="note date ≤ YYYY-MM-DD")] = None,
        budget_tokens: Annotated[int | None, Field(ge=1)] = None,
    ) -> str:
        """Search the notes by keyword and meaning (hybrid BM25 + vectors). Each result is a note
        at its best section: text, score, evidence, and the notes it links to and from."""
        return json_text(
            memory.search(query, limit, mode, paths, tags, after, before, budget_tokens)
        )

    def read(
        path: NotePath,
        heading: Annotated[str | None, Field(description="one section; A#B for nested")] = None,
        start_line: Annotated[int | None, Field(ge=1)] = None,
        end_line: Annotated[int | None, Field(ge=1)] = None,
        budget_tokens: Annotated[int | None, Field(ge=1)] = None,
    ) -> str:
        """Read a note, one section or a line range (1-based, inclusive), with its parsed
        frontmatter, headings and the links in those lines resolved."""
        return json_text(memory.read(path, heading, start_line, end_line, budget_tokens))

    def links(
        path: NotePath,
        direction: Literal["both", "out", "in"] = "both",
        depth: Annotated[int, Field(ge=1, le=3)] = 1,
    ) -> str:
        """The link graph around a note as nodes and edges: notes it links to (out), notes
        linking to it (in), unresolved links as their own nodes, to `depth` links away."""
        return json_text(memory.links(path, direction, depth))

    def related(path: NotePath, limit: Annotated[int, Field(ge=1, le=50)] = 10) -> str:
        """Notes closest in meaning to a note (across Chinese and English), with the closest
        pair of sections and whether they are linked already."""
        return json_text(memory.related(path, limit))

    def recent(
        days: Annotated[float, Field(gt=0)] = 7,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
    ) -> str:
        """Notes changed in the last `days`, newest first."""
        return json_text(memory.recent(days, limit))

    def write(
        path: NotePath,
        content: str,
        mode: Literal["create", "append", "replace_section"] = "create",
        heading: Annotated[str | None, Field(description="for replace_section")] = None,
    ) -> str:
        """Write a Markdown note: create a new one, append to one, or replace one section's
        text under `heading`. Never overwrites otherwise; searchable once this returns."""
        return json_text(memory.write(path, content, mode, heading))

    return [search, read, links, related, recent, write]
