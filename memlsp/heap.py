"""How a memlsp process uses glibc's heap: fewer arenas, and freed pages given back.

glibc gives each thread that allocates concurrently an arena of its own, up to eight per core, and
keeps what is freed in each. memlsp's threads (requests, the writer, onnxruntime's pool, Chroma's
and tantivy's own) left ~100 MB of freed pages spread over arenas once a backfill was done
(`benchmarks/bench_lsp.py --semantic`). Nothing here does anything on another C library; the
resident size is read from Linux's /proc.
"""

from __future__ import annotations

import ctypes
from typing import Any

ARENAS = 2  # one for the main thread, one shared by the others
_M_ARENA_MAX = -8  # mallopt's parameter number, from glibc's malloc.h


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


_LIBC = _libc()


def _function(name: str) -> Any:
    """A glibc function (a ctypes function of C ints), or None on another C library."""
    return getattr(_LIBC, name, None) if _LIBC is not None else None


def limit_arenas() -> bool:
    """Call first thing in a process that will run models or serve: arenas made before stay.
    Whether glibc took the limit."""
    mallopt = _function("mallopt")
    return mallopt is not None and mallopt(_M_ARENA_MAX, ARENAS) == 1


def release_memory() -> None:
    """Give freed heap pages back to the system. A model's forward pass allocates and frees large
    activation buffers that glibc keeps: without this, RSS grows by ~80 MB over a backfill."""
    trim = _function("malloc_trim")
    if trim is not None:
        trim(0)


def resident_mib() -> int | None:
    """The process's resident memory (VmRSS) in MiB; None where /proc does not say."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError):
        pass
    return None
