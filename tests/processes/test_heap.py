"""The heap settings of a memlsp process (memlsp/heap.py)."""

from __future__ import annotations

import platform

import pytest

from memlsp.heap import limit_arenas, release_memory


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the settings are glibc's")
def test_glibc_takes_the_arena_limit() -> None:
    assert limit_arenas() is True
    release_memory()  # and trimming answers, whatever there is to give back
