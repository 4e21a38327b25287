"""The engine: writer, snapshots, backfill, recovery after a crash, live edits against a fresh index."""
