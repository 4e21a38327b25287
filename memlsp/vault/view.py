"""What a reader sees of a vault: the link graph and note texts of one revision.

Navigation (definition, references, hover, outline, calls, symbols) reads a vault only through a
`VaultView`, never through the engine, so it is tested on any vault that can make one. The
engine's views come from its snapshots (snapshot.py): their graph is frozen, so a view stays as it
was for as long as a request holds it, whatever the writer does meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memlsp.vault.link_graph import LinkGraph


def _unknown(path: str) -> int:
    return 0


@dataclass(frozen=True, slots=True)
class VaultView:
    revision: int
    graph: LinkGraph
    read: Callable[[str], str | None]  # a note's text: its open buffer, else the file
    # when a file last changed, in ns (greater is more recent; an open buffer is the most recent)
    modified: Callable[[str], int] = _unknown
