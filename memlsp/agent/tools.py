"""The tools an agent sees, each a command's typed call answered by the vault's source with the
command line's `--json` answer.

Names and parameters are fixed (agents' configurations name them). Every answer is capped by the
agent's `budget_tokens` or `DEFAULT_BUDGET`, measured as budget.py measures, and says what was
cut. An error is one sentence the
agent can act on, never a trace.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from memlsp import wire
from memlsp.agent.budget import (
    DEFAULT_BUDGET,
    Answer,
    answer_tokens,
    cut_to_fit,
    graph_within_budget,
    list_within_budget,
    search_within_budget,
    tool_text,
)
from memlsp.agent.source import VaultSource
from memlsp.agent.writing import (
    Edit,
    Section,
    WriteRefused,
    appended,
    edited,
    note_path,
    read_hash,
    read_text_of,
    replaced,
    target_file,
    unified_diff,
    write_atomically,
)
from memlsp.commands.arguments import UsageError
from memlsp.commands.calls import (
    Call,
    GraphCall,
    ReadCall,
    RecentCall,
    RelatedCall,
    SearchCall,
    StatusCall,
    checked_request,
    flag_of,
)
from memlsp.model import MAX_DEPTH, MAX_LIMIT, MIN_DEPTH, Direction, quoted
from memlsp.queries.reading import note_lines
from memlsp.search.where import conditions_of
from memlsp.vault.rules import VaultRules

# `where`: property filters as an object, {"type": "Movie", "rating": ">=4", "cover": null}
# (search/where.py `conditions_of`).
Where = dict[str, str | int | float | bool | None]
MAX_WRITE_BYTES = 1 << 20  # a note an agent writes; larger ones are refused
WHOLE = 1 << 30  # a read's budget for the whole text
READ_TRIES = 4  # asks of a read whose JSON is over the budget, each for fewer lines
RECALL_KEYS = ("recall_count", "last_recalled_at")  # a search result's recall (wire/search.py)


class ToolFailed(ToolError):
    """An answer the agent gets as a tool error: one sentence."""


class Memory:
    """The tools' work, over a vault source; the MCP server (server.py) only presents them."""

    def __init__(self, source: VaultSource, *, allow_writes: bool) -> None:
        self.source = source
        self.allow_writes = allow_writes

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
        explain: list[str] | None = None,
        about: list[str] | None = None,
        where: Where | None = None,
        record: bool = True,
    ) -> Answer:
        budget = budget_tokens or DEFAULT_BUDGET
        values = {"query": query, "limit": limit, "mode": mode, "budget_tokens": budget}
        values.update(paths=paths, tags=tags, start_date=after or None, end_date=before or None)
        values.update(explain=explain, about=about, where=where)
        # Counted once what the agent is shown is known (`_recalled`), not by each ask.
        values.update(record=False)
        # Measured as it will be shown: counted, each result one recall more, recalled now.
        shown_as = _as_counted if record else _as_is
        answer = shown_as(self._answer(lambda: SearchCall(checked_request(values))))
        if not answer.get("results") and not explain:
            why = "; ".join(answer.get("warnings") or [])
            what = quoted(query) if query.strip() else "these filters"
            raise ToolFailed(f"nothing found for {what}" + (f": {why}" if why else ""))
        # Over by its JSON: this measure alone cuts, from every result the search has, so that
        # each one left out is named with what it costs by the measure that left it out.
        if answer_tokens(answer) > budget:
            if answer.get("dropped") != []:  # some left out by words, or a server that cannot say
                unbudgeted = {**values, "budget_tokens": None}
                answer = shown_as(self._answer(lambda: SearchCall(checked_request(unbudgeted))))
            answer = search_within_budget(answer, budget)
        return self._recalled(answer, values) if record else answer

    def _recalled(self, answer: Answer, values: dict[str, Any]) -> Answer:
        """The results the agent is shown counted as recalled, each with its count: the same
        search asked for as many results as are shown, and counted (a search's first N results
        are the same whatever its limit: search/hybrid.py `candidate_count`)."""
        shown = answer.get("results") or []
        if not shown:
            return answer
        counting = {**values, "limit": len(shown), "budget_tokens": None, "explain": None}
        counted = self._answer(lambda: SearchCall(checked_request({**counting, "record": True})))
        recalls = {
            result["path"]: {key: result.get(key) for key in RECALL_KEYS}
            for result in counted.get("results") or []
        }
        results = [{**result, **recalls.get(result["path"], {})} for result in shown]
        return {**answer, "results": results}

    def read(
        self,
        path: str,
        heading: str | None,
        start_line: int | None,
        end_line: int | None,
        budget_tokens: int | None,
    ) -> Answer:
        """The lines that fit the budget, counted on the answer's JSON: read's own budget counts
        the lines' words, so when the JSON (links, headings, frontmatter) is over, fewer lines
        are asked for, in proportion."""
        budget = budget_tokens or DEFAULT_BUDGET

        def lines_within(words: int) -> Answer:
            return self._answer(lambda: ReadCall(path, heading, start_line, end_line, words))

        words = budget
        answer = lines_within(words)
        for _ in range(READ_TRIES):
            tokens = answer_tokens(answer)
            if tokens <= budget or words == 1 or answer["start_line"] >= answer["end_line"]:
                break
            words = max(1, words * budget // tokens * 9 // 10)
            answer = lines_within(words)
        tokens = answer_tokens(answer)
        if tokens > budget:
            cut = f"{answer['cut'] + '; ' if answer['cut'] else ''}still about {tokens:,} tokens"
            return {**answer, "cut": f"{cut}, over the budget of {budget:,}"}
        return answer

    def links(self, path: str, direction: Direction, depth: int) -> Answer:
        # The links alone: `related` is the tool for notes close in meaning.
        answer = self._answer(lambda: GraphCall(path, depth, direction, meaning=0))
        return graph_within_budget(answer, DEFAULT_BUDGET)

    def related(self, path: str, limit: int) -> Answer:
        answer = self._answer(lambda: RelatedCall(path, limit))
        return list_within_budget(answer, "results", DEFAULT_BUDGET)

    def recent(
        self, days: float, limit: int, where: Where | None = None, by: str = "changed"
    ) -> Answer:
        answer = self._answer(lambda: RecentCall(days, limit, where_texts(where), by))
        return list_within_budget(answer, "notes", DEFAULT_BUDGET)

    def status(self) -> Answer:
        # Bounded by itself: ten paths a group, one entry a setting.
        return self._answer(StatusCall)

    def write(
        self,
        path: str,
        content: str | None,
        mode: str,
        heading: str | None,
        *,
        old_text: str | None = None,
        new_text: str | None = None,
        expected_hash: str | None = None,
        dry_run: bool = False,
    ) -> Answer:
        """`content` written by `mode` (mode 'edit': `old_text` replaced by `new_text`); with
        `dry_run`, the diff it would make, and nothing written. `expected_hash`, read's hash of
        the note, refuses the write when the note changed since. Refused while writing is off, a
        dry run too: it shows a write this server would do."""
        if not self.allow_writes:
            raise ToolFailed(WRITES_OFF)
        edit = _checked(content, mode, heading, old_text, new_text)
        try:
            path = note_path(path, VaultRules.of(self.source.settings))
            target = target_file(self.source.root, path)
            old = self._current_text(path, target, expected_hash)
            text = self._new_text(path, old, mode, content or "", heading, edit)
            data = text.encode("utf-8", errors="surrogateescape")
            if dry_run:
                return _preview(path, mode, old or "", text, data)
            write_atomically(target, data)
            size = target.stat().st_size
        except WriteRefused as refused:
            raise ToolFailed(str(refused)) from None
        except OSError as error:  # a full disk, a read-only file system: a sentence, not a trace
            raise ToolFailed(
                f"{quoted(path)} could not be written: {error.strerror or error}"
            ) from None
        now = self._answer(lambda: ReadCall(path, budget_tokens=1))  # indexed once this answers
        return {
            "path": path,
            "mode": mode,
            "bytes": size,
            "line_count": now.get("line_count"),
            "hash": read_hash(data),
        }

    def _current_text(self, path: str, target: Path, expected_hash: str | None) -> str | None:
        """The note's text on disk (None when there is none), as it was when the agent read it
        (`expected_hash`, when given) and as the vault holds it: an editor's unsaved changes
        are refused, as a write would have the editor overwrite them or fight."""
        if not target.exists():
            if expected_hash is not None:
                raise ToolFailed(
                    f"no note {path}, which 'expected_hash' says was read: read it again"
                )
            return None
        data = target.read_bytes()
        seen = self._answer(lambda: ReadCall(path, budget_tokens=WHOLE))
        # An older server's answer has no hash; what it read is the file then, or is refused next.
        now_hash = seen.get("hash") or read_hash(data)
        if expected_hash is not None and expected_hash != now_hash:
            raise ToolFailed(
                f"{path} changed since you read it (an editor's unsaved changes count): "
                "read it again, then write with its new 'expected_hash'"
            )
        # Compared as `read` gives a text (its lines, whatever ends them, and no newline at the
        # end): an editor's buffer may end its lines or the file as saving would.
        if seen.get("text") != "\n".join(note_lines(read_text_of(data))):
            raise ToolFailed(
                f"{path} has unsaved changes in an editor (or changed while read): save it first"
            )
        return data.decode("utf-8", errors="surrogateescape")

    def _new_text(
        self,
        path: str,
        old: str | None,
        mode: str,
        content: str,
        heading: str | None,
        edit: Edit | None,
    ) -> str:
        """The note's text once written by `mode` (its parameters checked already)."""
        if mode == "create":
            if old is not None:
                raise ToolFailed(
                    f"{path} exists: write with mode 'append', 'replace_section' or 'edit' "
                    "to change it"
                )
            return content
        if old is None:
            raise ToolFailed(f"no note {path} to change: write it with mode 'create' first")
        if edit is not None:
            return edited(path, old, edit)
        if heading is not None:
            return replaced(old, self._section(path, heading), content)
        return appended(old, content)

    def _section(self, path: str, heading: str) -> Section:
        found = self._answer(lambda: ReadCall(path, heading, budget_tokens=WHOLE))
        return Section(str(found["heading"]), int(found["start_line"]), int(found["end_line"]))

    def _answer(self, call: Callable[[], Call]) -> Answer:
        """The answer to a call (built here, so that a bad argument is the agent's error too)."""
        try:
            return self.source.answer(call())
        except UsageError as error:
            # The vault's own folder is no business of the agent (nor of its model's provider):
            # "no note 'x' in /home/ann/notes" is said "no note 'x' in the vault".
            message = str(error).replace(str(self.source.root), "the vault")
            raise ToolFailed(in_parameters(message) or "failed") from None


def _checked(
    content: str | None, mode: str, heading: str | None, old_text: str | None, new_text: str | None
) -> Edit | None:
    """Mode 'edit''s change, once each of `write`'s parameters is found given for its mode and
    no other, and each text one a file can hold, of a size a note may have."""
    if (heading is not None) != (mode == "replace_section"):
        raise ToolFailed(
            "'heading' is for mode 'replace_section' only"
            if heading is not None
            else "mode 'replace_section' needs the section's 'heading'"
        )
    edit = None if old_text is None or new_text is None else Edit(old_text, new_text)
    if (old_text is not None or new_text is not None) and mode != "edit":
        raise ToolFailed("'old_text' and 'new_text' are for mode 'edit' only")
    if edit is None and mode == "edit":
        raise ToolFailed("mode 'edit' needs 'old_text' and 'new_text'")
    if (content is None) != (mode == "edit"):
        raise ToolFailed(
            f"mode {quoted(mode)} needs 'content'"
            if content is None
            else "mode 'edit' takes 'old_text' and 'new_text', not 'content'"
        )
    texts = {"content": content or ""}
    if edit is not None:
        texts = {"old_text": edit.old_text, "new_text": edit.new_text}
    for name, text in texts.items():
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as error:  # JSON may escape half a surrogate pair; no file can
            lone = text[error.start]
            raise ToolFailed(
                f"'{name}' holds a lone surrogate ({lone!r}), which is not text"
            ) from None
        if len(data) > MAX_WRITE_BYTES:
            raise ToolFailed(f"{name} is {len(data):,} bytes; a note is limited to 1 MiB here")
    return edit


def _preview(path: str, mode: str, old: str, new: str, data: bytes) -> Answer:
    """A dry run's answer: the diff the write would make, cut to the default budget by its last
    lines when longer, and the hash `read` would then give."""
    lines = [line + "\n" for line in unified_diff(path, old, new).split("\n")[:-1]]
    whole = {"path": path, "mode": mode, "dry_run": True, "diff": "".join(lines)}
    whole["hash"] = read_hash(data)
    return cut_to_fit(
        whole,
        len(lines),
        lambda kept: {**whole, "diff": "".join(lines[:kept])},
        lambda cut: f"the last {cut} of the diff's {len(lines)} lines left out",
        "change less at a time to see it whole",
        DEFAULT_BUDGET,
    )


def _as_is(answer: Answer) -> Answer:
    return answer


def _as_counted(answer: Answer) -> Answer:
    """A search's answer with each result's recall as counting it now will make it (the same
    length of JSON, for the budget to measure): one more, last recalled now."""
    now = wire.utc_text(time.time_ns())
    results = [
        {
            **result,
            "recall_count": int(result.get("recall_count") or 0) + 1,
            "last_recalled_at": now,
        }
        for result in answer.get("results") or []
    ]
    return {**answer, "results": results} if results else answer


# The typed calls name the command line's flags (`--start-date`); an agent knows the tools'
# parameters (`after`), which its errors name instead.
_FIELD_OF = {"after": "start_date", "before": "end_date"}
_PARAMETERS = "query limit mode paths tags after before budget_tokens start_line end_line"
_PARAMETERS += " direction depth days explain about where record"
_AS_PARAMETER = {flag_of(_FIELD_OF.get(name, name)): repr(name) for name in _PARAMETERS.split()}
_FLAG = re.compile("|".join(rf"(?<![\w-]){re.escape(flag)}(?![\w-])" for flag in _AS_PARAMETER))


def where_texts(where: Where | None) -> tuple[str, ...]:
    """The `where` object as the filters a typed call carries; ToolFailed naming 'where'."""
    try:
        return tuple(condition.text for condition in conditions_of(where))
    except ValueError as error:
        raise ToolFailed(str(error)) from None


def in_parameters(message: str) -> str:
    """A command's complaint as the tools name things: '--start-date ...' -> "'after' ..."."""
    return _FLAG.sub(lambda found: _AS_PARAMETER[found.group()], message)


WRITES_OFF = (
    "writing is off: this memlsp server was started without --allow-writes "
    "(the user adds it to the server's command to let agents write notes)"
)


# -- how the tools are presented: names, parameters and descriptions ------------------------------

NotePath = Annotated[str, Field(description="vault-relative path (notes/x.md) or note name")]
# Its values are checked by `conditions_of`, as every surface's are: a schema listing their types
# would spell out `null`, which the tools' schemas leave unsaid.
WhereParameter = Annotated[
    dict[str, Any] | None,
    Field(description='frontmatter filters, all hold: {"type":"Movie","rating":">=4","x":"!=y"}'),
]


def tool_functions(memory: Memory) -> list[Callable[..., str]]:
    """The tools as functions whose signatures are their schemas and docstrings their
    descriptions (the `mcp` SDK reads both). Numbers are strict: pydantic would otherwise take
    "5", true or 2.0 for a whole number, an argument the agent got wrong and never hears of."""

    def search(
        query: Annotated[
            str, Field(description="words or a question, Chinese or English; none: list `where`")
        ] = "",
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, strict=True)] = 10,
        mode: Literal["hybrid", "keyword", "vector"] = "hybrid",
        paths: Annotated[
            list[str] | None, Field(description="only notes in these folders or globs")
        ] = None,
        tags: Annotated[list[str] | None, Field(description="only notes with any tag")] = None,
        after: Annotated[str | None, Field(description="note date ≥ YYYY-MM-DD")] = None,
        before: Annotated[str | None, Field(description="note date ≤ YYYY-MM-DD")] = None,
        budget_tokens: Annotated[int | None, Field(ge=1, strict=True)] = None,
        explain: Annotated[
            list[str] | None, Field(description="notes to say why they are or are not found")
        ] = None,
        about: Annotated[
            list[str] | None, Field(description="notes whose linking or naming notes rank first")
        ] = None,
        where: WhereParameter = None,
        record: Annotated[
            bool, Field(strict=True, description="false: not counted as recalled")
        ] = True,
    ) -> str:
        """Search the notes by keyword and meaning (hybrid BM25 + vectors). Each result is a note
        at its best section: text, score, evidence, and the notes it links to and from."""
        return tool_text(
            memory.search(
                query,
                limit,
                mode,
                paths,
                tags,
                after,
                before,
                budget_tokens,
                explain,
                about,
                where,
                record,
            )
        )

    def read(
        path: NotePath,
        heading: Annotated[str | None, Field(description="one section; A#B for nested")] = None,
        start_line: Annotated[int | None, Field(ge=1, strict=True)] = None,
        end_line: Annotated[int | None, Field(ge=1, strict=True)] = None,
        budget_tokens: Annotated[int | None, Field(ge=1, strict=True)] = None,
    ) -> str:
        """Read a note, one section or a line range (1-based, inclusive), with its parsed
        frontmatter, headings and the links in those lines resolved."""
        return tool_text(memory.read(path, heading, start_line, end_line, budget_tokens))

    def links(
        path: NotePath,
        direction: Literal["both", "out", "in"] = "both",
        depth: Annotated[int, Field(ge=MIN_DEPTH, le=MAX_DEPTH, strict=True)] = MIN_DEPTH,
    ) -> str:
        """The link graph around a note as nodes and edges: notes it links to (out), notes
        linking to it (in), unresolved links as their own nodes, to `depth` links away."""
        return tool_text(memory.links(path, direction, depth))

    def related(path: NotePath, limit: Annotated[int, Field(ge=1, le=50, strict=True)] = 10) -> str:
        """Notes closest in meaning to a note (across Chinese and English), with the closest
        pair of sections and whether they are linked already."""
        return tool_text(memory.related(path, limit))

    def recent(
        days: Annotated[float, Field(gt=0, strict=True, allow_inf_nan=False)] = 7,
        limit: Annotated[int, Field(ge=1, le=200, strict=True)] = 20,
        where: WhereParameter = None,
        by: Literal["changed", "recalled"] = "changed",
    ) -> str:
        """Notes changed in the last `days`, newest first; by "recalled": those searches
        showed in that time, most often first."""
        return tool_text(memory.recent(days, limit, where, by))

    def status() -> str:
        """The vault's state: counts, indexing and embedding progress, files that are not notes
        and why, problems (bad frontmatter, broken links), settings."""
        return tool_text(memory.status())

    def write(
        path: NotePath,
        content: str | None = None,
        mode: Literal["create", "append", "replace_section", "edit"] = "create",
        heading: Annotated[str | None, Field(description="for replace_section")] = None,
        old_text: Annotated[str | None, Field(description="for edit: exact, found once")] = None,
        new_text: Annotated[str | None, Field(description="for edit")] = None,
        dry_run: Annotated[bool, Field(strict=True, description="only show the diff")] = False,
        expected_hash: Annotated[
            str | None, Field(description="read's hash: refused if the note changed since")
        ] = None,
    ) -> str:
        """Write a Markdown note: create a new one, append to one, replace one section's text
        under `heading`, or edit: `old_text` replaced by `new_text`. Never overwrites otherwise;
        searchable once this returns."""
        changes = {"old_text": old_text, "new_text": new_text, "expected_hash": expected_hash}
        return tool_text(memory.write(path, content, mode, heading, **changes, dry_run=dry_run))

    return [search, read, links, related, recent, status, write]
