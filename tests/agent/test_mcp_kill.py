"""`memlsp mcp --allow-writes` killed (SIGKILL) in the middle of a write, at moments spread over
the call and the moment its temporary file exists: the note on disk is exactly its old bytes or
exactly its new ones, never a part; a temporary file left behind is never a note on the next start
(its words are not found), and the next write in its folder removes it once it is stale."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from memlsp.agent.writing import STALE_SECONDS, TEMPORARY_PREFIX
from tests.agent.test_mcp import FIXTURE
from tests.helpers.mcp_stdio import START_SECONDS, McpProcess

pytestmark = pytest.mark.e2e

BIG = "inbox/big.md"
# Seconds from sending a write to killing its server. An append or a replacement of a 5 MiB note
# takes ~3 s on two shared cores (the note read whole, written beside itself, renamed, indexed);
# a create of 1 MiB well under one. None: wait for the answer.
DELAYS: dict[str, tuple[float | None, ...]] = {
    "append": (0.0, 0.4, 0.9, 1.4, 2.2, None),
    "replace_section": (0.0, 0.4, 0.9, 1.4, 2.2, None),
    "create": (0.0, 0.05, 0.15, 0.4, None),
}
WATCHED = 3  # more writes each, killed the moment their temporary file shows


def big_note() -> str:
    log = "".join(f"line {n} of a long log: alpha beta gamma delta {n}\n" for n in range(90_000))
    return f"# Big\n\n## Log\n\n{log}\n## Tail\n\ntail words\n"


def marker(attempt: int) -> str:
    """A word only attempt `attempt`'s content holds (letters only: one term to the index)."""
    return "qx" + "".join(chr(ord("a") + int(digit)) for digit in f"{attempt:03}") + "marker"


@dataclass(frozen=True)
class Write:
    path: str
    arguments: dict[str, str]
    new: Callable[[bytes | None], bytes]  # the note's bytes once written, from its old ones


def write_for(mode: str, attempt: int) -> Write:
    words = f"{marker(attempt)} " + "a sentence an agent wrote down. " * 3
    if mode == "create":
        content = "# Created\n\n" + f"{words}\n" * 9_000  # ~1 MB, under the write limit
        path = f"inbox/created-{attempt}.md"
        return Write(path, {"path": path, "content": content}, lambda _: content.encode())
    content = f"{words}\n" * 8_000  # ~1 MiB, under the write limit
    if mode == "append":
        arguments = {"path": BIG, "content": content, "mode": "append"}
        return Write(BIG, arguments, lambda old: (old or b"") + content.encode())

    def replaced(old: bytes | None) -> bytes:
        assert old is not None
        heading = b"\n## Tail\n"
        return old[: old.index(heading) + len(heading)] + content.encode()

    arguments = {"path": BIG, "content": content, "mode": "replace_section", "heading": "Tail"}
    return Write(BIG, arguments, replaced)


def temporaries(vault: Path) -> set[Path]:
    return {path for path in vault.rglob(f"{TEMPORARY_PREFIX}*")}


def kill_when_a_temporary_shows(server: McpProcess, folder: Path, seconds: float) -> bool:
    """Kill the server the moment a new temporary file is in `folder` (looked for in a tight
    loop); whether one showed before the write ended or `seconds` passed."""
    known = {name for name in os.listdir(folder) if name.startswith(TEMPORARY_PREFIX)}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and server.process.poll() is None:
        if any(n.startswith(TEMPORARY_PREFIX) and n not in known for n in os.listdir(folder)):
            server.kill()
            return True
    return False


@pytest.mark.parametrize("mode", list(DELAYS))
def test_a_write_killed_at_any_moment_leaves_the_old_bytes_or_the_new(
    tmp_path: Path, mode: str
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE, vault)
    (vault / BIG).write_text(big_note(), encoding="utf-8")
    cache = tmp_path / "cache"
    unwritten: list[int] = []  # attempts whose note was left as it was: their words are nowhere
    caught = 0
    plan = [("delay", delay) for delay in DELAYS[mode]] + [("watch", None)] * WATCHED
    for attempt, (how, delay) in enumerate(plan):
        write = write_for(mode, attempt)
        note = vault / write.path
        old = note.read_bytes() if note.exists() else None
        server = McpProcess(vault, cache, "--allow-writes")
        try:
            ready = server.call("read", {"path": "search/bm25.md"}, timeout=START_SECONDS)
            assert not ready.get("isError"), ready
            asked = server.ask("tools/call", {"name": "write", "arguments": write.arguments})
            if how == "watch":
                caught += kill_when_a_temporary_shows(server, note.parent, seconds=60)
            elif delay is None:
                answer = server.answer(asked, timeout=START_SECONDS)["result"]
                assert not answer.get("isError"), answer
            else:
                time.sleep(delay)
            server.kill()  # (a no-op when killed already)
        finally:
            server.close()
        now = note.read_bytes() if note.exists() else None
        assert now in (old, write.new(old)), (
            f"{mode} killed after {delay if how == 'delay' else 'its temporary showed'}: "
            f"{len(now or b''):,} bytes on disk, neither the old {len(old or b''):,} nor the new"
        )
        if now == old:
            unwritten.append(attempt)
        if delay is None and how == "delay":
            assert now == write.new(old)
    assert unwritten, "no kill came before a write ended: the delays need to be shorter"
    assert caught, f"none of {WATCHED} kills came while a temporary file was being written"

    # The next start: no temporary file is a note; its words, written only there, are not found.
    server = McpProcess(vault, cache, "--allow-writes")
    try:
        for attempt in unwritten:
            missing = server.call("search", {"query": marker(attempt)}, timeout=START_SECONDS)
            assert missing.get("isError"), missing["content"][0]["text"][:300]
            assert "nothing found" in missing["content"][0]["text"]
        left = temporaries(vault)
        for temporary in left:
            path = temporary.relative_to(vault).as_posix()
            refused = server.call("read", {"path": path})
            assert refused.get("isError") and "no note" in refused["content"][0]["text"]
        recent = server.call("recent", {"days": 1, "limit": 200})
        assert TEMPORARY_PREFIX not in recent["content"][0]["text"]
        # Once stale, a write in their folder removes them (a fresh one may be another write's).
        for temporary in left:
            stale = time.time() - STALE_SECONDS - 60
            os.utime(temporary, (stale, stale))
        after = server.call("write", {"path": "inbox/after-the-kills.md", "content": "calm\n"})
        assert not after.get("isError"), after
        assert temporaries(vault) == set()
    finally:
        server.close()
    notes = {p.relative_to(vault).as_posix() for p in vault.rglob("*") if p.is_file()}
    assert {n for n in notes if TEMPORARY_PREFIX in n} == set()
