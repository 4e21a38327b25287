"""`memlsp read` and `memlsp recent`: in-process over temp vaults, and once through `memlsp serve`
on the vault's socket, whose answer is the one the command gives by itself."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memlsp import daemon
from memlsp.cli import ASKED, main
from memlsp.commands.answers import ANSWERED, LIVE_ANSWERED, print_answer
from memlsp.commands.arguments import UsageError, command_parser
from memlsp.commands.calls import call_of
from memlsp.queries.recent import NS_PER_DAY, Change, recent_changes
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings
from tests.helpers.cli import memlsp
from tests.helpers.engine import open_indexed
from tests.helpers.vault import write, write_notes

ALPHA = """\
---
title: Alpha
date: 2024-05-01
created: 2024-05-01T10:20:30
tags: [one, two]
extra: {n: 1, when: 2024-01-02, ok: true, none: null, nan: .nan}
---
# Alpha

Opening [[b]].

## Intro

Intro text [[b#Bananas]] and [[missing]].

### Same

First same [[dup]].

## Setup

### Same

Second same.

#### Deeper

Deep words.

## End
"""
LINES = ALPHA.splitlines()  # the file's 30 lines, as `read` numbers them

NOTES = {
    ".memlsp.toml": 'embedder = "none"\n',
    "notes/alpha.md": ALPHA,
    "b.md": "# Bananas\n\nYellow.\n",
    "x/dup.md": "# Dup one\n",
    "y/dup.md": "# Dup two\n",
    "plain.md": "Just text, no heading.",
    "bad.md": "---\nkey: [unclosed\n---\n# Bad\n",
    "many.md": "".join(f"## H{n}\n\n" for n in range(1, 26)),
    "log.jsonl": '{"a": 1}\n{"b": 2}\n',
    "drawing.canvas": '{"nodes": []}\n',
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = write_notes(tmp_path / "vault", NOTES)
    write(tmp_path, "secret.md", "# Secret\n\nnot for the vault\n")
    os.symlink(tmp_path / "secret.md", root / "leak.md")  # a note outside the vault
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def read(capsys: pytest.CaptureFixture[str], vault: Path, *args: str) -> dict[str, Any]:
    code, out, err = run(capsys, "read", vault, *args, "--json", "--cache-dir", vault.parent / "c")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def lines(start: int, end: int) -> str:
    """The file's lines start..end (1-based, inclusive), as `read` must give them."""
    return "\n".join(LINES[start - 1 : end])


# -- read -------------------------------------------------------------------------------------


def test_a_whole_note_is_its_file(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = read(capsys, vault, "notes/alpha.md")
    assert data["text"] == ALPHA.removesuffix("\n") == lines(1, 30)
    assert (data["path"], data["title"], data["heading"], data["cut"]) == (
        "notes/alpha.md",
        "Alpha",
        None,
        None,
    )
    assert (data["start_line"], data["end_line"], data["line_count"]) == (1, 30, 30)
    assert data["frontmatter"] == {
        "title": "Alpha",
        "date": "2024-05-01",
        "created": "2024-05-01T10:20:30",
        "tags": ["one", "two"],
        "extra": {"n": 1, "when": "2024-01-02", "ok": True, "none": None, "nan": "nan"},
    }
    assert data["headings"] == [
        {"level": 1, "text": "Alpha", "line": 8},
        {"level": 2, "text": "Intro", "line": 12},
        {"level": 3, "text": "Same", "line": 16},
        {"level": 2, "text": "Setup", "line": 20},
        {"level": 3, "text": "Same", "line": 22},
        {"level": 4, "text": "Deeper", "line": 26},
        {"level": 2, "text": "End", "line": 30},
    ]
    # By name as well as by path; the plain text is the same lines.
    assert read(capsys, vault, "Alpha") == data == read(capsys, vault, "notes/alpha")
    code, out, _ = run(capsys, "read", vault, "alpha", "--cache-dir", vault.parent / "c")
    assert code == 0 and out == ALPHA


@pytest.mark.parametrize(
    ("heading", "start", "end"),
    [
        ("Alpha", 8, 30),  # level 1: to the end
        ("Intro", 12, 19),  # its subsection included, up to the next level-2 heading
        ("Same", 16, 19),  # of two, the first
        ("Setup#Same", 22, 29),  # nested, as a link writes it: the second
        ("#Setup#Same#Deeper", 26, 29),
        ("setup", 20, 29),  # matched as links match headings
        ("End", 30, 30),  # the last line of the file
    ],
)
def test_a_section_is_exactly_its_lines(
    vault: Path, capsys: pytest.CaptureFixture[str], heading: str, start: int, end: int
) -> None:
    data = read(capsys, vault, "alpha", "--heading", heading)
    assert (data["start_line"], data["end_line"]) == (start, end)
    assert data["text"] == lines(start, end)
    assert data["heading"] == LINES[start - 1].lstrip("#").strip()
    assert data["line_count"] == 30 and len(data["headings"]) == 7  # the whole note's


def test_a_heading_is_found_as_the_answer_lists_it_markup_and_hashes_too(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reader passes back a heading's text from `headings`; one holding a link with a `#` in
    its URL (as web clippers write them) or a `#` of its own is still found by it."""
    text = (
        "# Clip\n\n## [#](https://example.org/page#why) Why keep notes\n\nbecause\n\n"
        "## C# notes\n\nlanguage\n"
    )
    (vault / "clip.md").write_text(text, encoding="utf-8")
    listed = read(capsys, vault, "clip.md")["headings"]
    for heading in listed[1:]:
        data = read(capsys, vault, "clip.md", "--heading", heading["text"])
        assert data["start_line"] == heading["line"]
        assert data["text"].splitlines()[0] == "## " + heading["text"]
    assert (
        read(capsys, vault, "clip.md", "--heading", "C# notes")["text"] == "## C# notes\n\nlanguage"
    )


def test_lines_alone_and_inside_a_section(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for args, (start, end) in [
        (("--start-line", "10", "--end-line", "14"), (10, 14)),
        (("--start-line", "28"), (28, 30)),
        (("--end-line", "3"), (1, 3)),
        (("--start-line", "30", "--end-line", "30"), (30, 30)),
        (("--heading", "Setup", "--start-line", "24"), (24, 29)),
        (("--heading", "Setup", "--end-line", "22"), (20, 22)),
    ]:
        data = read(capsys, vault, "alpha", *args)
        assert (data["start_line"], data["end_line"], data["text"]) == (
            start,
            end,
            lines(start, end),
        ), args


def test_the_links_of_the_lines_read_and_where_they_go(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    intro = read(capsys, vault, "alpha", "--heading", "Intro")["links"]
    assert intro == [
        {"line": 14, "target": "b", "anchor": "Bananas", "status": "resolved", "paths": ["b.md"]},
        {"line": 14, "target": "missing", "anchor": None, "status": "unresolved", "paths": []},
        {"line": 18, "target": "dup", "anchor": None, "status": "ambiguous", "paths": ["x/dup.md"]},
    ]
    whole = read(capsys, vault, "alpha")["links"]
    assert [link["line"] for link in whole] == [10, 14, 14, 18]
    assert read(capsys, vault, "alpha", "--heading", "Setup")["links"] == []
    assert read(capsys, vault, "alpha", "--start-line", "18", "--end-line", "18")["links"] == [
        intro[2]
    ]


def test_frontmatter_that_is_not_valid_yaml_is_none(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = read(capsys, vault, "bad")
    assert data["frontmatter"] == {} and data["text"] == NOTES["bad.md"].removesuffix("\n")


def test_a_file_of_records_is_read_as_its_lines(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = read(capsys, vault, "log.jsonl")
    assert (data["title"], data["text"], data["line_count"]) == ("log", '{"a": 1}\n{"b": 2}', 2)
    assert data["headings"] == data["links"] == [] and data["frontmatter"] == {}


def test_a_budget_cuts_whole_lines_and_says_where_to_read_on(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Reading on from the start_line the message gives, again and again, reads every line once."""
    for selection, first, last in [((), 1, 30), (("--heading", "Setup"), 20, 29)]:
        texts = []
        start = first
        while True:
            data = read(capsys, vault, "alpha", *selection, "--start-line", str(start),
                        "--budget-tokens", "3")  # fmt: skip
            texts.append(data["text"])
            assert data["start_line"] == start
            if data["cut"] is None:
                assert data["end_line"] == last
                break
            assert data["end_line"] < last
            resume = data["end_line"] + 1
            assert data["cut"] == (
                f"lines {resume}-{last} left out to stay within 3 tokens (budget_tokens); "
                f"read on with start_line={resume}"
            )
            found = re.search(r"start_line=(\d+)", data["cut"])
            assert found is not None and int(found[1]) == resume
            start = resume
        assert "\n".join(texts) == lines(first, last)
        assert len(texts) > 2
    # A line longer than the budget is still given, alone.
    one = read(capsys, vault, "alpha", "--start-line", "14", "--budget-tokens", "1")
    assert (one["text"], one["end_line"]) == (LINES[13], 14)
    code, out, _ = run(capsys, "read", vault, "alpha", "--start-line", "14", "--budget-tokens",
                       "1", "--cache-dir", vault.parent / "c")  # fmt: skip
    assert code == 0 and out == f"{LINES[13]}\n\n(cut: {one['cut']})\n"


def test_an_open_buffer_is_read_and_a_file_gone_since_is_said(vault: Path, tmp_path: Path) -> None:
    """The language server answers from its snapshot: an unsaved buffer wins over the disk, and
    a note deleted after the snapshot was taken is not read from anywhere else."""
    engine = open_indexed(vault, tmp_path / "engine-cache")
    try:
        engine.apply_text("b.md", "# Bananas\n\nEdited [[dup]].\n")
        snapshot = engine.read()
        args = command_parser().parse_args(["read", str(vault), "b", "--json"])
        out = io.StringIO()
        print_answer(snapshot, args, call_of(args), out)
        data = json.loads(out.getvalue())
        assert data["text"] == "# Bananas\n\nEdited [[dup]]."
        assert [link["target"] for link in data["links"]] == ["dup"]
        (vault / "plain.md").unlink()
        args = command_parser().parse_args(["read", str(vault), "plain"])
        with pytest.raises(UsageError) as refused:
            print_answer(snapshot, args, call_of(args), out)
    finally:
        engine.close()
    assert str(refused.value) == (
        "plain.md cannot be read now: it was moved or deleted since it was indexed"
    )


def test_what_drives_a_terminal_is_escaped_in_text_only(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "ctl.md", "# Ctl\n\nbell \x07 and \x1b[2J\ttab\n")
    code, out, _ = run(capsys, "read", vault, "ctl", "--cache-dir", vault.parent / "c")
    assert code == 0 and out == "# Ctl\n\nbell \\x07 and \\x1b[2J\ttab\n"
    assert read(capsys, vault, "ctl")["text"] == "# Ctl\n\nbell \x07 and \x1b[2J\ttab"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nosuch",), "no note 'nosuch' in {vault}"),
        (("leak",), "no note 'leak' in {vault}"),  # a symlink to a file outside the vault
        (("leak.md",), "no note 'leak.md' in {vault}"),
        (("drawing.canvas",), "no note 'drawing.canvas' in {vault}"),  # a file, not a note
        (("../secret.md",), "'../secret.md' is outside the vault: {outside}"),
        (("notes/../b.md",), "'notes/../b.md' is outside the vault: {outside}"),
        (("{vault}/b.md",), "'{vault}/b.md' is outside the vault: {outside}"),
        (("C:\\notes\\b.md",), "'C:\\\\notes\\\\b.md' is outside the vault: {outside}"),
        (
            ("alpha", "--heading", "Nope"),
            "no heading 'Nope' in notes/alpha.md; its headings: Alpha, Intro, Same, Setup, "
            "Deeper, End",
        ),
        (("alpha", "--heading", "Same#Deeper"), "no heading 'Same#Deeper' in notes/alpha.md"),
        (("plain", "--heading", "X"), "no heading 'X' in plain.md, which has no headings"),
        (
            ("many", "--heading", "H30"),
            "no heading 'H30' in many.md; its headings: "
            + ", ".join(f"H{n}" for n in range(1, 21))
            + ", ... (25 in all)",
        ),
        (
            ("alpha", "--start-line", "500"),
            "--start-line 500 is past the end of notes/alpha.md (30 lines)",
        ),
        (
            ("alpha", "--end-line", "31"),
            "--end-line 31 is past the end of notes/alpha.md (30 lines)",
        ),
        (("plain", "--start-line", "2"), "--start-line 2 is past the end of plain.md (1 line)"),
        (("alpha", "--start-line", "0"), "--start-line must be at least 1, not 0"),
        (("alpha", "--start-line", "9", "--end-line", "8"), "--start-line 9 is after --end-line 8"),
        (
            ("alpha", "--heading", "Setup", "--start-line", "12"),
            "--start-line 12 is outside the section 'Setup' of notes/alpha.md (lines 20-29)",
        ),
        (
            ("alpha", "--heading", "Setup", "--end-line", "30"),
            "--end-line 30 is outside the section 'Setup' of notes/alpha.md (lines 20-29)",
        ),
        (("alpha", "--budget-tokens", "0"), "--budget-tokens must be at least 1, not 0"),
    ],
)
def test_every_mistake_is_one_sentence_and_status_2(
    vault: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    given = [arg.format(vault=vault) for arg in args]
    code, out, err = run(capsys, "read", vault, *given, "--cache-dir", vault.parent / "c")
    outside = "give a vault-relative path or a note name"
    expected = message.format(vault=vault, outside=outside)
    assert (code, out) == (2, "")
    assert err.startswith(f"memlsp: {expected}") and err.count("\n") == 1, err
    assert "not for the vault" not in out + err


# -- recent -----------------------------------------------------------------------------------

NOW = 1_800_000_000 * 10**9  # 2027-01-15T08:00:00Z
HOUR = NS_PER_DAY // 24


def test_recent_changes_newest_first_within_the_window() -> None:
    modified = [
        ("old.md", NOW - 8 * NS_PER_DAY),
        ("edge.md", NOW - 7 * NS_PER_DAY),  # on the window's start: in
        ("b.md", NOW - HOUR),
        ("a.md", NOW - HOUR),  # a tie: by path
        ("open.md", None),  # an unsaved buffer changes now
        ("c.md", NOW - 2 * NS_PER_DAY),
    ]
    answer = recent_changes(modified, now_ns=NOW, days=7, limit=3)
    assert answer.changes == (
        Change("open.md", NOW, unsaved=True),
        Change("a.md", NOW - HOUR),
        Change("b.md", NOW - HOUR),
    )
    assert (answer.since_ns, answer.more, answer.days) == (NOW - 7 * NS_PER_DAY, 2, 7)
    wider = recent_changes(modified, now_ns=NOW, days=7, limit=10)
    assert [c.path for c in wider.changes] == ["open.md", "a.md", "b.md", "c.md", "edge.md"]
    assert wider.more == 0
    half = recent_changes(modified, now_ns=NOW, days=0.5, limit=10)
    assert [c.path for c in half.changes] == ["open.md", "a.md", "b.md"]
    # A window reaching before 1970 starts there.
    assert recent_changes([], now_ns=NOW, days=1e9, limit=1).since_ns == 0


@pytest.fixture
def dated(tmp_path: Path) -> tuple[Path, int]:
    """A vault whose notes changed 1 h, 2 days (two of them), 3 days and 10 days before now."""
    root = write_notes(
        tmp_path / "dated",
        {
            ".memlsp.toml": 'embedder = "none"\n',
            "a.md": "# Apples\n\nRed and round.\n",
            "b.md": "# Bananas\n",
            "x/dup.md": "# Dup\n",
            "y/dup.md": "# Dup\n",
            "old.md": "# Old\n",
        },
    )
    now = time.time_ns()
    ago = {"a.md": HOUR, "b.md": 3 * NS_PER_DAY, "x/dup.md": 2 * NS_PER_DAY}
    ago |= {"y/dup.md": 2 * NS_PER_DAY, "old.md": 10 * NS_PER_DAY}
    for path, before in ago.items():
        when = (now - before) // 10**9 * 10**9  # whole seconds: every file system keeps them
        os.utime(root / path, ns=(when, when))
    return root, now


def _utc(ns: int) -> str:
    return dt.datetime.fromtimestamp(ns // 10**9, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_recent_lists_the_notes_changed_lately(
    dated: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = dated
    cache = root.parent / "c"
    code, out, _ = run(capsys, "recent", root, "--json", "--limit", "3", "--cache-dir", cache)
    data = json.loads(out)
    assert code == 0 and data["days"] == 7.0 and data["more"] == 1
    assert [note["path"] for note in data["notes"]] == ["a.md", "x/dup.md", "y/dup.md"]
    first = data["notes"][0]
    mtime = (root / "a.md").stat().st_mtime_ns
    assert first == {
        "path": "a.md",
        "title": "Apples",
        "modified": _utc(mtime),
        "unsaved": False,
        "description": "Red and round.",
        "recall_count": 0,
        "last_recalled_at": None,
    }
    since = dt.datetime.strptime(data["since"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    assert abs(time.time() - 7 * 86_400 - since.timestamp()) < 60
    code, out, _ = run(capsys, "recent", root, "--days", "2.5", "--cache-dir", cache)
    local = dt.datetime.fromtimestamp(mtime / 1e9).strftime("%Y-%m-%d %H:%M")
    assert code == 0 and out.splitlines() == [
        f"{local}  a.md  Apples",
        *(f"{_local(root / p)}  {p}  Dup" for p in ("x/dup.md", "y/dup.md")),
    ]
    code, out, _ = run(capsys, "recent", root, "--limit", "1", "--cache-dir", cache)
    assert out.splitlines() == [f"{local}  a.md  Apples", "3 more"]
    code, out, _ = run(capsys, "recent", root, "--days", "0.01", "--cache-dir", cache)
    assert out == "no notes changed in the last 0.01 days\n"


def _local(path: Path) -> str:
    return dt.datetime.fromtimestamp(path.stat().st_mtime_ns / 1e9).strftime("%Y-%m-%d %H:%M")


def test_an_unsaved_buffer_changed_now_and_a_saved_one_when_its_file_did(
    dated: tuple[Path, int], tmp_path: Path
) -> None:
    root, _ = dated
    engine = open_indexed(root, tmp_path / "engine-cache")
    try:
        engine.apply_text("old.md", "# Old\n")  # open in an editor, as it is on disk
        engine.apply_text("b.md", "# Bananas\n\nEdited, not saved.\n")
        engine.apply_text("new.md", "# New\n")  # never saved
        args = command_parser().parse_args(["recent", str(root), "--days", "5", "--json"])
        out = io.StringIO()
        print_answer(engine.read(), args, call_of(args), out)
    finally:
        engine.close()
    notes = json.loads(out.getvalue())["notes"]
    assert [(n["path"], n["unsaved"]) for n in notes] == [
        ("b.md", True),
        ("new.md", True),
        ("a.md", False),
        ("x/dup.md", False),
        ("y/dup.md", False),
    ]
    assert notes[0]["modified"] == notes[1]["modified"] >= _utc(time.time_ns() - 60 * 10**9)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--days", "0"), "--days must be a number of days above 0, not 0"),
        (("--days", "-1"), "--days must be a number of days above 0, not -1"),
        (("--days", "nan"), "--days must be a number of days above 0, not nan"),
        (("--days", "inf"), "--days must be a number of days above 0, not inf"),
        (("--days", "1e300"), "--days must be at most 1,000,000, not 1e+300"),
        (("--limit", "0"), "--limit must be from 1 to 100,000, not 0"),
        (("--limit", str(10**20)), f"--limit must be from 1 to 100,000, not {10**20}"),
    ],
)
def test_recent_refuses_a_window_or_limit_of_nothing(
    vault: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, "recent", vault, *args, "--cache-dir", vault.parent / "c")
    assert (code, out, err) == (2, "", f"memlsp: {message}\n")


def test_both_are_asked_of_a_running_server_and_answered_there() -> None:
    # `status` is answered from the live vault itself, not from a snapshot (LIVE_ANSWERED).
    assert set(ASKED) == set(ANSWERED) | set(LIVE_ANSWERED) and set(ANSWERED) >= {"read", "recent"}
    parser = command_parser()
    for command in ("read", "recent"):
        argv = [command, "v", *(["n"] if command == "read" else []), "--no-daemon"]
        assert parser.parse_args(argv).no_daemon


# -- through the vault's socket ---------------------------------------------------------------


@contextlib.contextmanager
def serving(root: Path, cache: Path) -> Iterator[Path]:
    """`memlsp serve` for the vault, once it answers on its socket; its log file."""
    folder = cache_dir_for(root, Settings(cache_dir=cache))
    path = daemon.socket_path(folder)
    assert path is not None
    env = {name: value for name, value in os.environ.items() if name != "MEMLSP_NO_DAEMON"}
    process = subprocess.Popen(
        [sys.executable, "-m", "memlsp", "serve", str(root), "--cache-dir", str(cache),
         "--idle", "120", "--embedder", "none"],
        env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not _answers(path):
            assert process.poll() is None and time.monotonic() < deadline, "memlsp serve failed"
            time.sleep(0.05)
        yield folder / daemon.LOG_FILE
    finally:
        process.terminate()
        process.wait(timeout=30)


def _answers(path: Path) -> bool:
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as probe:
        probe.connect(str(path))
        return True
    return False


@pytest.mark.e2e
@pytest.mark.skipif(not daemon.supported(), reason="no Unix domain sockets")
def test_the_socket_answers_as_the_command_does_by_itself(vault: Path, tmp_path: Path) -> None:
    cache = tmp_path / "served"
    common = ("--cache-dir", cache, "--embedder", "none")
    with serving(vault, cache) as log:
        for args in [
            ("read", vault, "alpha", "--json"),
            ("read", vault, "alpha", "--heading", "Setup#Same"),
            ("read", vault, "alpha", "--start-line", "10", "--budget-tokens", "5", "--json"),
            ("read", vault, "alpha", "--heading", "Nope"),
            ("read", vault, "../secret.md"),
            ("recent", vault, "--json"),
            ("recent", vault, "--days", "0", "--json"),
        ]:
            before = log.read_text(encoding="utf-8").count(" answered in ")
            asked, alone = memlsp(*args, *common), memlsp(*args, *common, "--no-daemon")
            answered = log.read_text(encoding="utf-8").count(" answered in ")
            assert answered == before + 1, args
            assert asked.returncode == alone.returncode, (args, asked.stderr, alone.stderr)
            assert alone.stderr.endswith(asked.stderr), args  # by itself: also says who writes
            if args[0] == "recent" and asked.returncode == 0:
                asked_notes, alone_notes = (json.loads(r.stdout)["notes"] for r in (asked, alone))
                assert asked_notes == alone_notes and asked_notes
            else:
                assert asked.stdout == alone.stdout, args
        # A note written just before the command is read from the disk as it is.
        write(vault, "fresh.md", "# Fresh\n\nJust written.\n")
        fresh = memlsp("read", vault, "fresh", *common)
        assert fresh.returncode == 0 and fresh.stdout == "# Fresh\n\nJust written.\n"
