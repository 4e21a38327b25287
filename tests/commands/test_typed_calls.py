"""The commands as typed calls: every `--json` answer written by the one JSON writer (no control or
bidi character raw, in a process of its own, on the vault's socket and as an agent's tool); a
typed call over the socket answered with its JSON, and with what an older server prints instead."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from memlsp import daemon, wire
from memlsp.agent.budget import tool_text
from memlsp.agent.source import VaultSource
from memlsp.agent.tools import Memory
from memlsp.cli import main
from memlsp.commands.answers import answer_on_socket
from memlsp.commands.arguments import UsageError
from memlsp.commands.calls import (
    Call,
    GraphCall,
    LinksCall,
    ReadCall,
    RecentCall,
    RelatedCall,
    SearchCall,
    call_from_json,
    call_json,
    checked_request,
)
from memlsp.daemon import host as serve_module
from memlsp.settings.table import Settings, settings_from
from tests.helpers.vault import write_notes

# C1 (NEL, CSI), bidi override and isolate, and the right-to-left mark.
CONTROLS = "\u202e\u2066\u0085\u009b\u200f"
NOTES = {
    "odd.md": (
        "---\ntags: [odd\u202etag]\n---\n# Odd \u202e title\n\n"
        f"Quartzite and {CONTROLS} here. [[plain]] [[gone\u2066]] #odd\u0085tag\n"
    ),
    "plain.md": "# Plain\n\nQuartzite too; see [[odd]]. Odd title is written here.\n",
}
JSON_COMMANDS = [
    ("search", "quartzite"),
    ("links", "odd"),
    ("related", "odd"),
    ("mentions", "odd"),
    ("graph", "odd"),
    ("graph", "odd", "--format", "json", "--depth", "2"),
    ("read", "odd"),
    ("recent",),
]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "vault", {**NOTES, ".memlsp.toml": "watch = false\n"})


@pytest.fixture
def cache() -> Iterator[Path]:
    """Short, so that the vault's socket lives in its cache folder."""
    with tempfile.TemporaryDirectory(prefix="mt-") as folder:
        yield Path(folder)


def settings_for(cache: Path) -> Settings:
    settings, problems = settings_from({"cache_dir": str(cache), "embedder": "none"})
    assert problems == []
    return settings


def run(*argv: str | Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(arg) for arg in argv])
    return code, out.getvalue(), err.getvalue()


def assert_escaped(text: str) -> None:
    raw = sorted({f"U+{ord(c):04X}" for c in text if c in CONTROLS})
    assert not raw, f"raw in the JSON: {raw}"


def command_lines(vault: Path, cache: Path) -> Iterator[tuple[str, ...]]:
    for command, *rest in JSON_COMMANDS:
        yield (
            command,
            str(vault),
            *rest,
            "--json",
            "--embedder",
            "none",
            "--cache-dir",
            str(cache),
        )


def test_no_json_answer_prints_a_control_or_bidi_character_raw(
    vault: Path, cache: Path, tmp_path: Path
) -> None:
    answers = []
    for argv in command_lines(vault, cache):
        code, out, err = run(*argv)
        assert code == 0, (argv, err)
        answers.append(json.loads(out))
        assert_escaped(out)
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"id": 1, "query": "quartzite"}\n{"id": 2, "query": "odd"}\n')
    code, out, _ = run("search", vault, "--queries", queries, "--cache-dir", cache)
    assert code == 0 and len(out.splitlines()) == 2
    assert_escaped(out)
    code, out, _ = run("index", vault, "--json", "--embedder", "none", "--cache-dir", cache)
    assert code == 0
    assert_escaped(out)
    # Escaped, not lost: the values read back are the note's own.
    read = answers[JSON_COMMANDS.index(("read", "odd"))]
    assert CONTROLS in read["text"]


@pytest.mark.skipif(not daemon.supported(), reason="no Unix domain sockets")
def test_on_the_socket_and_as_tools_too(
    vault: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = VaultSource(vault, settings_for(cache))
    own.start()
    monkeypatch.delenv("MEMLSP_NO_DAEMON", raising=False)
    own.answer(LinksCall("odd"))  # the index is open, and so the socket
    replies = spy_on_asking(monkeypatch)
    try:
        printed = [run(*argv) for argv in command_lines(vault, cache)]
        memory = Memory(own, allow_writes=False)
        tools = [
            memory.search("quartzite", 10, "hybrid", None, None, None, None, None),
            memory.read("odd", None, None, None, None),
            memory.links("odd", "both", 2),
            memory.recent(7, 20),
        ]
    finally:
        own.close()
    assert len(replies) == len(printed)  # each command line was answered on the socket
    for code, out, err in printed:
        assert code == 0, err
        assert_escaped(out)
    for answer in tools:
        assert_escaped(tool_text(answer))


@pytest.mark.skipif(not daemon.supported(), reason="no Unix domain sockets")
@pytest.mark.parametrize("older", [False, True], ids=["typed", "older server"])
def test_a_typed_call_over_the_socket_is_answered_as_in_process(
    vault: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, older: bool
) -> None:
    if older:  # a server that knows only command lines: it answers the call's `argv`
        monkeypatch.setattr(
            serve_module,
            "answer_on_socket",
            lambda live, request: answer_on_socket(live, dataclasses.replace(request, call=None)),
        )
    settings = settings_for(cache)
    own, other = VaultSource(vault, settings), VaultSource(vault, settings)
    own.start()
    own.answer(LinksCall("odd"))  # the index is open, and so the socket
    replies = spy_on_asking(monkeypatch)
    calls: list[Call] = [
        # Not counted as recalled: each answer would show one recall more than the one before
        # (and the older server's command line carries it as --no-recall).
        SearchCall(checked_request({"query": "quartzite", "paths": ["odd.md"], "record": False})),
        LinksCall("odd"),
        GraphCall("odd", depth=2, meaning=0),
        ReadCall("odd", start_line=4, budget_tokens=50),
        RecentCall(days=30, limit=1),
    ]
    try:
        other.start()  # another process answers: this one opens nothing
        here = [json.loads(json.dumps(own.answer(call))) for call in calls]
        there = [other.answer(call) for call in calls]
        with pytest.raises(UsageError) as missing:
            other.answer(LinksCall("nowhere"))
    finally:
        other.close()
        own.close()
    timeless = [{k: v for k, v in answer.items() if k != "since"} for answer in here]  # now
    assert [{k: v for k, v in answer.items() if k != "since"} for answer in there] == timeless
    assert len(replies) == len(calls) + 1
    *answered, refused = replies
    assert all((reply.answer is None) == older for reply in answered)
    assert (refused.code, refused.answer) == (2, None)
    assert str(missing.value) == f"no note 'nowhere' in {vault}"


@pytest.mark.skipif(not daemon.supported(), reason="no Unix domain sockets")
def test_a_budgeted_search_on_the_socket_names_what_it_left_out(
    vault: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a typed call and as a command line, answered by the process that has the vault open
    (as `memlsp serve` answers): `dropped` and `budget_used`, and the text's cut line."""
    settings = settings_for(cache)
    own, other = VaultSource(vault, settings), VaultSource(vault, settings)
    own.start()
    monkeypatch.delenv("MEMLSP_NO_DAEMON", raising=False)
    own.answer(LinksCall("odd"))  # the index is open, and so the socket
    replies = spy_on_asking(monkeypatch)
    flags = ("--embedder", "none", "--cache-dir", cache)
    try:
        other.start()  # another process answers: this one opens nothing
        # Not counted as recalled, so that each answer is the same as the one before.
        uncounted = {"query": "quartzite", "record": False}
        whole = other.answer(SearchCall(checked_request(uncounted)))
        typed = other.answer(SearchCall(checked_request({**uncounted, "budget_tokens": 1})))
        printed = run(
            "search", vault, "quartzite", "--budget-tokens", "1", "--json", "--no-recall", *flags
        )
        text = run("search", vault, "quartzite", "--budget-tokens", "1", *flags)
    finally:
        other.close()
        own.close()
    assert len(replies) == 4 and all(reply.code == 0 for reply in replies)
    assert printed[0] == 0 and json.loads(printed[1]) == typed
    assert len(whole["results"]) == 2 and whole["dropped"] == [] and whole["budget_used"] is None
    assert typed["results"] == whole["results"][:1]
    [left] = typed["dropped"]
    assert (left["path"], left["score"]) == (
        whole["results"][1]["path"],
        whole["results"][1]["score"],
    )
    assert isinstance(typed["budget_used"], int) and left["tokens"] > 0
    assert (
        text[1]
        .rstrip("\n")
        .endswith(
            f"(cut: 1 more result left out to stay within 1 token (budget_tokens); "
            f"{typed['budget_used']} used)"
        )
    )


def spy_on_asking(monkeypatch: pytest.MonkeyPatch) -> list[daemon.Reply]:
    """The replies every later `daemon.ask` gets (the command line's and the agent's alike)."""
    replies: list[daemon.Reply] = []
    ask = daemon.ask

    def asking(path: Path, request: daemon.Request) -> daemon.Reply:
        replies.append(ask(path, request))
        return replies[-1]

    monkeypatch.setattr(daemon, "ask", asking)
    return replies


def test_a_call_is_the_same_call_after_its_json() -> None:
    calls: list[Any] = [
        SearchCall(checked_request({"query": "q", "tags": ["a"], "start_date": "2024-01-02"})),
        GraphCall("n", 3, "out", 0, 7),
        ReadCall("n", "A#B", 2, 9, 100),
        RecentCall(0.5, 3),
    ]
    for call in calls:
        assert call_from_json(json.loads(json.dumps(call_json(call)))) == call


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"command": "graph", "arguments": {"note": "n", "depth": 9}}, "--depth must be from 1"),
        ({"command": "recent", "arguments": {"days": 1e300}}, "--days must be at most"),
        ({"command": "read", "arguments": {"note": "n", "start_line": "2"}}, "bad argument"),
        ({"command": "graph", "arguments": {"note": "n", "depth": True}}, "bad argument"),
        ({"command": "index", "arguments": {}}, "not a command a vault answers"),
        ({"command": "search", "arguments": {"query": "q", "limit": 0}}, "--limit must be"),
        ([], "a call is an object"),
    ],
)
def test_a_bad_call_is_refused_with_one_sentence(data: object, message: str) -> None:
    with pytest.raises(UsageError) as refused:
        call_from_json(data)
    assert message in str(refused.value)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: RelatedCall("n", True), "--limit must be a whole number, not True"),
        (lambda: RelatedCall("n", 2.0), "--limit must be a whole number, not 2.0"),  # type: ignore[arg-type]
        (lambda: ReadCall("n", budget_tokens="9"), "--budget-tokens must be a whole number"),  # type: ignore[arg-type]
        (lambda: RecentCall(True), "--days must be a number of days, not True"),
        (lambda: RecentCall(7, limit=False), "--limit must be a whole number"),
    ],
    ids=["related-limit-bool", "related-limit-float", "read-budget-text", "recent-days-bool",
         "recent-limit-bool"],
)  # fmt: skip
def test_a_typed_call_takes_no_bool_or_text_for_a_number(build: Any, message: str) -> None:
    """Built by any surface, a call refuses what Python would compare as a number: True is 1."""
    with pytest.raises(UsageError) as refused:
        build()
    assert str(refused.value).startswith(message)


def test_json_lines_and_text_escape_alike() -> None:
    data = {"a": CONTROLS, "b": ["\u061c\u200e"]}
    for text in (wire.json_text(data), wire.json_line(data), wire.json_line(data, compact=True)):
        assert not set(text) & set(CONTROLS + "\u061c\u200e")
        assert json.loads(text) == data
    assert "\n" not in wire.json_line(data) and os.linesep not in wire.json_line(data)
