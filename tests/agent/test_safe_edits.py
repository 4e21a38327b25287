"""The `write` tool's safe edits: mode 'edit' (a text found exactly once, replaced), `dry_run` (the
diff, nothing written) and `expected_hash` (refused when the note changed since it was read, an
editor's unsaved buffer included), over the `mcp` SDK in process, over stdio, and through a
language server's vault that holds the buffer."""

from __future__ import annotations

import hashlib
import itertools
import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from memlsp import daemon
from memlsp.agent.source import VaultSource
from memlsp.agent.tools import Memory, ToolFailed
from memlsp.agent.writing import Edit, WriteRefused, edited, unified_diff
from memlsp.cli import main
from memlsp.daemon.host import SocketHost
from memlsp.live.vault import LiveVault
from memlsp.text import text_hash
from tests.agent.test_mcp import FIXTURE, agent, call, refused, settings_for
from tests.helpers.mcp_stdio import McpProcess
from tests.vault.test_real_vaults import VAULTS

PLAN = "# Plan\n\n## Now\n\nold step\n\n## Later\n\nsomeday, old step again\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(FIXTURE, root)
    (root / "inbox" / "plan.md").write_text(PLAN)
    return root.resolve()


def state(path: Path) -> tuple[bytes, int] | None:
    """A file's bytes and modification time; None when there is none."""
    return (path.read_bytes(), path.stat().st_mtime_ns) if path.exists() else None


def temporaries(root: Path) -> list[Path]:
    return [path for path in root.rglob(".memlsp-*") if "cache" not in path.parts]


# -- edit ----------------------------------------------------------------------------------------


async def test_edit_replaces_a_text_found_once_and_refuses_one_found_0_or_2_times(
    vault: Path, tmp_path: Path
) -> None:
    note = vault / "inbox" / "plan.md"
    async with agent(vault, settings_for(tmp_path / "cache"), allow_writes=True) as client:
        for old_text, times in [("old step", 2), ("new step", 0), ("Plan\n\n## Later", 0)]:
            why = await refused(
                client, "write", path="inbox/plan.md", mode="edit", old_text=old_text,
                new_text="x",
            )  # fmt: skip
            assert why.startswith(f"'old_text' occurs {times} times in inbox/plan.md; ")
        assert note.read_text() == PLAN
        edit = {"path": "inbox/plan.md", "mode": "edit", "new_text": "first step"}
        written = await call(client, "write", **edit, old_text="old step\n\n## Later")
        assert note.read_text() == PLAN.replace("old step\n\n## Later", "first step")
        read = await call(client, "read", path="inbox/plan.md")
        assert written["hash"] == read["hash"] == text_hash(note.read_text())
        found = await call(client, "search", query="first step", mode="keyword")
        assert found["results"][0]["path"] == "inbox/plan.md"


def test_an_overlapping_text_counts_each_place_it_starts() -> None:
    with pytest.raises(WriteRefused, match=r"'old_text' occurs 2 times in n\.md"):
        edited("n.md", "aaa", Edit("aa", "b"))
    with pytest.raises(WriteRefused, match="'old_text' is empty"):
        edited("n.md", "aaa", Edit("", "b"))
    assert edited("n.md", "aaab", Edit("aab", "")) == "a"


@pytest.mark.parametrize(
    ("old", "old_text", "new_text", "new"),
    [
        # read gives lines joined by "\n": they match CRLF, and the new lines are written CRLF.
        (
            "\ufeff# T\r\n\r\none\r\ntwo\r\n",
            "one\ntwo",
            "1\n2\n3",
            "\ufeff# T\r\n\r\n1\r\n2\r\n3\r\n",
        ),
        ("# T\n\none\ntwo", "two", "2\r\n", "# T\n\none\n2\n"),  # LF stays LF; no end added
        ("a\r\nb\nc\n", "b\nc", "B\nC", "a\r\nB\nC\n"),  # mixed: the replaced text's own break
        ("x \udcff y\n", "y", "z", "x \udcff z\n"),  # a byte that is not UTF-8 stays as it was
    ],
)
def test_edit_keeps_every_other_byte(old: str, old_text: str, new_text: str, new: str) -> None:
    assert edited("n.md", old, Edit(old_text, new_text)) == new


async def test_a_crlf_note_with_a_bom_keeps_both_when_edited_and_appended(
    vault: Path, tmp_path: Path
) -> None:
    note = vault / "inbox" / "windows.md"
    note.write_bytes(b"\xef\xbb\xbf# Windows\r\n\r\nline one\r\nline two\r\n")
    async with agent(vault, settings_for(tmp_path / "cache"), allow_writes=True) as client:
        read = await call(client, "read", path="inbox/windows.md")
        assert read["text"] == "# Windows\n\nline one\nline two"  # no BOM, no CR, as read gives
        assert read["hash"] == text_hash("# Windows\r\n\r\nline one\r\nline two\r\n")
        await call(
            client, "write", path="inbox/windows.md", mode="edit", old_text="one\nline two",
            new_text="1\nline 2", expected_hash=read["hash"],
        )  # fmt: skip
        await call(client, "write", path="inbox/windows.md", mode="append", content="three\r\n")
    assert note.read_bytes() == b"\xef\xbb\xbf# Windows\r\n\r\nline 1\r\nline 2\r\nthree\r\n"


@pytest.mark.parametrize("ending", ["\n\n", "\r\n\r\n", "", "\n"])
async def test_a_note_ending_in_a_blank_line_is_not_taken_for_unsaved_changes(
    vault: Path, tmp_path: Path, ending: str
) -> None:
    """`read` gives its text without the last newline; the file as read is compared the same way
    (compared line by line, it held one blank line more and every write was refused)."""
    note = vault / "inbox" / "blank.md"
    note.write_bytes(f"# Blank{ending}".encode())
    async with agent(vault, settings_for(tmp_path / "cache"), allow_writes=True) as client:
        await call(client, "write", path="inbox/blank.md", mode="edit", old_text="Blank",
                   new_text="Full")  # fmt: skip
        await call(client, "write", path="inbox/blank.md", mode="append", content="more\n")
    assert note.read_bytes() == f"# Full{ending or chr(10)}more\n".encode()


def test_read_json_says_the_hash_of_the_whole_note(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["read", str(vault), "inbox/plan.md", "--start-line", "3", "--end-line", "3"]
    assert main([*args, "--json", "--no-daemon", "--cache-dir", str(tmp_path / "c")]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["text"] == "## Now"
    assert answer["hash"] == hashlib.sha256(PLAN.encode()).hexdigest()


# -- dry_run -------------------------------------------------------------------------------------


async def test_a_dry_run_of_each_mode_shows_the_diff_and_writes_nothing(
    vault: Path, tmp_path: Path
) -> None:
    note, new = vault / "inbox" / "plan.md", vault / "drafts" / "idea.md"
    runs: list[dict[str, Any]] = [
        {"path": "drafts/idea.md", "content": "# Idea\n"},
        {"path": "inbox/plan.md", "mode": "append", "content": "- more"},
        {"path": "inbox/plan.md", "mode": "replace_section", "heading": "Now", "content": "next"},
        {"path": "inbox/plan.md", "mode": "edit", "old_text": "someday", "new_text": "sometime"},
    ]
    diffs = [
        "@@ -0,0 +1 @@\n+# Idea\n",
        "@@ -7,3 +7,4 @@\n ## Later\n \n someday, old step again\n+- more\n"
        "\\ No newline at end of file\n",
        "@@ -1,9 +1,7 @@\n # Plan\n \n ## Now\n-\n-old step\n-\n+next\n ## Later\n \n"
        " someday, old step again\n",
        "@@ -6,4 +6,4 @@\n \n ## Later\n \n-someday, old step again\n+sometime, old step again\n",
    ]
    async with agent(vault, settings_for(tmp_path / "cache"), allow_writes=True) as client:
        before = state(note)
        for run, diff in zip(runs, diffs, strict=True):
            answer = await call(client, "write", **run, dry_run=True)
            assert {k: v for k, v in answer.items() if k not in ("diff", "hash")} == {
                "path": run["path"], "mode": run.get("mode", "create"), "dry_run": True,
            }  # fmt: skip
            assert answer["diff"] == f"--- a/{run['path']}\n+++ b/{run['path']}\n{diff}"
            assert state(note) == before and not new.exists() and not new.parent.exists()
            assert temporaries(vault) == []
        # The hash a dry run gives is the one the write gives, and read after it.
        shown = await call(client, "write", **runs[3], dry_run=True)
        written = await call(client, "write", **runs[3])
        read = await call(client, "read", path="inbox/plan.md")
        assert shown["hash"] == written["hash"] == read["hash"] != text_hash(PLAN)
        assert "dry_run" not in written and written["bytes"] == note.stat().st_size


async def test_a_dry_run_is_refused_while_writing_is_off(vault: Path, tmp_path: Path) -> None:
    source = VaultSource(vault, settings_for(tmp_path / "cache"))
    try:
        memory = Memory(source, allow_writes=False)
        with pytest.raises(ToolFailed, match="--allow-writes"):
            memory.write("inbox/plan.md", "x", "append", None, dry_run=True)
    finally:
        source.close()


def test_a_diff_marks_a_last_line_without_a_newline_as_git_does() -> None:
    assert unified_diff("n.md", "a\nb", "a\nb") == ""
    assert unified_diff("n.md", "a\nb", "a\nb\n") == (
        "--- a/n.md\n+++ b/n.md\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
    )


# -- expected_hash -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "run",
    [
        {"mode": "append", "content": "- more"},
        {"mode": "replace_section", "heading": "Now", "content": "next"},
        {"mode": "edit", "old_text": "someday", "new_text": "sometime"},
        {"mode": "create", "content": "again"},
    ],
    ids=lambda run: run["mode"],
)
async def test_a_stale_expected_hash_is_refused_in_every_mode(
    vault: Path, tmp_path: Path, run: dict[str, Any]
) -> None:
    note = vault / "inbox" / "plan.md"
    async with agent(vault, settings_for(tmp_path / "cache"), allow_writes=True) as client:
        read = await call(client, "read", path="inbox/plan.md", heading="Later")
        assert read["hash"] == text_hash(PLAN)  # of the whole note, whatever part was read
        note.write_text(PLAN + "changed by someone else\n")
        for dry_run in (True, False):
            why = await refused(
                client, "write", path="inbox/plan.md", **run, expected_hash=read["hash"],
                dry_run=dry_run,
            )  # fmt: skip
            assert why == (
                "inbox/plan.md changed since you read it (an editor's unsaved changes count): "
                "read it again, then write with its new 'expected_hash'"
            )
        assert note.read_text() == PLAN + "changed by someone else\n"
        again = await call(client, "read", path="inbox/plan.md")
        if run["mode"] == "create":  # the note exists: a fresh hash does not make create write
            assert "exists" in await refused(
                client, "write", path="inbox/plan.md", **run, expected_hash=again["hash"]
            )
            why = await refused(
                client, "write", path="inbox/gone.md", **run, expected_hash=again["hash"]
            )
            assert (
                why == "no note inbox/gone.md, which 'expected_hash' says was read: read it again"
            )
            assert not (vault / "inbox" / "gone.md").exists()
        else:
            await call(client, "write", path="inbox/plan.md", **run, expected_hash=again["hash"])
            assert note.read_text() != PLAN + "changed by someone else\n"


@pytest.mark.skipif(not daemon.supported(), reason="no Unix domain sockets")
def test_an_editors_unsaved_buffer_counts_as_a_change(vault: Path, tmp_path: Path) -> None:
    """A language server has the note open and answers the vault's socket: the agent's reads and
    the write's check are of its buffer, not the file."""
    note = vault / "inbox" / "plan.md"
    settings = settings_for(tmp_path / "cache")
    editor = LiveVault(vault, settings, watch=False)
    editor.start()
    host = SocketHost()
    source = VaultSource(vault, settings)
    try:
        assert editor.wait_ready(60) and editor.engine is not None
        host.answer(editor)
        socket = daemon.socket_path(editor.engine.cache_dir)
        assert socket is not None and daemon.answers(socket)
        memory = Memory(source, allow_writes=True)
        before = memory.read("inbox/plan.md", None, None, None, None)["hash"]
        typed = PLAN.replace("someday", "tomorrow")
        editor.buffer_changed("inbox/plan.md", typed)  # typed, not saved
        assert applied(editor, "inbox/plan.md", typed)
        old, new = "old step\n\n##", "step\n\n##"
        with pytest.raises(ToolFailed, match="changed since you read it"):
            memory.write(
                "inbox/plan.md",
                None,
                "edit",
                None,
                old_text=old,
                new_text=new,
                expected_hash=before,
            )
        now = memory.read("inbox/plan.md", None, None, None, None)
        assert now["hash"] == text_hash(typed) != before and "tomorrow" in now["text"]
        with pytest.raises(ToolFailed, match="unsaved changes in an editor"):
            memory.write(
                "inbox/plan.md", None, "edit", None, old_text=old, new_text=new,
                expected_hash=now["hash"],
            )  # fmt: skip
        assert note.read_text() == PLAN
        assert source._own is None  # answered by the editor's process, not one of its own
    finally:
        source.close()
        host.close()
        editor.stop()


def applied(editor: LiveVault, path: str, text: str) -> bool:
    """Whether the editor's vault reads `text` for `path` within seconds (a buffer is indexed
    once typing pauses, as a language server's is)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        snapshot = editor.read()
        if snapshot is not None and snapshot.read(path) == text:
            return True
        time.sleep(0.02)
    return False


# -- over stdio, as an agent's client starts the server ------------------------------------------


@pytest.mark.e2e
def test_safe_edits_over_stdio(vault: Path, tmp_path: Path) -> None:
    note = vault / "inbox" / "plan.md"
    server = McpProcess(vault, tmp_path / "cache", "--allow-writes")
    try:

        def answer(tool: str, **arguments: Any) -> tuple[bool, str]:
            result = server.call(tool, arguments)
            return bool(result.get("isError")), str(result["content"][0]["text"])

        error, text = answer("read", path="inbox/plan.md")
        assert not error
        read_hash = json.loads(text)["hash"]
        before = state(note)
        edit = {"path": "inbox/plan.md", "mode": "edit", "new_text": "x"}
        assert answer("write", **edit, old_text="old step") == (
            True,
            "'old_text' occurs 2 times in inbox/plan.md; "
            "give more of the text around it so it occurs once",
        )
        error, text = answer("write", **edit, old_text="nowhere")
        assert error and text.startswith("'old_text' occurs 0 times in inbox/plan.md")
        error, text = answer("write", **edit, old_text="someday", dry_run=True)
        assert (
            not error
            and "-someday, old step again\n+x, old step again\n" in json.loads(text)["diff"]
        )
        assert state(note) == before and temporaries(vault) == []
        note.write_text(PLAN + "more\n")
        error, text = answer("write", **edit, old_text="someday", expected_hash=read_hash)
        assert error and text.startswith("inbox/plan.md changed since you read it")
        assert note.read_text() == PLAN + "more\n"
    finally:
        server.close()


# -- a real vault, whose notes end their lines in CRLF or LF -------------------------------------


@pytest.mark.e2e  # a vault this large is parsed by worker processes
@pytest.mark.realdata
def test_edits_on_a_real_vault_keep_every_other_byte(tmp_path: Path) -> None:
    """vaultofknowledge holds notes saved on Windows (CRLF) beside LF ones: on each, `read`'s hash
    is the file's, a dry run of an edit across a line break changes nothing, the edit changes only
    its text, and the edit back (with the hash the first answered) gives the original bytes."""
    source = VAULTS / "vaultofknowledge"
    if not source.is_dir():
        pytest.skip(
            f"real vault vaultofknowledge not found under {VAULTS} (shared test data absent)"
        )
    vault = tmp_path / "vault"  # a copy: the test writes
    shutil.copytree(source, vault, symlinks=True)
    vault = vault.resolve()
    notes = [note for note in sorted(vault.rglob("*.md")) if _plain(vault, note)]
    crlf = [note for note in notes if b"\r\n" in note.read_bytes()][:15]
    lf = [note for note in notes if b"\r" not in note.read_bytes()][:15]
    assert len(crlf) == len(lf) == 15
    memory_source = VaultSource(vault, settings_for(tmp_path / "cache"))
    memory = Memory(memory_source, allow_writes=True)
    edited_notes = []
    try:
        for note in crlf + lf:
            path = note.relative_to(vault).as_posix()
            original = state(note)
            assert original is not None
            read = memory.read(path, None, None, None, None)
            assert read["hash"] == text_hash(original[0].decode("utf-8"))
            old_text = _two_lines_found_once(read["text"])
            if old_text is None:
                continue
            new_text = old_text.replace("\n", " ~edited~\n", 1)
            edit = {"old_text": old_text, "new_text": new_text, "expected_hash": read["hash"]}
            shown = memory.write(path, None, "edit", None, **edit, dry_run=True)
            assert state(note) == original and "~edited~" in shown["diff"]
            written = memory.write(path, None, "edit", None, **edit)
            newline = b"\r\n" if note in crlf else b"\n"
            before, after = (t.encode().replace(b"\n", newline) for t in (old_text, new_text))
            assert note.read_bytes() == original[0].replace(before, after)
            assert written["hash"] == shown["hash"] == text_hash(note.read_bytes().decode())
            back = {"old_text": new_text, "new_text": old_text, "expected_hash": written["hash"]}
            memory.write(path, None, "edit", None, **back)
            assert note.read_bytes() == original[0]
            edited_notes.append(note)
        assert temporaries(vault) == []
    finally:
        memory_source.close()
    assert len(set(edited_notes) & set(crlf)) >= 10 and len(set(edited_notes) & set(lf)) >= 10


def _plain(vault: Path, note: Path) -> bool:
    """A note the vault indexes (in no dot-folder), of UTF-8 text."""
    if any(part.startswith(".") for part in note.relative_to(vault).parts):
        return False
    data = note.read_bytes()
    try:
        return "\0" not in data.decode("utf-8")
    except UnicodeDecodeError:
        return False


def _two_lines_found_once(text: str) -> str | None:
    """Two lines in a row, with words on each, that the note holds once (as `read` gives it)."""
    lines = text.split("\n")
    for first, second in itertools.pairwise(lines):
        pair = f"{first}\n{second}"
        if first.strip() and second.strip() and text.count(pair) == 1 and "\r" not in pair:
            return pair
    return None
