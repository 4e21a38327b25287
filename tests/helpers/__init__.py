"""What the tests (and the benchmarks) share; each module says what it is for.

- `vault`: the fixture vault, writing notes into a folder, parsing notes and graphs in memory
- `engine`: an `Engine` over a real index in a temporary folder, and asking it things
- `fake_embedder`: a deterministic embedder, in process or behind an HTTP endpoint
- `memory_vault`: a vault in a dictionary, as navigation sees it, with edits applied to it
- `lsp_client`: the one JSON-RPC client for `python -m memlsp --stdio` (tests and benchmarks)
- `consistency`: what an index shows, captured from an engine, a server or the CLI, to compare
- `stdio_server`: an editor's session with `python -m memlsp --stdio`, and waiting until it has
  applied every change
- `edit_ops`, `edit_replay` and `edit_scenarios`: random edits to a vault, playing them on an
  engine or a server compared with a fresh index at checkpoints, and scenarios of them
- `views`: a note's graph, unlinked mentions and related notes, as rows to compare
- `shrink`: delta debugging of a list of operations that fails
- `editors`: running a real editor headless, its environment kept in a temporary folder
- `cli`: the memlsp command line run as a process, allowed to ask a running server
- `fixtures`: fixtures several modules share (an embedding endpoint, an indexed engine)
"""
