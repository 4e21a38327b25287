"""Watch a vault folder for changes made by other programs (git, Obsidian, scripts).

The only module that imports watchfiles. Its default filter does not skip `.obsidian/` or other
dot-folders, so the vault's own rules decide what is reported.

A watch that fails never stops watching for good, nor retries in a tight loop: an unreadable
folder is left out (said once) while everything else is watched; inotify out of watches falls back
to polling (said once, with the fix); any other failure is said once and retried with a growing
pause. Changes missed meanwhile are found by asking for a rescan once watching again.

`caught_up` tells whoever must answer from what is on disk now (a question on the vault's
socket) that every change made before a moment has been reported, without walking the vault: the
watch hands over a batch, or an empty one, every `TICK_MS`, and whatever the kernel reported
before a batch is in it or in an earlier one.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import watchfiles

from memlsp.model import printable
from memlsp.settings.table import Settings
from memlsp.sync.scan import name_problem
from memlsp.vault.rules import VaultRules

log = logging.getLogger(__name__)

RETRY_FIRST = 1.0  # seconds before watching again after a failure, doubled up to RETRY_MAX
RETRY_MAX = 30.0
HEALTHY = 60.0  # a watch that ran this long before failing starts the pauses over
RECHECK = 1.0  # seconds between looks at whether an unreadable folder became readable
POLL_DELAY_MS = 1000  # when inotify cannot be used: a poll walks every watched folder
TICK_MS = 100  # the longest a quiet watch goes without handing over a (then empty) batch
# From a write to its event in the watch's batch being made: a few ms, even on a busy machine.
EVENT_LAG = 0.02
_NAMED = 5  # unreadable folders named in the warning


class VaultWatcher:
    """Calls `on_change(relative paths)` from its own thread until `stop()`."""

    def __init__(
        self,
        root: Path,
        settings: Settings,
        on_change: Callable[[set[str]], None],
        avoid: tuple[Path, ...] = (),
        on_rescan: Callable[[], None] = lambda: None,
    ) -> None:
        self.root = root.resolve()
        self.settings = settings
        self.on_change = on_change
        self.on_rescan = on_rescan
        self.avoid = tuple(path.resolve() for path in avoid)
        self._stop = threading.Event()
        self._root_touched = False
        # How to watch, learned from failures: folder by folder (leaving unreadable ones out),
        # and by polling when inotify has no watches left.
        self._by_folder = False
        self._polling = False
        self._unreadable: tuple[str, ...] = ()
        # Changes may have gone unseen: rescan once watching (again). True from the start: the
        # owner's first scan may finish before the watch is set up, and a write in between would
        # otherwise never be seen.
        self._missed = True
        self._told: set[str] = set()  # each warning is given once
        # When the last batch was handed over, once it has been reported; and whether everything
        # on disk was being watched then (inotify, and no rescan owed).
        self._handed = threading.Condition()
        self._handed_at = float("-inf")
        self._trusted = False
        self._thread = threading.Thread(target=self._run, name=f"watch {root.name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Safe before `start` too: an editor may shut down while the vault is still opening
        (the watcher then starts, sees the stop and ends at once)."""
        self._stop.set()
        if self._thread.ident is not None:
            self._thread.join(timeout=2)

    def caught_up(self, moment: float, timeout: float) -> bool:
        """Wait until every change made on disk before `moment` (time.monotonic) has been
        reported to `on_change`; False when the watch cannot say so (polling, a rescan owed, not
        watching, or not within `timeout`): only a rescan then finds what changed."""
        deadline = time.monotonic() + timeout
        with self._handed:
            while self._handed_at < moment and not self._stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._handed.wait(left)
            return self._handed_at >= moment and self._trusted

    def _hand_over(self, vouched: float) -> None:
        with self._handed:
            self._handed_at = max(self._handed_at, vouched)
            self._trusted = not (self._missed or self._polling)
            self._handed.notify_all()

    def relative(self, path: str) -> str | None:
        """The vault-relative path of a reported file, or None when the vault ignores it."""
        try:
            relative = Path(path).relative_to(self.root)
        except ValueError:
            return None
        if any(Path(path).is_relative_to(avoided) for avoided in self.avoid):
            return None
        posix = relative.as_posix()
        if not relative.parts or VaultRules.of(self.settings).ignored(posix):
            return None
        return None if name_problem(posix) else posix

    def _run(self) -> None:
        """Watch; if the vault folder goes away, wait for it, and when it is back (a re-clone, a
        restored backup) ask for a rescan before watching it again."""
        lost = False
        pause = RETRY_FIRST
        while not self._stop.is_set():
            if not self.root.is_dir():
                lost = True
                self._stop.wait(0.5)
                continue
            if lost:
                self.on_rescan()
                lost = False
            started = time.monotonic()
            try:
                lost = self._watch()
                pause = RETRY_FIRST
            except Exception as error:
                if self._stop.is_set():
                    return
                self._missed = True
                if self._adapt(error):
                    continue
                if time.monotonic() - started > HEALTHY:
                    pause = RETRY_FIRST
                self._warn_once(
                    str(error),
                    f"watching {printable(str(self.root))} failed ({printable(str(error))}); "
                    "watching again, and scanning for what was missed",
                )
                self._stop.wait(pause)
                pause = min(pause * 2, RETRY_MAX)

    def _adapt(self, error: Exception) -> bool:
        """Change how the vault is watched if `error` says how; True if it did."""
        if _permission_denied(error) and not self._by_folder:
            self._by_folder = True  # `_watch` names the folders it leaves out
            return True
        if _out_of_inotify(error) and not self._polling:
            self._polling = True
            log.warning(
                "cannot watch %s with inotify (%s); polling every %g s instead, which costs CPU "
                "on a large vault. To watch it efficiently, raise the limits, e.g. "
                "`sysctl fs.inotify.max_user_watches=524288 fs.inotify.max_user_instances=512`",
                printable(str(self.root)),
                printable(str(error)),
                POLL_DELAY_MS / 1000,
            )
            return True
        return False

    def _accepts(self, _change: watchfiles.Change, path: str) -> bool:
        if Path(path) == self.root:
            self._root_touched = True  # the folder itself was deleted or replaced
            return False
        return self.relative(path) is not None

    def _watch(self) -> bool:
        """Report changes until stopped (False), until watching must start over (False, not
        stopped), or until the vault folder itself goes (True)."""
        self._root_touched = False
        folders = [str(self.root)]
        if self._by_folder:
            folders = self._readable_folders()
        checked = asked = time.monotonic()
        for changes in watchfiles.watch(
            *folders,
            watch_filter=self._accepts,
            stop_event=self._stop,
            debounce=50,  # ms of quiet before a batch is reported
            step=10,
            rust_timeout=TICK_MS,
            yield_on_timeout=True,  # empty batches: time to check the folder, and `caught_up`
            raise_interrupt=False,
            recursive=not self._by_folder,
            # Only with one watch per folder: a recursive watch stops adding folders at the first
            # unreadable one, so everything after it would go unwatched without a word.
            ignore_permission_denied=self._by_folder,
            force_polling=True if self._polling else None,
            poll_delay_ms=POLL_DELAY_MS,
        ):
            # What this batch vouches for: every event that reached the watch before it was asked
            # for this batch, and, when it is empty, until now.
            vouched = (asked if changes else time.monotonic()) - EVENT_LAG
            if self._missed:  # watching again: what happened meanwhile is found by a rescan
                self._missed = False
                self.on_rescan()
            paths = {p for _, path in changes if (p := self.relative(path)) is not None}
            if paths:
                self.on_change(paths)
            self._hand_over(vouched)
            asked = time.monotonic()
            if self._root_touched or not self.root.is_dir():
                return True
            if _new_folder(changes):
                # Watch afresh: files written in it, or folders moved into it, before its own
                # watch existed are otherwise never reported (also by a recursive watch, which
                # adds the new folder's watch a moment after seeing it).
                self._missed = True
                return False
            if self._by_folder and time.monotonic() - checked > RECHECK:
                checked = time.monotonic()
                readable = [folder for folder in self._unreadable if _readable(folder)]
                if readable:
                    log.info("%s is readable again; watching it", printable(", ".join(readable)))
                    self._told.difference_update(readable)  # locked again: said again
                    self._by_folder = False  # the whole vault may be readable again
                    self._missed = True
                    return False
        return False

    def _readable_folders(self) -> list[str]:
        """Every folder of the vault that can be watched, following symlinks that stay inside it
        (each real folder once); the unreadable ones are remembered and named once."""
        folders: list[str] = []
        unreadable: list[str] = []
        seen: set[tuple[int, int]] = set()
        stack = [str(self.root)]
        while stack:
            folder = stack.pop()
            try:
                found = os.stat(folder)
                if (found.st_dev, found.st_ino) in seen:
                    continue
                seen.add((found.st_dev, found.st_ino))
                with os.scandir(folder) as entries:
                    children = [e.path for e in entries if self._worth_watching(e)]
            except PermissionError:
                unreadable.append(folder)
                continue
            except OSError:
                continue  # gone meanwhile
            folders.append(folder)
            stack.extend(children)
        self._unreadable = tuple(unreadable)
        new = [folder for folder in unreadable if folder not in self._told]
        if new:
            self._told.update(new)
            names = [printable(os.path.relpath(folder, self.root)) for folder in sorted(new)]
            more = f" and {len(names) - _NAMED} more" if len(names) > _NAMED else ""
            log.warning(
                "cannot read %s in %s (permission denied): changes inside are not seen until it "
                "is readable; everything else is watched",
                ", ".join(names[:_NAMED]) + more,
                printable(str(self.root)),
            )
        return folders

    def _worth_watching(self, entry: os.DirEntry[str]) -> bool:
        """A folder the scan would enter: not hidden or excluded, a good name, in the vault."""
        name = entry.name
        if VaultRules.of(self.settings).ignored(name) or name_problem(name):
            return False
        try:
            if not entry.is_dir():
                return False
            real = Path(entry.path).resolve()
        except (OSError, RuntimeError):
            return False
        return real.is_relative_to(self.root) and not any(
            real.is_relative_to(avoided) for avoided in self.avoid
        )

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._told:
            self._told.add(key)
            log.warning("%s", message)


def _permission_denied(error: Exception) -> bool:
    # Polling reports it as a watcher error with the OS's text rather than a PermissionError.
    return isinstance(error, PermissionError) or "os error 13" in str(error)


def _out_of_inotify(error: Exception) -> bool:
    """inotify has no watch or instance left for this user (`fs.inotify.max_user_*`)."""
    text = str(error)
    return "MaxFilesWatch" in text or "Error creating recommended watcher" in text


def _new_folder(changes: set[tuple[watchfiles.Change, str]]) -> bool:
    return any(c == watchfiles.Change.added and os.path.isdir(p) for c, p in changes)


def _readable(folder: str) -> bool:
    """The folder can be listed now, or is gone (either way, worth watching afresh)."""
    try:
        with os.scandir(folder):
            return True
    except FileNotFoundError:
        return True
    except OSError:
        return False
