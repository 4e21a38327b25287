"""Editor features over a vault view, as plain functions and values: no protocol types here.

Each module answers one editor question (definition, references, hover, outline, call hierarchy,
workspace symbols) from a `VaultView` (vault/view.py: the link graph and file text of one
revision); none imports the engine or takes a lock. The LSP layer only converts positions and
result types.
"""
