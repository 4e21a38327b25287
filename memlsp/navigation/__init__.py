"""Editor features at a cursor or in the note in front of the user, over a vault view, as plain
functions and values: no protocol types here.

Each module answers one editor question (definition, references, hover and its safe Markdown,
outline, call hierarchy, workspace symbols, completion, diagnostics, quick fixes, a note's own
unlinked mentions, links by meaning, rename and file moves, link counts) from a `VaultView`
(vault/view.py: the link graph and file text of one revision, and its per-revision memo); none
imports the engine or takes a lock. Questions about the whole vault that the command line and the
MCP tools ask too (the graph view, a note's mentions elsewhere, reading, recent notes) are in
`queries/`. The LSP layer only converts positions and result types.
"""
