"""Fixtures shared by the tests of the pure layers (parse, vault)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlsp.model import Note
from tests.helpers_vault import FIXTURE_VAULT, read_vault


@pytest.fixture(scope="session", autouse=True)
def user_config_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user's own memlsp config (and its signing key) never leaks into or out of the tests;
    servers and CLIs the tests start inherit this too."""
    folder = tmp_path_factory.mktemp("config-home")
    before = os.environ.get("XDG_CONFIG_HOME")
    os.environ["XDG_CONFIG_HOME"] = str(folder)
    yield folder
    if before is None:
        del os.environ["XDG_CONFIG_HOME"]
    else:
        os.environ["XDG_CONFIG_HOME"] = before


@pytest.fixture(scope="session")
def fixture_vault() -> Path:
    return FIXTURE_VAULT


@pytest.fixture(scope="session")
def fixture_notes() -> tuple[dict[str, Note], list[str]]:
    """The fixture vault parsed once: notes by path, and the attachment paths."""
    return read_vault(FIXTURE_VAULT)
