"""What the server's parts that talk to the client on their own may ask of it: a narrow port.

Progress (`progress.py`), diagnostics (`diagnostics.py`) and the fan-out of a vault's news
(`vault_events.py`) are told by a live vault's threads, not asked by a request. The server builds
this port from itself (pygls) and hands it down, so those parts never reach back into the server:
each can be read, and tried, with the few functions below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.progress import Progress
from pygls.workspace import TextDocument

from memlsp.live.vault import LiveVault


@dataclass(frozen=True, slots=True)
class ClientPort:
    on_loop: Callable[[Callable[[], None]], None]
    """Run an action on the event loop, from any thread (the client is talked to only there)."""
    notify: Callable[[str, Any], None]
    """Send a notification, such as `memlsp/changed` (on the loop)."""
    log: Callable[[str, types.MessageType], None]
    """A line for the client's log (`window/logMessage`), from any thread."""
    progress: Callable[[], Progress | None]
    """`$/progress` (on the loop); None when the client cannot show it."""
    publish_diagnostics: Callable[[types.PublishDiagnosticsParams], None]
    """Send a note's problems (on the loop)."""
    refresh_lenses: Callable[[], None]
    """Ask the client to ask for code lenses again, if it can be asked (on the loop)."""
    document: Callable[[str], TextDocument | None]
    """The document open at a URI, however the URI is spelled; None when it is not open."""
    open_uris: Callable[[], list[str]]
    """The URIs of the documents open in the client."""
    note_at: Callable[[str], tuple[LiveVault, str] | None]
    """The open vault holding the note at a URI, and the note's vault-relative path."""
    encoding: Callable[[], str]
    """The position encoding agreed with the client (`utf-16`, `utf-8` or `utf-32`)."""
