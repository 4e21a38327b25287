"""Keeping the index in step with the folder: scanning it, watching it, and the queue of
changes (editor buffers, file events, rescans) the writer takes in batches.
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.sync.activity import Activity as Activity
    from memlsp.sync.not_notes import NotNote as NotNote
    from memlsp.sync.not_notes import why_not_a_note as why_not_a_note
    from memlsp.sync.prepare import prepare_file as prepare_file
    from memlsp.sync.queue import BufferText as BufferText
    from memlsp.sync.queue import ChangeQueue as ChangeQueue
    from memlsp.sync.queue import DiskChanged as DiskChanged
    from memlsp.sync.queue import Rescan as Rescan
    from memlsp.sync.scan import is_indexable as is_indexable
    from memlsp.sync.scan import read_text as read_text
    from memlsp.sync.scan import scan_vault as scan_vault
    from memlsp.sync.watcher import VaultWatcher as VaultWatcher

__getattr__ = exports(
    __name__,
    {
        "Activity": "activity",
        "NotNote": "not_notes",
        "why_not_a_note": "not_notes",
        "prepare_file": "prepare",
        "BufferText": "queue",
        "ChangeQueue": "queue",
        "DiskChanged": "queue",
        "Rescan": "queue",
        "is_indexable": "scan",
        "read_text": "scan",
        "scan_vault": "scan",
        "VaultWatcher": "watcher",
    },
)
