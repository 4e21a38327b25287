"""Fixtures shared by every test."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlsp.engine import Engine
from memlsp.model import Note
from tests.helpers.engine import open_indexed
from tests.helpers.vault import FIXTURE_VAULT, read_vault


@pytest.fixture(scope="session", autouse=True)
def user_config_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user's own memlsp config (and its signing key) never leaks into or out of the tests;
    servers and CLIs the tests start inherit this too. Nor does a CLI the tests run start a
    `memlsp serve` that outlives them: tests/test_daemon.py asks for one where it wants one."""
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
