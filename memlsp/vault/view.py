"""What a reader sees of a vault: the link graph and note texts of one revision.

Navigation (definition, references, hover, outline, calls, symbols) reads a vault only through a
`VaultView`, never through the engine, so it is tested on any vault that can make one. The
engine's views come from its snapshots (snapshot.py): their graph is frozen, so a view stays as it
was for as long as a request holds it, whatever the writer does meanwhile, and their `memo` is
their snapshot's: what is computed once per revision (a vault's names, a note's mentions) is
shared by every request that reads that revision.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from memlsp.vault.link_graph import LinkGraph

T = TypeVar("T")


class Memo(Protocol):
    """`compute()` once per revision and key (`Snapshot.memo`)."""

    def __call__(self, key: Hashable, compute: Callable[[], T]) -> T: ...


def _unknown(path: str) -> int:
    return 0


def _computed(key: Hashable, compute: Callable[[], T]) -> T:
    """No memo: a view made for one question (tests, benchmarks) computes each time."""
    return compute()


@dataclass(frozen=True, slots=True)
class VaultView:
    revision: int
    graph: LinkGraph
    read: Callable[[str], str | None]  # a note's text: its open buffer, else the file
    # when a file last changed, in ns (greater is more recent; an open buffer is the most recent)
    modified: Callable[[str], int] = _unknown
    memo: Memo = _computed  # what this revision computed once, keyed by the question
