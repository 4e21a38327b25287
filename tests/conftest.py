"""Fixtures shared by the tests of the pure layers (parse, vault)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlsp.model import Note
from tests.helpers_vault import FIXTURE_VAULT, read_vault


@pytest.fixture(scope="session")
def fixture_vault() -> Path:
    return FIXTURE_VAULT


@pytest.fixture(scope="session")
def fixture_notes() -> tuple[dict[str, Note], list[str]]:
    """The fixture vault parsed once: notes by path, and the attachment paths."""
    return read_vault(FIXTURE_VAULT)
