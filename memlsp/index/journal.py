"""The paths whose indexed state the saved manifest does not describe, kept on disk.

The keyword index commits every change at once, but the manifest (which says what each indexed
file's stat was) is saved only now and then: saving it takes ~0.3 s at 10k notes. A process that
dies in between leaves an index that the manifest cannot vouch for: an editor buffer's unsaved
text, or a note created and deleted since. Each path is appended here before the keyword index
commits it, and the journal is emptied once a manifest that covers it is saved; on the next open,
every path it names is read again from the disk (or forgotten), so a restart equals a fresh index.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)


class ChangeJournal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._written: set[str] = set()  # already on disk since the last `clear`

    def read(self) -> set[str] | None:
        """The paths a dead process left unsaved (a torn last line, from a kill mid-write, is
        skipped); None when the journal exists but cannot be read: then nothing is vouched for."""
        try:
            lines = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        except FileNotFoundError:
            return set()
        except OSError as error:
            log.warning("cannot read %s (%s)", self.path, error)
            return None
        paths: set[str] = set()
        for line in lines:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, str):
                paths.add(value)
        self._written |= paths
        return paths

    def add(self, paths: Iterable[str]) -> None:
        """Record `paths` before their change is committed; written through to the OS at once,
        so a killed process cannot lose it (a power cut may: the OS had not flushed it)."""
        new = [path for path in dict.fromkeys(paths) if path not in self._written]
        if not new:
            return
        lines = "".join(json.dumps(path, ensure_ascii=True) + "\n" for path in new)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(lines)
        self._written.update(new)

    def clear(self) -> None:
        """A manifest covering every recorded path was saved."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        self._written.clear()
