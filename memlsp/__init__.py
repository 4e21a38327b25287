"""memlsp: search and navigate a Markdown vault from any editor or the command line.

The packages are the layers, lowest first: values and settings (`model`, `settings/`), text to
values (`parse/`, `embed/`), the link graph and the indexes (`vault/`, `index/`), search and
vault-wide questions (`search/`, `sync/`, `queries/`), the engine (`engine/`), editor features,
the live vault, the wire JSON and the commands (`navigation/`, `live/`, `wire/`, `commands/`), the
vault's socket (`daemon/`), and the three ways in: `cli`, `lsp/`, `agent/`. docs/ARCHITECTURE.md
walks through them.
"""

__version__ = "0.1.0"
