"""The file watcher and the activity counter (memlsp/sync)."""
