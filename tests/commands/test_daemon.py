"""`memlsp serve` and the vault's socket, with real processes: the CLI finds the process that has
its vault open, prints what it would have printed itself, and runs in-process when it must."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memlsp import daemon
from memlsp.daemon.host import SocketHost
from memlsp.live.vault import LiveVault
from memlsp.settings.files import cache_dir_for
from memlsp.settings.table import Settings
from tests.helpers.cli import environment, memlsp
from tests.helpers.fake_embedder import user_config_for
from tests.helpers.fixtures import endpoint_fixture
from tests.helpers.vault import write, write_notes
from tests.lsp.conftest import served

pytestmark = [
    pytest.mark.e2e,  # `memlsp serve`, and CLIs that talk to it
    pytest.mark.skipif(not daemon.supported(), reason="no Unix domain sockets"),
]

KEYWORD = ("--embedder", "none")


def wait_until(check: Callable[[], object], timeout: float = 30.0) -> None:
    """Bounded polling: `check` is asked every 20 ms until it answers something truthy."""
    tick = threading.Event()
    for _ in range(int(timeout / 0.02)):
        if check():
            return
        tick.wait(0.02)
    raise AssertionError(f"not so within {timeout} s: {check}")


class Vault:
    """A vault, a cache root, and the `memlsp serve` processes started for it (ended with the
    test, with any a CLI started)."""

    def __init__(self, root: Path, cache: Path) -> None:
        self.root = root
        self.cache = cache
        self.folder = cache_dir_for(root, Settings(cache_dir=cache))
        path = daemon.socket_path(self.folder)
        assert path is not None
        self.socket = path
        self.processes: list[subprocess.Popen[bytes]] = []

    def serve(
        self, *flags: str, idle: float = 120.0, capture: bool = False
    ) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [sys.executable, "-m", "memlsp", "serve", str(self.root), "--cache-dir",
             str(self.cache), "--idle", str(idle), *flags],
            env=environment(),
            stdout=subprocess.PIPE if capture else None,
            stderr=subprocess.PIPE if capture else None,
        )  # fmt: skip
        self.processes.append(process)
        return process

    def serving(self, *flags: str, **options: Any) -> subprocess.Popen[bytes]:
        """A server, once it answers on the socket (its index is open)."""
        process = self.serve(*flags, **options)
        wait_until(lambda: self.answers() or process.poll() is not None)
        assert process.poll() is None, "memlsp serve exited"
        return process

    def answers(self) -> bool:
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as probe:
            probe.connect(str(self.socket))
            return True
        return False

    def search(self, *args: str | Path, **options: Any) -> subprocess.CompletedProcess[str]:
        return memlsp("search", self.root, *args, "--cache-dir", self.cache, **options)

    def links(self, *args: str | Path, **options: Any) -> subprocess.CompletedProcess[str]:
        return memlsp("links", self.root, *args, "--cache-dir", self.cache, **options)

    def graph(self, *args: str | Path, **options: Any) -> subprocess.CompletedProcess[str]:
        return memlsp("graph", self.root, *args, "--cache-dir", self.cache, **options)

    @property
    def log(self) -> str:
        path = self.folder / daemon.LOG_FILE
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def answered(self) -> int:
        """How many requests the servers of this vault have answered."""
        return self.log.count(" answered in ")

    def end(self) -> None:
        pids = {int(pid) for pid in re.findall(r"\(pid (\d+),", self.log)}
        for process in self.processes:
            pids.discard(process.pid)
            if process.poll() is None:
                process.terminate()
            try:
                process.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
        for pid in pids:  # started by a CLI, not by the test
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)


# The server does not watch the folder: only looking at the disk before each answer finds a file
# written just before the command.
FRUIT_NOTES = {
    ".memlsp.toml": "watch = false\n",
    "a.md": "# Apples\n\nApples grow on trees. [[b]] [[missing]]\n",
    "b.md": "# Bananas\n\nBananas are yellow and grow in bunches.\n",
    "c.md": "# Cherries\n\nCherries, like [[a#Apples]], grow on trees.\n",
}


@pytest.fixture
def make_vault(tmp_path: Path) -> Iterator[Callable[..., Vault]]:
    """Vaults whose cache root is short, so that their sockets live in their cache folders."""
    made: list[Vault] = []
    caches: list[Path] = []

    def make(name: str = "vault", cache: Path | None = None) -> Vault:
        if cache is None:
            caches.append(Path(tempfile.mkdtemp(prefix="md-")))
        made.append(Vault(write_notes(tmp_path / name, FRUIT_NOTES), cache or caches[-1]))
        return made[-1]

    yield make
    for vault in made:
        vault.end()
    for cache in caches:
        shutil.rmtree(cache, ignore_errors=True)


@pytest.fixture
def vault(make_vault: Callable[..., Vault]) -> Vault:
    return make_vault()


def paths(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode == 0, result.stderr
    return [hit["path"] for hit in json.loads(result.stdout)["results"]]


def test_the_cli_prints_what_the_server_answers_as_it_would_itself(vault: Vault) -> None:
    vault.serving(*KEYWORD)
    # Searches --no-recall: counted, the second answer would show one recall more.
    for command, args in [
        (vault.search, ("trees", *KEYWORD)),
        (vault.search, ("trees", "--json", "--limit", "1", "--no-recall", *KEYWORD)),
        (vault.search, ("trees", "--json", "--fusion", "rrf", "--no-recall", *KEYWORD)),
        (vault.search, ("nothingmatches", *KEYWORD)),
        (vault.links, ("a", *KEYWORD)),
        (vault.links, ("a.md", "--json", *KEYWORD)),
        (vault.graph, ("a", "--depth", "2", *KEYWORD)),
        (vault.graph, ("c.md", "--json", "--direction", "out", *KEYWORD)),
    ]:
        before = vault.answered()
        asked, alone = command(*args), command(*args, "--no-daemon")
        assert vault.answered() == before + 1, (args, vault.log)
        assert asked.returncode == alone.returncode == 0, alone.stderr
        assert asked.stdout == alone.stdout and asked.stdout and asked.stderr == ""
        if "--fusion" in args:  # the server read the flag it was passed
            assert json.loads(asked.stdout)["fusion"] == "rrf"
    # An error is the same message and status. The process of its own also says that another
    # process writes the index.
    asked = vault.links("nosuchnote", *KEYWORD)
    alone = vault.links("nosuchnote", *KEYWORD, "--no-daemon")
    assert asked.returncode == alone.returncode == 2
    assert asked.stderr == f"memlsp: no note 'nosuchnote' in {vault.root}\n"
    assert alone.stderr.endswith(asked.stderr) and "another memlsp process" in alone.stderr


def test_a_file_written_just_before_the_command_is_found(vault: Vault) -> None:
    vault.serving(*KEYWORD)
    assert paths(vault.search("zebra0", "--json", *KEYWORD)) == []
    for number in range(3):
        write(vault.root, f"new/z{number}.md", f"# Zebra {number}\n\nzebra{number} [[a]]\n")
        assert paths(vault.search(f"zebra{number}", "--json", *KEYWORD)) == [f"new/z{number}.md"]
    assert "new/z2.md:3 -> a" in vault.links("a", *KEYWORD).stdout
    (vault.root / "b.md").unlink()
    assert paths(vault.search("bananas", "--json", *KEYWORD)) == []
    assert vault.answered() == 6


def test_the_socket_is_the_users_alone(vault: Vault) -> None:
    vault.serving(*KEYWORD)
    assert vault.socket.is_relative_to(vault.folder)
    info = os.lstat(vault.socket)
    assert stat.S_ISSOCK(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
    assert stat.S_IMODE(os.lstat(vault.socket.parent).st_mode) == 0o700


def test_a_cache_path_too_long_for_a_socket_uses_the_private_temp_folder(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    vault = make_vault(cache=tmp_path / ("c" * 120))
    assert vault.socket.parent == Path(tempfile.gettempdir()) / f"memlsp-{os.geteuid()}"
    assert len(os.fsencode(vault.socket)) <= daemon.MAX_SOCKET_PATH
    vault.serving(*KEYWORD)
    assert stat.S_IMODE(os.lstat(vault.socket).st_mode) == 0o600
    assert "Apples" in vault.search("trees", *KEYWORD).stdout and vault.answered() == 1


def test_a_socket_left_by_a_dead_server_is_bound_again(vault: Vault) -> None:
    vault.socket.parent.mkdir(mode=0o700, parents=True)
    with socket.socket(socket.AF_UNIX) as left:  # bound, then closed: the file stays
        left.bind(str(vault.socket))
    assert vault.socket.exists() and not vault.answers()
    assert "Apples" in vault.search("trees", *KEYWORD).stdout  # in-process meanwhile
    first = vault.serving(*KEYWORD)
    first.kill()  # no chance to clean up
    first.wait()
    assert vault.socket.exists() and not vault.answers()
    vault.serving(*KEYWORD)
    assert "Apples" in vault.search("trees", *KEYWORD).stdout
    assert vault.answered() == 1


def test_a_socket_that_answers_is_never_taken(vault: Vault) -> None:
    first = vault.serving(*KEYWORD)
    second = vault.serve(*KEYWORD)
    assert second.wait(timeout=60) == 0
    assert first.poll() is None and "another process answers" in vault.log
    assert "Apples" in vault.search("trees", *KEYWORD).stdout and vault.answered() == 1


def test_each_vault_has_a_socket_of_its_own(make_vault: Callable[..., Vault]) -> None:
    one = make_vault("one")
    two = make_vault("two", cache=one.cache)
    write(two.root, "d.md", "# Dates\n\nDates grow on palms.\n")
    one.serving(*KEYWORD)
    two.serving(*KEYWORD)
    assert one.socket != two.socket
    assert paths(two.search("palms", "--json", *KEYWORD)) == ["d.md"]
    assert paths(one.search("palms", "--json", *KEYWORD)) == []
    assert (one.answered(), two.answered()) == (1, 1)


def test_the_server_exits_after_its_idle_time(vault: Vault) -> None:
    process = vault.serving(*KEYWORD, idle=2)
    busy_until = time.monotonic() + 3  # longer than the idle time: each request restarts it
    while time.monotonic() < busy_until:
        assert vault.search("trees", *KEYWORD).returncode == 0
    assert process.poll() is None
    assert process.wait(timeout=30) == 0
    assert "no request for 2 s" in vault.log and vault.log.rstrip().endswith("stopped")
    assert not vault.socket.exists()


def test_sigterm_closes_the_vault_and_the_socket(vault: Vault) -> None:
    process = vault.serving(*KEYWORD)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    assert not vault.socket.exists() and vault.log.rstrip().endswith("stopped")
    # The index was closed: a process of its own writes it, and has nothing to warn about.
    alone = vault.search("trees", *KEYWORD)
    assert alone.returncode == 0 and alone.stderr == "" and "Apples" in alone.stdout


def raw(path: Path, data: bytes) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX) as connection:
        connection.settimeout(30)
        connection.connect(str(path))
        connection.sendall(data)
        connection.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    assert answer.endswith(b"\n") and answer.count(b"\n") == 1, answer
    result: dict[str, Any] = json.loads(answer)
    return result


def request(argv: object, cwd: str = "/", **changes: Any) -> bytes:
    data = {"memlsp": 1, "argv": argv, "cwd": cwd, "settings": {}, **changes}
    return json.dumps(data).encode() + b"\n"


def test_bad_requests_get_an_error_and_the_server_goes_on(vault: Vault) -> None:
    process = vault.serving(*KEYWORD, capture=True)
    root = str(vault.root)
    bad = [
        b"this is not json\n",
        b"\xff\xfe\n",
        b"[1, 2]\n",
        b"[" * 100_000 + b"\n",
        b'{"memlsp": 1',  # no newline: the client stopped sending
        request(["search", root, "trees"], memlsp=2),
        request(42),
        request(["search", 42]),
        request(["search", root, "trees"], cwd="relative/folder"),
        request(["search", root, "trees"], settings=[]),
        request(["index", root]),
        request(["search", root, "--help"]),
        request(["--version"]),
        request(["search", root, "--mode", "fuzzy", "trees"]),
        b'{"memlsp": 1, "argv": ["' + b"x" * daemon.MAX_REQUEST + b'"], "cwd": "/"}\n',
    ]
    for data in bad:
        answer = raw(vault.socket, data)
        assert list(answer) == ["error"], (data[:60], answer)
    too_long = raw(vault.socket, b"y" * (3 * daemon.MAX_REQUEST))
    assert "too long" in too_long["error"]
    # Well formed, but for another vault or with other settings: not this server's to answer.
    other = raw(vault.socket, request(["search", str(vault.root.parent), "trees"]))
    assert list(other) == ["not_mine"]
    assert list(raw(vault.socket, request(["search", root, "trees"]))) == ["not_mine"]
    assert process.poll() is None
    assert "Apples" in vault.search("trees", *KEYWORD).stdout and vault.answered() == 1
    process.terminate()
    out, _ = process.communicate(timeout=30)
    assert out == b""  # `--help` and `--version` printed nothing anywhere


def test_other_settings_are_answered_in_process(vault: Vault, tmp_path: Path) -> None:
    vault.serving(*KEYWORD)
    write(tmp_path / "config", "memlsp/config.toml", "max_candidates = 50\n")
    other = environment(XDG_CONFIG_HOME=str(tmp_path / "config"))
    args = ("search", vault.root, "trees", "--cache-dir", vault.cache, *KEYWORD)
    told = memlsp("-v", *args, env=other)
    assert told.returncode == 0 and "Apples" in told.stdout
    [line] = [line for line in told.stderr.splitlines() if "answering here" in line]
    assert "other settings (max_candidates)" in line
    quiet = memlsp(*args, env=other)
    assert quiet.stdout == told.stdout and "answering here" not in quiet.stderr
    # Another embedder than the server's (keyword mode: no model to load here).
    embedder = vault.search("trees", "--embedder", "minilm", "--mode", "keyword")
    assert embedder.returncode == 0 and "Apples" in embedder.stdout
    assert vault.answered() == 0


def test_no_daemon_and_its_variable_run_in_process(vault: Vault) -> None:
    vault.serving(*KEYWORD)
    assert "Apples" in vault.search("trees", *KEYWORD, "--no-daemon").stdout
    alone = vault.search("trees", *KEYWORD, env=environment(MEMLSP_NO_DAEMON="1"))
    assert "Apples" in alone.stdout and vault.answered() == 0
    assert "Apples" in vault.search("trees", *KEYWORD).stdout and vault.answered() == 1


def test_asking_a_server_imports_no_index_and_no_model(vault: Vault) -> None:
    vault.serving(*KEYWORD)
    asked = memlsp(
        "search", vault.root, "trees", "--cache-dir", vault.cache, *KEYWORD,
        python=("-X", "importtime"),
    )  # fmt: skip
    assert "Apples" in asked.stdout and vault.answered() == 1
    imported = {line.rsplit("|", 1)[-1].strip() for line in asked.stderr.splitlines()}
    assert "memlsp.cli" in imported and "memlsp.daemon" in imported
    heavy = {"tantivy", "chromadb", "onnxruntime", "jieba", "numpy", "memlsp.engine"}
    assert not heavy & imported


endpoint = endpoint_fixture(32)


def test_a_search_by_meaning_starts_a_server_that_the_next_ones_ask(
    vault: Vault, endpoint: str, tmp_path: Path
) -> None:
    user_config_for(endpoint, tmp_path / "config", 32)
    env = environment(XDG_CONFIG_HOME=str(tmp_path / "config"))
    args = ("yellow bunches", "--json", "--no-recall")  # counted, each would show one more
    first = vault.search(*args, env=env)
    assert first.returncode == 0 and first.stderr == "", first.stderr
    assert vault.answered() == 1 and "(pid " in vault.log  # the server it started answered
    answer = json.loads(first.stdout)
    # Its first answer already has vectors: the server waited for them.
    assert answer["counts"]["vector"] > 0 and answer["counts"]["hybrid"] is True
    assert answer["warnings"] == [] and answer["results"][0]["path"] == "b.md"
    second = vault.search(*args, env=env)
    assert second.stdout == first.stdout and vault.answered() == 2
    alone = vault.search(*args, "--no-daemon", env=env)
    assert alone.stdout == first.stdout and vault.answered() == 2
    # A keyword search starts nothing, but asks the server that is there.
    assert paths(vault.search("trees", "--json", "--mode", "keyword", env=env)) == ["a.md", "c.md"]
    assert vault.answered() == 3


def test_a_keyword_search_starts_no_server(vault: Vault) -> None:
    assert "Apples" in vault.search("trees", *KEYWORD).stdout
    assert "Apples" in vault.search("trees", "--mode", "keyword").stdout
    assert not vault.socket.exists() and vault.log == ""


async def test_the_language_server_answers_the_cli_for_its_vault(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    async with served(tmp_path, "neovim") as session:
        path = daemon.socket_path(cache_dir_for(session.vault, Settings(cache_dir=cache)))
        assert path is not None and path.exists()  # bound before the vault said it was indexed
        args = ("search", session.vault, "bm25 saturation", "--cache-dir", cache, *KEYWORD)
        asked = await asyncio.to_thread(memlsp, "-v", *args)
        alone = await asyncio.to_thread(memlsp, *args, "--no-daemon")
        assert asked.returncode == alone.returncode == 0, asked.stderr
        assert asked.stdout == alone.stdout and "search/bm25.md" in asked.stdout
        # With -v, a command run here would say what it did (and that another process writes
        # the index); one the server answered says nothing.
        assert asked.stderr == "" and "another memlsp process" in alone.stderr
        session.write("inbox/fresh.md", "# Fresh\n\nQuokkas everywhere.\n")
        fresh = await asyncio.to_thread(memlsp, "-v", *args[:2], "quokkas", *args[3:], "--json")
        assert paths(fresh) == ["inbox/fresh.md"] and fresh.stderr == ""
    assert not path.exists()  # the socket closed with the vault


def test_a_socket_opened_while_its_host_closes_is_closed(tmp_path: Path) -> None:
    """The socket answers from inside its opening, before the host lists it: a close in between
    (a SIGTERM right after the first answer, a vault the editor closed meanwhile) is seen by the
    thread that opened it, which closes it. The one host of the server, `serve` and MCP."""
    root = write_notes(tmp_path / "vault", {"apples.md": "# Apples\n\nTrees.\n"})
    live = LiveVault(root, Settings(cache_dir=tmp_path / "cache", embedder="none"), watch=False)
    live.start()
    try:
        assert live.wait_ready(30) and live.engine is not None
        path = daemon.socket_path(live.engine.cache_dir)
        assert path is not None
        host = SocketHost()
        still_open = iter([True, False])  # open when asked, closed by the time it is listed
        host.answer(live, lambda: next(still_open))
        assert not daemon.answers(path) and host.idle() is None
        assert not host.elsewhere.is_set()
        host.answer(live)  # asked again (a rescan): this time it stays
        assert daemon.answers(path) and host.idle() is not None
        host.close()
        assert not daemon.answers(path) and not path.exists()
        host.answer(live)  # a closed host opens nothing again
        assert not daemon.answers(path)
    finally:
        live.stop()
