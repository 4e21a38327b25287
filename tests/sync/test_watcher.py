"""The vault watcher against the real file system (inotify through watchfiles)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import platform
import pwd
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import watchfiles

from memlsp.settings.table import Settings
from memlsp.sync import watcher as watcher_module
from memlsp.sync.watcher import VaultWatcher
from tests.helpers.paths import REPO


class Recorder:
    def __init__(self) -> None:
        self.paths: set[str] = set()
        self.rescans = 0
        self.event = threading.Event()

    def changed(self, paths: set[str]) -> None:
        self.paths |= paths
        self.event.set()

    def rescan(self) -> None:
        self.rescans += 1
        self.event.set()

    def wait(self, check: object, again: Callable[[], object] | None = None) -> bool:
        """Up to 10 s, woken by every callback. `again` is redone every second: the watcher
        starts watching a moment after `start()`, later on a loaded machine."""
        for tick in range(100):
            if callable(check) and check():
                return True
            if again is not None and tick % 10 == 9:
                again()
            self.event.wait(0.1)
            self.event.clear()
        return False


def test_reports_notes_skips_dot_folders_and_survives_the_folder_being_replaced(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    seen = Recorder()
    watcher = VaultWatcher(vault, Settings(), seen.changed, on_rescan=seen.rescan)
    watcher.start()
    try:
        (vault / ".obsidian" / "workspace.json").write_text("{}")
        write_a = partial((vault / "a.md").write_text, "# A\n")
        write_a()
        assert seen.wait(lambda: "a.md" in seen.paths, again=write_a)
        assert not any(path.startswith(".obsidian") for path in seen.paths)

        assert seen.wait(lambda: seen.rescans == 1)  # the first, once the watch was up
        shutil.rmtree(vault)  # e.g. a branch switch or a re-clone
        vault.mkdir()
        assert seen.wait(lambda: seen.rescans == 2)
        seen.paths.clear()
        write_b = partial((vault / "b.md").write_text, "# B\n")
        write_b()
        assert seen.wait(lambda: "b.md" in seen.paths, again=write_b)
    finally:
        watcher.stop()


class Warnings(logging.Handler):
    """The watcher's warnings, to check each is given once."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def watching(vault: Path, seen: Recorder) -> Iterator[Warnings]:
    warnings = Warnings()
    logger = logging.getLogger("memlsp.sync.watcher")
    logger.addHandler(warnings)
    watcher = VaultWatcher(vault, Settings(), seen.changed, on_rescan=seen.rescan)
    watcher.start()
    try:
        yield warnings
    finally:
        watcher.stop()
        logger.removeHandler(warnings)


def _write_until_seen(seen: Recorder, vault: Path, path: str) -> bool:
    target = vault / path
    write = partial(target.write_text, f"# {path}\n")
    write()
    return seen.wait(lambda: path in seen.paths, again=write)


def _locked_folder_scenario(base: str) -> dict[str, object]:
    """Runs as a user who cannot read a chmod 000 folder; what the watcher saw and said."""
    vault = Path(base) / "vault"
    for folder in ("a", "locked", "m", "z/deep"):
        (vault / folder).mkdir(parents=True)
    (vault / "locked" / "old.md").write_text("# Old\n")
    (vault / "locked").chmod(0)
    seen = Recorder()
    started = time.monotonic()
    with watching(vault, seen) as warnings:
        # Folders after the unreadable one too: a recursive watch would stop adding there.
        elsewhere = [_write_until_seen(seen, vault, p) for p in ("new.md", "m/n.md", "z/deep/d.md")]
        (vault / "fresh").mkdir()  # a folder made while the locked one is left out
        fresh = _write_until_seen(seen, vault, "fresh/first.md")
        fresh_again = _write_until_seen(seen, vault, "fresh/second.md")
        seen.event.wait(max(0.0, 3.5 - (time.monotonic() - started)))  # 3 watcher seconds
        said_while_locked = list(warnings.messages)
        rescans_before = seen.rescans
        (vault / "locked").chmod(0o755)
        (vault / "locked" / "unlocked.md").write_text("# Unlocked\n")
        unlocked = seen.wait(
            lambda: "locked/unlocked.md" in seen.paths or seen.rescans > rescans_before
        )
        after = _write_until_seen(seen, vault, "z/deep/after.md")
    return {
        "elsewhere": elsewhere,
        "fresh": [fresh, fresh_again],
        "warnings": said_while_locked,
        "unlocked": unlocked,
        "after": after,
    }


def _as_unprivileged(scenario: Callable[[str], dict[str, object]]) -> dict[str, object]:
    """Run `scenario(folder)` as `nobody` (forked, so no interpreter has to be found again) when
    running as root, who reads chmod 000 folders; as this user otherwise."""
    base = tempfile.mkdtemp(prefix="memlsp-watch-")
    try:
        if os.geteuid() != 0:
            return scenario(base)
        nobody = pwd.getpwnam("nobody")
        os.chown(base, nobody.pw_uid, nobody.pw_gid)
        platform.uname()  # watchfiles asks lazily; nobody cannot read the standard library
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            code = 1
            try:
                os.close(read_end)
                os.setgroups([])
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
                os.write(write_end, json.dumps(scenario(base)).encode())
                code = 0
            finally:
                os._exit(code)
        os.close(write_end)
        try:
            output = b""
            deadline = time.monotonic() + 120  # hang guard
            waiting = select.poll()  # not select(): a long test run may hold fds past 1024
            waiting.register(read_end, select.POLLIN)
            while time.monotonic() < deadline:
                if waiting.poll(1000):
                    chunk = os.read(read_end, 65536)
                    if not chunk:
                        break
                    output += chunk
            else:
                os.kill(pid, signal.SIGKILL)
        finally:
            os.close(read_end)
            _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0 and output, "the unprivileged run failed"
        return dict(json.loads(output))
    finally:
        for folder, _, _ in os.walk(base):
            os.chmod(folder, 0o755)
        shutil.rmtree(base, ignore_errors=True)


def _cannot_read_locked_folders() -> bool:
    if os.geteuid() == 0:
        return hasattr(os, "fork") and _has_user("nobody")
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0)
        try:
            return not os.access(folder, os.R_OK)
        finally:
            os.chmod(folder, 0o700)


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


@pytest.mark.e2e  # as root, the scenario runs in a forked child that drops to `nobody`
@pytest.mark.skipif(
    not _cannot_read_locked_folders(),
    reason="this user reads chmod 000 folders and cannot become one who does not",
)
def test_an_unreadable_folder_is_said_once_and_everything_else_is_watched() -> None:
    outcome = _as_unprivileged(_locked_folder_scenario)
    assert outcome["elsewhere"] == [True, True, True]
    assert outcome["fresh"] == [True, True]
    said = outcome["warnings"]
    assert isinstance(said, list)
    [warning] = said
    assert "locked" in warning and "permission denied" in warning
    assert outcome["unlocked"] and outcome["after"]


def test_a_name_that_is_not_utf8_costs_a_rescan_not_the_watch(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    seen = Recorder()
    with watching(vault, seen) as warnings:
        assert _write_until_seen(seen, vault, "probe.md")
        bad = os.path.join(os.fsencode(vault), b"caf\xe9.md")
        for _ in range(2):
            with open(bad, "wb") as handle:  # watchfiles fails the whole batch on this name
                handle.write(b"# Cafe\n")
            (vault / "ok.md").write_text("# Ok\n")
            assert seen.wait(lambda: "ok.md" in seen.paths or seen.rescans > 0)
            seen.paths.discard("ok.md")
            seen.rescans = 0
        assert _write_until_seen(seen, vault, "later.md")
        assert len(warnings.messages) <= 1
        assert not any("caf" in path for path in seen.paths)


def test_a_failure_that_repeats_is_said_once_and_followed_by_a_rescan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    real_watch = watchfiles.watch
    failures = iter(range(4))

    def failing_watch(*args: Any, **kwargs: Any) -> Iterator[set[tuple[watchfiles.Change, str]]]:
        if next(failures, None) is not None:  # as when a subfolder vanishes while being added
            raise FileNotFoundError(f"No such file or directory (os error 2) about [{vault}/x]")
        return real_watch(*args, **kwargs)

    monkeypatch.setattr(watcher_module, "RETRY_FIRST", 0.05)
    monkeypatch.setattr(watchfiles, "watch", failing_watch)
    seen = Recorder()
    with watching(vault, seen) as warnings:
        assert _write_until_seen(seen, vault, "a.md")
        assert seen.wait(lambda: seen.rescans == 1)
        seen.event.wait(1.5)
        assert seen.rescans == 1  # one rescan once watching: after the failures, not one each
    assert len(warnings.messages) == 1 and "No such file" in warnings.messages[0]


def test_a_rescan_follows_as_soon_as_the_vault_is_watched(tmp_path: Path) -> None:
    """The owner's first scan may end before the watch is up: what is written in between is
    found by the rescan the watcher asks for once it watches, with nothing written at all."""
    vault = tmp_path / "vault"
    vault.mkdir()
    seen = Recorder()
    with watching(vault, seen):
        assert seen.wait(lambda: seen.rescans == 1)
        assert seen.paths == set()


def test_a_new_folder_is_watched_afresh_and_what_moved_into_it_is_seen(tmp_path: Path) -> None:
    """`mkdir y && mv w y/q`: the folder moved in before `y` had its watch, and what happens in it
    later, are reported (a rescan, then events from a watch that includes `y/q`)."""
    vault = tmp_path / "vault"
    (vault / "w").mkdir(parents=True)
    (vault / "w" / "two words.md").write_text("# Two\n")
    seen = Recorder()
    with watching(vault, seen):
        assert seen.wait(lambda: seen.rescans == 1)
        (vault / "y").mkdir()
        (vault / "w").rename(vault / "y" / "q")
        assert seen.wait(lambda: seen.rescans >= 2)  # a new folder: watched afresh, rescanned
        rename = partial(_rename_back_and_forth, vault / "y" / "q")
        assert seen.wait(lambda: "y/q/alpha.md" in seen.paths, again=rename)


def _rename_back_and_forth(folder: Path) -> None:
    old, new = folder / "two words.md", folder / "alpha.md"
    if old.exists():
        old.rename(new)
    else:
        new.rename(old)


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-U", "-r", "true"], capture_output=True, check=False)
    return probe.returncode == 0


OUT_OF_INOTIFY = """
import json, logging, sys, tempfile, threading
from pathlib import Path
from memlsp.settings.table import Settings
from memlsp.sync.watcher import VaultWatcher
logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
vault = Path(tempfile.mkdtemp()) / "vault"
for n in range(12):
    (vault / f"f{n}" / "sub").mkdir(parents=True)
seen, event = set(), threading.Event()
watcher = VaultWatcher(vault, Settings(), lambda paths: (seen.update(paths), event.set()))
watcher.start()
for _ in range(100):
    (vault / "f11" / "sub" / "late.md").write_text("# Late\\n")
    if event.wait(0.5) and "f11/sub/late.md" in seen:
        break
watcher.stop()
print(json.dumps(sorted(seen)))
"""


@pytest.mark.e2e  # `unshare`, for inotify limits of its own
@pytest.mark.parametrize("limit", ["max_inotify_watches", "max_inotify_instances"])
def test_inotify_out_of_watches_falls_back_to_polling_with_advice(limit: str) -> None:
    # Probed here, not in a skipif: collecting the tests must start no process.
    if not _unshare_works():
        pytest.skip("needs `unshare` and user namespaces")
    # Only inside a new user namespace: the limit there leaves the machine's own untouched.
    value = 3 if limit == "max_inotify_watches" else 0
    result = subprocess.run(
        [
            "unshare",
            "-U",
            "-r",
            "sh",
            "-c",
            f'echo {value} > /proc/sys/user/{limit} && exec "$0" -c "$1"',
            sys.executable,
            OUT_OF_INOTIFY,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "f11/sub/late.md" in json.loads(result.stdout)
    said = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(said) == 1 and "polling" in said[0] and "max_user_watches" in said[0], said


def test_relative_refuses_names_that_are_not_utf8(tmp_path: Path) -> None:
    watcher = VaultWatcher(tmp_path, Settings(), lambda _paths: None)
    assert watcher.relative(str(tmp_path / "ok.md")) == "ok.md"
    assert watcher.relative(os.fsdecode(os.path.join(os.fsencode(tmp_path), b"caf\xe9.md"))) is None


def test_a_watcher_stopped_before_it_started_ends_at_once(tmp_path: Path) -> None:
    """An editor may shut down while its vault is still opening: the stop comes first."""
    vault = tmp_path / "vault"
    vault.mkdir()
    seen = Recorder()
    watcher = VaultWatcher(vault, Settings(), seen.changed, on_rescan=seen.rescan)
    watcher.stop()  # raised "cannot join thread before it is started"
    watcher.start()
    watcher._thread.join(timeout=5)
    assert not watcher._thread.is_alive()
    assert seen.paths == set()
