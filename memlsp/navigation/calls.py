"""Call hierarchy over the link graph: a note's outlinks are its outgoing calls, its inlinks its
incoming calls. Links from a note to itself (`[[#Heading]]`) are left out: a call hierarchy
would show them as endless recursion."""

from __future__ import annotations

from memlsp.model import Span
from memlsp.vault.view import VaultView


def outgoing(view: VaultView, path: str) -> list[tuple[str, list[Span]]]:
    """Each note or file `path` links to, in first-appearance order, with the spans of those links.

    A link to a shared alias calls every note of the alias; an ambiguous one the note it follows.
    """
    calls: dict[str, list[Span]] = {}
    for resolved in view.graph.outlinks(path):
        for target in resolved.resolution.targets:
            if target != path:
                calls.setdefault(target, []).append(resolved.link.span)
    return list(calls.items())


def incoming(view: VaultView, path: str) -> list[tuple[str, list[Span]]]:
    """Each note linking to `path`, by path, with the spans of its links to `path`."""
    calls: dict[str, list[Span]] = {}
    for resolved in view.graph.inlinks(path):
        if resolved.source != path:
            calls.setdefault(resolved.source, []).append(resolved.link.span)
    return list(calls.items())
