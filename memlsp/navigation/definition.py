"""Go to definition: where the link under the cursor leads."""

from __future__ import annotations

from memlsp.model import LinkStatus, ResolvedLink
from memlsp.navigation.places import Place, link_at, target_place
from memlsp.vault.view import VaultView


def destinations(resolved: ResolvedLink) -> tuple[str, ...]:
    """The files a link opens: its target, or every note of a shared alias. An ambiguous link opens
    the one note Obsidian opens (vault/resolve.py); its diagnostic names the others."""
    resolution = resolved.resolution
    if resolution.status in (LinkStatus.RESOLVED, LinkStatus.AMBIGUOUS):
        return resolution.targets
    return ()


def definition(view: VaultView, path: str, line: int, column: int) -> list[Place]:
    """The heading line, block line or file start of each destination; [] off a link or for a
    link that goes nowhere (unresolved, outside the vault)."""
    resolved = link_at(view, path, line, column)
    if resolved is None:
        return []
    return [target_place(view, resolved, target) for target in destinations(resolved)]
