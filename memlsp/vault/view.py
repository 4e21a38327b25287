"""What a reader sees of a vault: the link graph and note texts of one revision.

Navigation (definition, references, hover, outline, calls, symbols) reads a vault only through a
`VaultView`, never through the engine, so it is tested on any vault that can make one. A view is
handed out by `Engine.reading()` and is valid inside that `with` block only: the writer applies
no change meanwhile, so a reader never sees half of one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memlsp.vault.graph import LinkGraph


@dataclass(frozen=True, slots=True)
class VaultView:
    revision: int
    graph: LinkGraph
    read: Callable[[str], str | None]  # a note's text: its open buffer, else the file
