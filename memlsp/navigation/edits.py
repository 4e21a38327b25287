"""Changes to the vault as values: what a client applies when the user asks for it.

The server writes no note (docs/vault-safety.md): code actions and renames answer with these, and
the LSP layer (lsp/convert.py) turns them into one `WorkspaceEdit`.
"""

from __future__ import annotations

from dataclasses import dataclass

from memlsp.model import Span


@dataclass(frozen=True, slots=True)
class Edit:
    path: str  # a vault file, by the path it has before any move in the same change
    span: Span  # replaced by `new_text` (an empty span at 0:0 inserts at the start)
    new_text: str


@dataclass(frozen=True, slots=True)
class Move:
    old: str  # vault-relative paths
    new: str


@dataclass(frozen=True, slots=True)
class Change:
    """Applied in this order: the file created (empty), the text edits, then the moves."""

    edits: tuple[Edit, ...] = ()
    creates: str | None = None
    moves: tuple[Move, ...] = ()
