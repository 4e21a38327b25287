"""Fixtures shared by every test, and the `e2e` mark.

A test is `e2e` when it starts a process: the language server over stdio, the CLI, `memlsp serve`,
an editor, a Chroma server. Every test of tests/lsp is, but for the modules in `LSP_IN_PROCESS`;
elsewhere a module or a test says so with `pytest.mark.e2e`. Any other test that tries to start
one fails, saying so: `python -m pytest -m "not e2e"` starts no process.

Every `e2e` test has a time limit (`E2E_SECONDS`, or its own in `LONG_E2E`): past it, the run's
processes are ended and the test fails (tests/helpers/timeouts.py).
"""

from __future__ import annotations

import _posixsubprocess
import os
import shutil
import subprocess
from collections.abc import Callable, Generator, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from memlsp.engine.engine import Engine
from memlsp.model import Note
from tests.helpers.engine import open_indexed
from tests.helpers.timeouts import LIMITS, Limit, mark_this_run
from tests.helpers.vault import FIXTURE_VAULT, read_vault

LSP_TESTS = Path(__file__).resolve().parent / "lsp"
LSP_IN_PROCESS = {
    "test_convert.py",
    "test_logging.py",
    "test_responses.py",
    "test_publisher.py",
}  # tests/lsp modules that start nothing
# Fixtures that may start a process: loading MiniLM converts it to int8 in a child process the
# first time (tests/embed/test_embedders.py).
E2E_FIXTURES = {"minilm", "bilingual", "onnx_folder_embedder"}
# Five minutes for an e2e test: measured alone with `--durations` on two shared cores, the slowest
# took 43 s (an agent's session on a real vault), MiniLM's int8 conversion 25 s, a Neovim session
# 19 s to start. Longer for those that grow with a real vault; a test may also set its own limit
# with `pytest.mark.timeout(seconds, method="thread")`.
E2E_SECONDS = 300
LONG_E2E: Mapping[str, int] = {  # test id prefix (as pytest prints it) -> seconds
    "tests/agent/test_mcp_real_vaults.py::test_an_agents_session": 600,
}


def pytest_configure() -> None:
    mark_this_run()  # before any process starts, so that each can be found if a test hangs


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = item.path
        in_lsp = path.parent == LSP_TESTS and path.name not in LSP_IN_PROCESS
        fixtures = set(getattr(item, "fixturenames", ()))
        if in_lsp or fixtures & E2E_FIXTURES:
            item.add_marker(pytest.mark.e2e)
        if item.get_closest_marker("e2e") and not item.get_closest_marker("timeout"):
            long = [s for prefix, s in LONG_E2E.items() if item.nodeid.startswith(prefix)]
            seconds = max(long, default=E2E_SECONDS)
            item.add_marker(pytest.mark.timeout(seconds, method="thread"))


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    """The thread method's limit, with the run's processes ended first (tests/helpers/timeouts.py);
    the signal method (`--timeout` given by hand) as pytest-timeout has it."""
    if settings.method != "thread":
        return None
    item.stash[LIMITS] = Limit(item, settings)
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_cancel_timer(item: pytest.Item) -> bool | None:
    limit = item.stash.get(LIMITS, None)
    if limit is None:
        return None
    limit.cancel()
    return True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item,
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A test that ran out of time fails, even if ending its processes let it pass."""
    report = yield
    limit = item.stash.get(LIMITS, None)
    if limit is not None and limit.expired.is_set() and not limit.reported and not report.skipped:
        limit.reported = True
        seconds = limit.settings.timeout
        message = f"Timeout: over {seconds} s; every process of the test run was ended"
        if report.passed:
            report.outcome = "failed"
            report.longrepr = message
        else:
            report.sections.append(("time limit", message))
    return report


class ProcessStarted(AssertionError):
    pass


def _refused(test: str, how: str) -> Callable[..., Any]:
    def refuse(*args: Any, **_: Any) -> Any:
        program = how
        if how == "Popen" and len(args) > 1:
            program = str(args[1])  # the command it was about to run
        elif how == "fork_exec" and args and args[0]:
            program = os.fsdecode(args[0][0])  # the program about to run
        raise ProcessStarted(
            f"{test} starts a process ({program}) but is not marked e2e (see tests/conftest.py)"
        )

    return refuse


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None]:
    """Outside `e2e` tests (their fixtures' setup and teardown too), starting a program (the
    subprocess module, asyncio's subprocesses, multiprocessing's spawn and forkserver,
    posix_spawn) or forking fails."""
    if item.get_closest_marker("e2e") is not None:
        return (yield)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(subprocess.Popen, "__init__", _refused(item.nodeid, "Popen"))
        patch.setattr(_posixsubprocess, "fork_exec", _refused(item.nodeid, "fork_exec"))
        patch.setattr(os, "fork", _refused(item.nodeid, "fork"))
        patch.setattr(os, "posix_spawn", _refused(item.nodeid, "posix_spawn"))
        patch.setattr(os, "posix_spawnp", _refused(item.nodeid, "posix_spawnp"))
        return (yield)


@pytest.fixture(scope="session", autouse=True)
def user_config_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user's own memlsp config (and its signing key) never leaks into or out of the tests;
    servers and CLIs the tests start inherit this too. Nor does a CLI the tests run start a
    `memlsp serve` that outlives them: tests/commands/test_daemon.py asks for one where it wants one."""
    folder = tmp_path_factory.mktemp("config-home")
    changed = {"XDG_CONFIG_HOME": str(folder), "MEMLSP_NO_DAEMON": "1"}
    before = {name: os.environ.get(name) for name in changed}
    os.environ.update(changed)
    yield folder
    for name, value in before.items():
        if value is None:
            del os.environ[name]
        else:
            os.environ[name] = value


@pytest.fixture(scope="module")
def fixture_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The fixture vault indexed, copied so nothing can touch the original; the tests only read
    it."""
    tmp = tmp_path_factory.mktemp("navigation")
    shutil.copytree(FIXTURE_VAULT, tmp / "vault")
    engine = open_indexed(tmp / "vault", tmp / "cache")
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def fixture_vault() -> Path:
    return FIXTURE_VAULT


@pytest.fixture(scope="session")
def fixture_notes() -> tuple[dict[str, Note], list[str]]:
    """The fixture vault parsed once: notes by path, and the attachment paths."""
    return read_vault(FIXTURE_VAULT)
