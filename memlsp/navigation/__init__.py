"""Editor features over the engine, as plain functions and values: no protocol types here.

Each module answers one editor question (definition, references, hover, outline, call hierarchy,
workspace symbols) from the engine's link graph and file text; the LSP layer only converts
positions and result types.
"""
