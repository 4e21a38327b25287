"""A campaign of bad calls against `memlsp mcp`, in process and over stdio, with and without
`--allow-writes`: a wrong type for every parameter of every tool, numbers out of range, queries
and paths that are empty, huge, hold a NUL or a lone surrogate, or lead out of the vault (`..`,
absolute, `~`, `\\`, %-escapes, a symlinked note or folder), unknown tools, values and parameters,
and writes that are too large, over a note, or into a hidden folder.

Every one is a tool error of one plain sentence that names the parameter or the problem; the files
of the vault and beside it (bytes and times) are as they were; a canary note outside the vault
never shows in an answer; and the server answers the next good call.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from memlsp.agent import tools
from tests.agent.test_mcp import FIXTURE, agent, settings_for
from tests.helpers.cli import environment
from tests.helpers.mcp_stdio import McpProcess

CANARY = "canary-7f3a9c-outside-the-vault"  # never in an answer: it is not in the vault
OUTSIDE_WORD = "quetzalcoatlite"  # a word only the note outside the vault holds
CANARY_TEXT = f"# Canary\n\n{OUTSIDE_WORD} {CANARY}\n"
GOOD_NOTE = "search/bm25.md"
# What an error must never show: a trace, the SDK's wrapper, a Python exception's name.
NOT_PLAIN = re.compile(
    r"Traceback|Error executing tool|File \"|pydantic|\b[A-Z][A-Za-z]*(?:Error|Exception)\b"
)
MOST_CHARACTERS = 400  # an error is a sentence, not an echo of a 200,000-character argument


@dataclass(frozen=True)
class Bad:
    """One bad call: its tool and arguments, and what its error must name."""

    name: str
    tool: str
    arguments: Mapping[str, Any]
    says: str  # a part of the sentence (case-insensitive): the parameter or the problem
    writes: bool = False  # only asked of a server started with --allow-writes


@dataclass(frozen=True)
class Place:
    """A test's folder: the vault, and beside it what must stay untouched and unseen."""

    root: Path
    vault: Path
    canary: Path  # a note outside the vault, shown inside it by a symlinked note and folder
    empty: Path  # a folder outside the vault, inside it as `escape/`: must stay empty

    @property
    def cache(self) -> Path:
        return self.root / "cache"


# -- the cases ------------------------------------------------------------------------------------

# A call each tool answers; a case changes one of its arguments.
GOOD: dict[str, dict[str, Any]] = {
    "search": {"query": "bm25"},
    "read": {"path": GOOD_NOTE},
    "links": {"path": GOOD_NOTE},
    "related": {"path": GOOD_NOTE},
    "recent": {},
    "write": {"path": "inbox/new.md", "content": "new words"},
}
# Every parameter's kind; `?` marks one that may be null (left out).
KINDS: dict[str, dict[str, str]] = {
    "search": {
        "query": "text",
        "limit": "int",
        "mode": "choice",
        "paths": "list?",
        "tags": "list?",
        "after": "text?",
        "before": "text?",
        "budget_tokens": "int?",
    },
    "read": {
        "path": "text",
        "heading": "text?",
        "start_line": "int?",
        "end_line": "int?",
        "budget_tokens": "int?",
    },
    "links": {"path": "text", "direction": "choice", "depth": "int"},
    "related": {"path": "text", "limit": "int"},
    "recent": {"days": "number", "limit": "int"},
    "write": {
        "path": "text",
        "content": "text",
        "mode": "choice",
        "heading": "text?",
        "old_text": "text?",
        "new_text": "text?",
        "dry_run": "flag",
        "expected_hash": "text?",
    },
}
WRONG: dict[str, list[tuple[str, Any]]] = {
    "int": [("string", "5"), ("bool", True), ("float", 2.0), ("list", [2]), ("object", {"n": 2})],
    "number": [("string", "7"), ("bool", True), ("list", [7]), ("object", {"n": 7})],
    "text": [("number", 5), ("list", ["bm25"]), ("bool", False), ("object", {"a": "b"})],
    "choice": [("number", 1), ("list", ["both"]), ("bool", True)],
    "flag": [("string", "true"), ("number", 1), ("list", [True])],
    "list": [("number", 5), ("object", {"a": "b"}), ("list_of_numbers", [5]), ("list_of_null", [None])],
}  # fmt: skip


def wrong_types() -> Iterator[Bad]:
    for tool, kinds in KINDS.items():
        for parameter, kind in kinds.items():
            wrong = list(WRONG[kind.rstrip("?")])
            if not kind.endswith("?"):
                wrong.append(("null", None))
            for label, value in wrong:
                yield Bad(
                    f"{tool}-{parameter}-{label}",
                    tool,
                    {**GOOD[tool], parameter: value},
                    parameter,
                    writes=tool == "write",
                )


def bad(name: str, tool: str, says: str, **arguments: Any) -> Bad:
    return Bad(name, tool, {**GOOD[tool], **arguments}, says, writes=tool == "write")


LONG = "bm25 ranking 向量检索 " * 12_500  # 200,000 characters of words a vault holds
HUGE = "y" * 200_000

WRONG_TYPES = list(wrong_types())
CASES: list[Bad] = [
    *WRONG_TYPES,
    # numbers out of range
    bad("search-limit-zero", "search", "limit", limit=0),
    bad("search-limit-negative", "search", "limit", limit=-1),
    bad("search-limit-over-max", "search", "limit", limit=100_001),  # MAX_LIMIT: a list by filters
    bad("search-limit-1e300", "search", "limit", limit=1e300),
    bad("search-limit-2-63", "search", "limit", limit=2**63),
    bad("search-budget-zero", "search", "budget_tokens", budget_tokens=0),
    bad("search-budget-negative", "search", "budget_tokens", budget_tokens=-5),
    bad("search-budget-1e300", "search", "budget_tokens", budget_tokens=1e300),
    bad("read-start-line-zero", "read", "start_line", start_line=0),
    bad("read-start-line-negative", "read", "start_line", start_line=-1),
    bad("read-start-line-2-63", "read", "start_line", start_line=2**63),
    bad("read-start-line-1e300", "read", "start_line", start_line=1e300),
    bad("read-end-line-zero", "read", "end_line", end_line=0),
    bad("read-start-after-end", "read", "start_line", start_line=10, end_line=2),
    bad("read-budget-zero", "read", "budget_tokens", budget_tokens=0),
    bad("links-depth-zero", "links", "depth", depth=0),
    bad("links-depth-six", "links", "depth", depth=6),
    bad("links-depth-2-63", "links", "depth", depth=2**63),
    bad("related-limit-zero", "related", "limit", limit=0),
    bad("related-limit-2-63", "related", "limit", limit=2**63),
    bad("recent-days-zero", "recent", "days", days=0),
    bad("recent-days-negative", "recent", "days", days=-1),
    bad("recent-days-1e300", "recent", "days", days=1e300),
    bad("recent-days-2-63", "recent", "days", days=2**63),
    bad("recent-limit-zero", "recent", "limit", limit=0),
    bad("recent-limit-2-63", "recent", "limit", limit=2**63),
    # queries
    bad("search-query-empty", "search", "query", query=""),
    bad("search-query-blank", "search", "query", query=" \t\n "),
    bad("search-query-200000-characters", "search", "query", query=LONG),
    bad("search-query-nul", "search", "query", query="bm25\x00"),
    bad("search-query-lone-surrogate", "search", "query", query="bm25 \udcff"),
    bad("search-query-outside-word", "search", "nothing found", query=OUTSIDE_WORD),
    # values a choice does not have, and values that are no date, tag or folder
    bad("search-mode-unknown", "search", "mode", mode="fuzzy"),
    bad("search-mode-capitals", "search", "mode", mode="HYBRID"),
    bad("links-direction-unknown", "links", "direction", direction="sideways"),
    bad("links-direction-empty", "links", "direction", direction=""),
    bad("search-after-a-word", "search", "after", after="yesterday"),
    bad("search-before-no-such-day", "search", "before", before="2024-02-30"),
    bad("search-tags-no-tag", "search", "tags", tags=["#"]),
    bad("search-paths-empty-entry", "search", "paths", paths=[""]),
    bad("search-paths-absolute", "search", "paths", paths=["/etc"]),
    bad("search-paths-parent", "search", "paths", paths=["../outside"]),
    bad("search-paths-inner-parent", "search", "paths", paths=["a/../../x"]),
    bad("search-paths-windows-drive", "search", "paths", paths=["C:/Windows"]),
    bad("search-paths-nul", "search", "paths", paths=["search\x00"]),
    bad("search-query-a-list-of-200000-characters", "search", "query", query=[HUGE]),
    bad("search-after-200000-characters", "search", "after", after=HUGE),
    bad("search-tags-200000-characters", "search", "tags", tags=["#" * 200_000]),
    bad("search-paths-200000-characters", "search", "paths", paths=["../" + HUGE]),
    bad("search-paths-symlinked-folder", "search", "nothing found", query=OUTSIDE_WORD,
        paths=["peek"]),
    # notes that are not there, or outside the vault
    bad("read-path-empty", "read", "no note", path=""),
    bad("read-path-nul", "read", "no note", path=GOOD_NOTE + "\x00"),
    bad("read-path-parent", "read", "outside the vault", path="../x.md"),
    bad("read-path-etc-passwd", "read", "outside the vault", path="/etc/passwd"),
    bad("read-path-inner-parent", "read", "outside the vault", path="a/../../x.md"),
    bad("read-path-home", "read", "outside the vault", path="~/.ssh/id_rsa"),
    bad("read-path-home-note", "read", "outside the vault", path="~/notes.md"),
    bad("read-path-backslashes", "read", "outside the vault", path="..\\x.md"),
    bad("read-path-url-encoded", "read", "no note", path="%2e%2e/x.md"),
    bad("read-path-url-encoded-slash", "read", "no note", path="%2e%2e%2fx.md"),
    bad("read-path-hidden-folder", "read", "no note", path=".obsidian/hidden.md"),
    bad("read-path-symlinked-note", "read", "no note", path="leak.md"),
    bad("read-path-symlinked-note-by-name", "read", "no note", path="leak"),
    bad("read-path-symlinked-folder", "read", "no note", path="peek/canary.md"),
    bad("read-path-outside-note-by-title", "read", "no note", path="Canary"),
    bad("read-path-200000-characters", "read", "no note", path=HUGE),
    bad("links-path-parent", "links", "no note", path="../x.md"),
    bad("links-path-symlinked-note", "links", "no note", path="leak.md"),
    bad("related-path-etc-passwd", "related", "no note", path="/etc/passwd"),
    bad("related-path-symlinked-folder", "related", "no note", path="peek/canary.md"),
    bad("read-heading-missing", "read", "no heading 'No such heading'", heading="No such heading"),
    bad("read-heading-empty", "read", "no heading", heading=""),
    bad("read-heading-200000-characters", "read", "no heading", heading=HUGE),
    # unknown tools and parameters, and one left out
    # (not beside a filter: `tags` alone, like `where`, asks for a list of the notes it matches)
    Bad("search-query-missing-beside-a-huge-argument", "search", {"explain": [HUGE]}, "query"),
    bad("search-unknown-parameter", "search", "top_k", top_k=3),
    bad("read-unknown-parameter", "read", "lines", lines=[1, 2]),
    bad("links-parameter-in-capitals", "links", "Depth", Depth=2),
    Bad("unknown-tool", "delete", {"path": GOOD_NOTE}, "the tools are search, read, links"),
    Bad("unknown-tool-in-capitals", "Search", {"query": "bm25"}, "Search"),
    Bad("unknown-tool-empty-name", "", {}, "tool"),
    # writes
    bad("write-mode-unknown", "write", "mode", mode="overwrite"),
    bad("write-unknown-parameter", "write", "overwrite", overwrite=True),
    bad("write-path-empty", "write", "path", path=""),
    bad("write-path-blank", "write", "path", path="   "),
    bad("write-path-parent", "write", "outside the vault", path="../x.md"),
    bad("write-path-inner-parent", "write", "outside the vault", path="inbox/../../x.md"),
    bad("write-path-etc", "write", "outside the vault", path="/etc/memlsp.md"),
    bad("write-path-home", "write", "outside the vault", path="~/.ssh/authorized_keys"),
    bad("write-path-home-note", "write", "outside the vault", path="~/notes.md"),
    bad("write-path-someones-home", "write", "outside the vault", path="~root/notes.md"),
    bad("write-path-backslashes", "write", "'/'", path="..\\x.md"),
    bad("write-path-url-encoded", "write", "%2e", path="%2e%2e/x.md"),
    bad("write-path-nul", "write", "\\x00", path="a\x00b.md"),
    bad("write-path-lone-surrogate", "write", "path", path="a\udcffb.md"),
    bad("write-path-200000-characters", "write", "255 bytes", path=HUGE),
    bad("write-path-too-deep", "write", "1,024 bytes", path="a/" * 600 + "x.md"),
    bad("write-path-under-a-note", "write", "not a folder", path="index.md/x.md"),
    bad("write-path-hidden-folder", "write", "not be indexed", path=".obsidian/x.md"),
    bad("write-path-trash", "write", "not be indexed", path=".trash/x.md"),
    bad("write-symlinked-folder", "write", "outside the vault", path="escape/x.md"),
    bad("write-symlinked-folder-deeper", "write", "outside the vault", path="escape/a/x.md"),
    bad("write-symlinked-folder-append", "write", "outside the vault", path="peek/canary.md",
        mode="append"),
    bad("write-symlinked-note-create", "write", "symlink", path="leak.md"),
    bad("write-symlinked-note-append", "write", "symlink", path="leak.md", mode="append"),
    bad("write-folder-as-note", "write", "not a file", path="folder.md", mode="append"),
    bad("write-content-2-mib", "write", "1 MiB", content="x" * (2 << 20)),
    bad("write-content-lone-surrogate", "write", "content", content="half \udcff"),
    bad("write-content-high-surrogate", "write", "content", content="half \ud800"),
    bad("write-create-over-a-note", "write", "exists", path=GOOD_NOTE),
    bad("write-create-with-heading", "write", "heading", heading="BM25"),
    bad("write-append-with-heading", "write", "heading", path=GOOD_NOTE, mode="append",
        heading="BM25"),
    bad("write-append-to-no-note", "write", "create", path="inbox/none.md", mode="append"),
    bad("write-replace-without-heading", "write", "heading", path=GOOD_NOTE,
        mode="replace_section"),
    bad("write-replace-missing-heading", "write", "no heading 'No such heading'", path=GOOD_NOTE,
        mode="replace_section", heading="No such heading"),
    bad("write-replace-heading-200000-characters", "write", "no heading", path=GOOD_NOTE,
        mode="replace_section", heading=HUGE),
    bad("write-edit-found-nowhere", "write", "'old_text' occurs 0 times", path=GOOD_NOTE,
        content=None, mode="edit", old_text="words in no note", new_text="x"),
    bad("write-edit-found-twice", "write", "'old_text' occurs 2 times", path=GOOD_NOTE,
        content=None, mode="edit", old_text="saturates", new_text="x"),
    bad("write-edit-empty-old-text", "write", "old_text", path=GOOD_NOTE, content=None,
        mode="edit", old_text="", new_text="x"),
    bad("write-edit-without-new-text", "write", "new_text", path=GOOD_NOTE, content=None,
        mode="edit", old_text="BM25 is"),
    bad("write-edit-with-content", "write", "content", path=GOOD_NOTE, mode="edit",
        old_text="BM25 is", new_text="x"),
    bad("write-edit-of-no-note", "write", "create", path="inbox/none.md", content=None,
        mode="edit", old_text="BM25 is", new_text="x"),
    bad("write-old-text-to-append", "write", "'edit' only", path=GOOD_NOTE, mode="append",
        old_text="BM25 is"),
    bad("write-edit-new-text-2-mib", "write", "1 MiB", path=GOOD_NOTE, content=None,
        mode="edit", old_text="BM25 is", new_text="x" * (2 << 20)),
    bad("write-edit-new-text-lone-surrogate", "write", "new_text", path=GOOD_NOTE, content=None,
        mode="edit", old_text="BM25 is", new_text="half \udcff"),
    bad("write-append-stale-hash", "write", "changed since you read it", path=GOOD_NOTE,
        mode="append", expected_hash="0" * 64),
    bad("write-edit-dry-run-stale-hash", "write", "changed since you read it", path=GOOD_NOTE,
        content=None, mode="edit", old_text="BM25 is", new_text="x", expected_hash="0" * 64,
        dry_run=True),
    bad("write-create-hash-of-no-note", "write", "read it again", expected_hash="0" * 64),
]  # fmt: skip
WRITES_OFF = [
    Bad("write-while-writes-are-off", "write", GOOD["write"], "--allow-writes"),
    Bad("write-dry-run-while-writes-are-off", "write", {**GOOD["write"], "dry_run": True},
        "--allow-writes"),
    Bad("write-outside-while-writes-are-off", "write", {"path": "../x.md", "content": "x"},
        "--allow-writes"),
]  # fmt: skip
# (case, whether the server was started with --allow-writes): every case with it; without it,
# the cases of the tools it keeps but the wrong types (which the schemas refuse before a tool runs,
# with writes or without), and `write`.
RUNS = [(case, True) for case in CASES] + [
    (case, False) for case in [*CASES, *WRITES_OFF] if not case.writes and case not in WRONG_TYPES
]


def run_id(run: tuple[Bad, bool]) -> str:
    case, writes = run
    return f"{case.name}{'' if writes else '-read-only'}"


# -- what every refusal must be -------------------------------------------------------------------


def make_place(tmp_path: Path) -> Place:
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE, vault)
    outside = tmp_path / "outside"
    outside.mkdir()
    canary = outside / "canary.md"
    canary.write_text(CANARY_TEXT, encoding="utf-8")
    empty = tmp_path / "empty"
    empty.mkdir()
    (vault / "leak.md").symlink_to(canary)
    (vault / "peek").symlink_to(outside, target_is_directory=True)
    (vault / "escape").symlink_to(empty, target_is_directory=True)
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "hidden.md").write_text("# Hidden\n\nhidden words\n")
    (vault / "folder.md").mkdir()
    return Place(tmp_path.resolve(), vault.resolve(), canary, empty)


def files(place: Place) -> dict[str, tuple[Any, ...]]:
    """Everything in the test's folder but the index's cache, its config and the server's log:
    each file's bytes and modification time, each symlink's target, each folder (symlinks are
    not followed)."""
    found: dict[str, tuple[Any, ...]] = {}
    for folder, folders, names in os.walk(place.root):
        if Path(folder) == place.root:
            folders[:] = [name for name in folders if name not in ("cache", "config", "logs")]
        for name in folders + names:
            path = Path(folder) / name
            key = path.relative_to(place.root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                found[key] = ("symlink", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                found[key] = ("folder",)
            else:
                found[key] = ("file", path.read_bytes(), info.st_mtime_ns)
    return found


def assert_plain_refusal(place: Place, case: Bad, is_error: bool, text: str) -> None:
    assert is_error, f"{case.name}: answered {text[:300]!r}"
    assert text and "\n" not in text, f"{case.name}: {text[:300]!r}"
    assert not NOT_PLAIN.search(text), f"{case.name}: {text[:300]!r}"
    assert not re.search(r"[.!?] +[A-Z]", text), f"{case.name}: two sentences: {text!r}"
    assert len(text) <= MOST_CHARACTERS, f"{case.name}: {len(text):,} characters: {text[:300]!r}"
    assert case.says.lower() in text.lower(), f"{case.name}: {text!r} names no {case.says!r}"
    assert CANARY not in text
    assert str(place.vault) not in text, f"{case.name}: names the vault's folder: {text!r}"


def assert_good_read(place: Place, is_error: bool, text: str) -> None:
    assert not is_error, text
    assert json.loads(text)["text"] == (place.vault / GOOD_NOTE).read_text().rstrip("\n")
    assert CANARY not in text


def assert_untouched(place: Place, before: Mapping[str, tuple[Any, ...]]) -> None:
    assert files(place) == before
    assert place.canary.read_text(encoding="utf-8") == CANARY_TEXT
    assert list(place.empty.iterdir()) == []


# -- in process -----------------------------------------------------------------------------------


@pytest.mark.parametrize("run", RUNS, ids=[run_id(run) for run in RUNS])
async def test_a_bad_call_is_one_plain_sentence_and_changes_nothing(
    tmp_path: Path, run: tuple[Bad, bool]
) -> None:
    case, writes = run
    place = make_place(tmp_path)
    async with agent(place.vault, settings_for(place.cache), allow_writes=writes) as client:
        before = files(place)
        result = await client.call_tool(case.tool, dict(case.arguments))
        assert_plain_refusal(place, case, result.is_error, result.content[0].text)  # type: ignore[union-attr]
        assert_untouched(place, before)
        good = await client.call_tool("read", {"path": GOOD_NOTE})
        assert_good_read(place, good.is_error, good.content[0].text)  # type: ignore[union-attr]


async def test_a_write_the_file_system_refuses_is_a_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What no check foresees (a full disk, a read-only file system) is still one sentence."""

    def full(target: Path, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))

    monkeypatch.setattr(tools, "write_atomically", full)
    place = make_place(tmp_path)
    case = bad("write-on-a-full-disk", "write", "No space left on device")
    async with agent(place.vault, settings_for(place.cache), allow_writes=True) as client:
        before = files(place)
        result = await client.call_tool(case.tool, dict(case.arguments))
        assert_plain_refusal(place, case, result.is_error, result.content[0].text)  # type: ignore[union-attr]
        assert result.content[0].text.startswith("'inbox/new.md' could not be written")  # type: ignore[union-attr]
        assert_untouched(place, before)


def test_the_campaign_covers_every_parameter_and_kind_of_harm() -> None:
    """Each parameter of each tool is sent a wrong type, and the table is as wide as asked."""
    named = {(case.tool, case.says) for case in CASES}
    for tool, kinds in KINDS.items():
        assert all((tool, parameter) in named for parameter in kinds), tool
    assert len({case.name for case in CASES}) == len(CASES)
    assert len(RUNS) >= 40


# -- over stdio, as agents' clients start it ------------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("writes", [True, False], ids=["allow-writes", "read-only"])
async def test_the_campaign_over_stdio(tmp_path: Path, writes: bool) -> None:
    """The same table against one `memlsp mcp` process each: a long-lived server takes every
    bad call in turn, and each time changes nothing and answers the next good call."""
    place = make_place(tmp_path)
    flags = ["--cache-dir", str(place.cache), "--embedder", "none"]
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memlsp", "mcp", str(place.vault), *flags]
        + (["--allow-writes"] if writes else []),
        env=environment(),
    )
    # A lone surrogate has no UTF-8, so the SDK's client cannot send one over stdio (the raw
    # test below sends its JSON escape).
    cases = [case for case, with_writes in RUNS if with_writes == writes and utf8(case.arguments)]
    async with Client(server, read_timeout_seconds=120) as client:
        for case in cases:
            before = files(place)
            result = await client.call_tool(case.tool, dict(case.arguments))
            assert_plain_refusal(place, case, result.is_error, result.content[0].text)  # type: ignore[union-attr]
            assert_untouched(place, before)
            good = await client.call_tool("read", {"path": GOOD_NOTE})
            assert_good_read(place, good.is_error, good.content[0].text)  # type: ignore[union-attr]


def utf8(arguments: Mapping[str, Any]) -> bool:
    try:
        json.dumps(arguments, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# What JSON's grammar has no room for, which a client may still send and the SDK's parser takes:
# NaN, Infinity, a number too large for a double (read as infinity).
RAW = [
    ("search-limit-nan", '"search", "arguments": {"query": "bm25", "limit": NaN}', "limit"),
    ("search-budget-infinity", '"search", "arguments": {"query": "bm25", "budget_tokens": '
     'Infinity}', "budget_tokens"),
    ("read-start-line-nan", f'"read", "arguments": {{"path": "{GOOD_NOTE}", "start_line": NaN}}',
     "start_line"),
    ("links-depth-minus-infinity", f'"links", "arguments": {{"path": "{GOOD_NOTE}", "depth": '
     "-Infinity}", "depth"),
    ("recent-days-nan", '"recent", "arguments": {"days": NaN}', "days"),
    ("recent-days-infinity", '"recent", "arguments": {"days": Infinity}', "days"),
    ("recent-days-1e400", '"recent", "arguments": {"days": 1e400}', "days"),
    ("related-limit-1e400", f'"related", "arguments": {{"path": "{GOOD_NOTE}", "limit": 1e400}}',
     "limit"),
]  # fmt: skip


@pytest.mark.e2e
def test_numbers_json_has_no_words_for_over_stdio(tmp_path: Path) -> None:
    place = make_place(tmp_path)
    server = McpProcess(place.vault, place.cache, "--allow-writes")
    try:
        for number, (name, call, says) in enumerate(RAW, 1000):
            case = Bad(name, "", {}, says)
            before = files(place)
            server.send_line(
                f'{{"jsonrpc": "2.0", "id": {number}, "method": "tools/call", '
                f'"params": {{"name": {call}}}}}'
            )
            result = server.answer(number, timeout=60)["result"]
            assert_plain_refusal(
                place, case, result.get("isError", False), result["content"][0]["text"]
            )
            assert_untouched(place, before)
            good = server.call("read", {"path": GOOD_NOTE})
            assert_good_read(place, good.get("isError", False), good["content"][0]["text"])
        # A lone surrogate's escape: JSON, but not to the SDK's parser, which dropped the line
        # unanswered; it is answered as an invalid request, and the server goes on.
        server.send_line(
            '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "search", '
            '"arguments": {"query": "bm25 \\udcff"}}}'
        )
        refused = server.answer(7, timeout=60)["error"]
        assert "surrogate" in refused["message"] and "Traceback" not in refused["message"]
        good = server.call("read", {"path": GOOD_NOTE})
        assert_good_read(place, good.get("isError", False), good["content"][0]["text"])
    finally:
        server.close()
