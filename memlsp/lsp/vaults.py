"""The vaults a server has open, and which of them a document belongs to.

A workspace folder opens the vault it belongs to (the folder itself, or the nearest folder above it
marked as a vault); a client that names no folder gets the vault of each note it opens. A document
belongs to the innermost open vault that holds it.

A vault stops on a thread, never on the event loop: stopping waits for its writer's and its
embedding's batch (seconds, with a slow embedding API), and meanwhile the server must go on
reading messages, cancels included. The changes of one folder's vault happen in the order asked,
each once the one before has ended, since a vault must have let go of its index before the next
vault of that folder opens it (else that one would open it read-only). A vault that reopens (new
settings) answers requests until it has stopped; its replacement then answers, as any vault that
opens does. A vault whose folder is removed answers no request from then on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from concurrent import futures
from functools import partial
from pathlib import Path
from typing import Any

from memlsp.live.vault import Listener, LiveVault
from memlsp.lsp import convert
from memlsp.settings.files import load_vault_settings
from memlsp.settings.table import Settings, needs_reopen
from memlsp.sync.activity import Activity
from memlsp.vault.roots import VAULT_MARKERS, vault_of_lone_note, vault_root

log = logging.getLogger(__name__)

Tell = Callable[[str], None]
Step = Callable[[], Coroutine[Any, Any, None]]


class Vaults:
    def __init__(
        self,
        listener: Listener,
        activity: Activity,
        *,
        tell: Tell,
        warn: Tell,
        say: Tell,
        opened: Callable[[LiveVault], None],
        closed: Callable[[Path], None],
    ) -> None:
        """`tell` logs for the client, `warn` logs a warning, `say` shows the user a decision
        they did not make; `opened` and `closed` hear of each vault that opens or closes."""
        self._listener = listener
        self._activity = activity
        self._tell, self._warn, self._say = tell, warn, say
        self._opened, self._closed = opened, closed
        # The vaults requests go to. Changed on the event loop only, and swapped whole: other
        # threads (diagnostics, a vault's news) route too.
        self._by_root: dict[Path, LiveVault] = {}
        self._folders: dict[Path, Path] = {}  # workspace folder -> the vault it belongs to
        self._told_incomplete: set[Path] = set()
        self.lone_notes = False  # no workspace folder given: each opened note opens its vault
        self._made: set[LiveVault] = set()  # every vault opened and not yet known to be stopped
        self._changing: dict[Path, asyncio.Future[None]] = {}  # a folder's last change asked
        self._reopening: set[LiveVault] = set()  # each opens again with `_newest` once stopped
        self._newest: Settings | None = None  # the client's settings, as last given
        self._stops: set[futures.Future[None]] = set()  # stops under way on `_stopper`
        self._stopper = futures.ThreadPoolExecutor(2, thread_name_prefix="stop vault")
        self._closing = False  # `close_all`: nothing opens from now on

    def all(self) -> list[LiveVault]:
        return list(self._by_root.values())

    def get(self, root: Path) -> LiveVault | None:
        return self._by_root.get(root)

    def route(self, uri: str) -> tuple[LiveVault, str] | None:
        """The vault holding a document, and the document's vault-relative path."""
        path = convert.path_of(uri)
        if path is None:
            return None
        by_root = self._by_root  # one look: the loop may swap it meanwhile
        for root in sorted(by_root, key=lambda r: (-len(r.parts), r)):
            if path.is_relative_to(root):
                return by_root[root], path.relative_to(root).as_posix()
        return None

    def warn_if_incomplete(self, vault: LiveVault) -> None:
        """A request answered while the vault is still opening may miss notes: say so, once per
        vault, rather than let an empty answer look like the truth."""
        why = vault.incomplete()
        if why and vault.root not in self._told_incomplete:
            self._told_incomplete.add(vault.root)
            self._warn(f"memlsp: {why}")

    # -- opening and closing -------------------------------------------------------------------

    def open_folder(self, folder: Path, settings: Settings) -> None:
        folder = folder.resolve()
        if not folder.is_dir():
            self._tell(f"memlsp: workspace folder {folder} does not exist; not indexed")
            return
        root = vault_root(folder)
        if root is None:
            self._say(
                f"memlsp: not indexing {folder}: it is the home folder or the filesystem root, "
                "with no .obsidian or .memlsp.toml. Each note you open will open its own vault "
                "(the nearest folder marked with one of those, else the note's folder)."
            )
            self.lone_notes = True
            return
        self._folders[folder] = root
        if root != folder and root not in self._by_root:
            self._tell(f"memlsp: {folder} is inside the vault {root} (it has {_marker(root)})")
        self.open_vault(root, settings)

    def close_folder(self, folder: Path) -> None:
        """A workspace folder went away: its vault closes unless another folder still uses it."""
        root = self._folders.pop(folder.resolve(), None)
        if root is not None and root not in self._folders.values():
            self.close_vault(root)

    def open_lone_note(self, uri: str, settings: Settings) -> None:
        """The client named no folder (a single file opened): the note's vault opens, and the
        user is told which folder that is, since nobody chose it."""
        path = convert.path_of(uri)
        if path is None or self.route(uri) is not None:
            return
        root = vault_of_lone_note(path)
        if root is None:
            self._say(
                f"memlsp: {path.name} is not inside a vault (no .obsidian or .memlsp.toml above "
                "it) and its folder is too wide to index; open the vault's folder as the "
                "workspace instead."
            )
            return
        marker = _marker(root)
        why = f"it has {marker}" if marker else "the note's folder"
        self._say(f"memlsp: the editor named no workspace folder; indexing {root} ({why}).")
        self.open_vault(root, settings)

    def open_vault(self, root: Path, settings: Settings) -> None:
        """Requests go to the new vault at once; it starts now, or once the folder's vault
        before it has stopped."""
        root = root.resolve()
        if root in self._by_root or self._closing:
            return
        settings, problems = load_vault_settings(root, settings)
        for problem in problems:
            self._warn(f"memlsp: {problem}")
        vault = LiveVault(
            root, settings, self._listener, watch=settings.watch, activity=self._activity
        )
        self._made.add(vault)
        self._by_root = {**self._by_root, root: vault}
        if root in self._changing:
            self._in_turn(root, partial(self._start_later, vault))
        else:
            self._start(vault)

    def close_vault(self, root: Path) -> None:
        """Requests no longer go to the vault; it stops on a thread."""
        root = root.resolve()
        self._told_incomplete.discard(root)  # opened again, it may be partial again
        vault = self._by_root.get(root)
        if vault is not None:
            self._by_root = {r: v for r, v in self._by_root.items() if r != root}
            self._in_turn(root, partial(self._stop, vault))

    def use_settings(self, settings: Settings) -> list[LiveVault]:
        """New settings from the client: a vault whose settings now differ in what needs a
        reopen starts again with them (a warm start, about a second, after it has stopped); the
        others take them from the next request on. The vaults whose settings changed in place."""
        self._newest = settings
        changed = []
        for root, vault in list(self._by_root.items()):
            if vault in self._reopening:
                continue  # it opens again with the newest settings, these
            settings_now, _ = load_vault_settings(root, settings)
            if needs_reopen(vault.settings, settings_now):
                self._reopening.add(vault)
                self._in_turn(root, partial(self._reopen, vault))
            elif settings_now != vault.settings:
                vault.use_settings(settings_now)
                changed.append(vault)
        return changed

    def close_all(self) -> None:
        """Stop every vault, and wait for it: what they indexed is saved. From any thread, the
        event loop's too (at `shutdown`) or once it has ended."""
        self._closing = True
        futures.wait(list(self._stops))  # never two stops of one vault at once
        self._by_root = {}
        for vault in list(self._made):
            vault.stop()  # at once if it has stopped already
            self._made.discard(vault)
            self._closed(vault.root)

    # -- the changes of one folder's vault, in turn, on the event loop ------------------------

    def _in_turn(self, root: Path, step: Step) -> None:
        """Run `step` on the event loop once the changes of `root`'s vault asked before it have
        ended, however they ended."""
        before = self._changing.get(root)

        async def in_turn() -> None:
            if before is not None:
                await asyncio.wait([before])
            await step()

        task = asyncio.ensure_future(in_turn())
        self._changing[root] = task
        task.add_done_callback(partial(self._ended, root))

    def _ended(self, root: Path, task: asyncio.Future[None]) -> None:
        if self._changing.get(root) is task:
            del self._changing[root]
        if not task.cancelled() and task.exception() is not None:
            log.error("changing the vault %s failed", root, exc_info=task.exception())

    def _start(self, vault: LiveVault) -> None:
        if self._by_root.get(vault.root) is vault and not self._closing:  # not closed meanwhile
            vault.start()
            self._opened(vault)

    async def _start_later(self, vault: LiveVault) -> None:
        self._start(vault)

    async def _stop(self, vault: LiveVault) -> None:
        """Stop `vault` on a thread while the event loop goes on; then its socket closes."""
        if self._closing:
            return  # `close_all` stops it
        stop = self._stopper.submit(vault.stop)
        self._stops.add(stop)
        try:
            await asyncio.wrap_future(stop)
        except Exception:  # the folder's next vault opens regardless
            log.exception("stopping the vault %s failed", vault.root)
        finally:
            self._stops.discard(stop)
        self._made.discard(vault)
        self._closed(vault.root)  # only now: the vault's threads have stopped

    async def _reopen(self, old: LiveVault) -> None:
        """Requests go to `old` while it stops, then to a vault opened with the newest settings,
        unless its folder was closed meanwhile."""
        root = old.root
        try:
            await self._stop(old)
        finally:
            self._reopening.discard(old)
        if self._by_root.get(root) is not old or self._closing or self._newest is None:
            return
        self._by_root = {r: v for r, v in self._by_root.items() if r != root}
        self._told_incomplete.discard(root)
        self.open_vault(root, self._newest)


def _marker(root: Path) -> str:
    return " and ".join(m for m in VAULT_MARKERS if (root / m).exists())
