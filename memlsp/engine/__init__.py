"""The engine of one vault: its one writer, the batches it applies, and the snapshots readers take.

`Engine` (engine.py) opens a vault's index, takes its writes and hands out `read()`: a
`Snapshot` (snapshot.py), everything one request reads, frozen, and the questions it answers
(search, links, related notes, notes by name). `VaultWriter` (writer.py) is the only writer; it
applies each group of changes as one `Batch` (batch.py) and publishes the next snapshot.
`Backfill` (backfill.py) fills the vector side a batch of chunks at a time.
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.engine.backfill import Backfill as Backfill
    from memlsp.engine.batch import Batch as Batch
    from memlsp.engine.engine import Engine as Engine
    from memlsp.engine.engine import EngineClosed as EngineClosed
    from memlsp.engine.snapshot import NoteLinks as NoteLinks
    from memlsp.engine.snapshot import Snapshot as Snapshot
    from memlsp.engine.writer import VaultWriter as VaultWriter

__getattr__ = exports(
    __name__,
    {
        "Backfill": "backfill",
        "Batch": "batch",
        "Engine": "engine",
        "EngineClosed": "engine",
        "NoteLinks": "snapshot",
        "Snapshot": "snapshot",
        "VaultWriter": "writer",
    },
)
