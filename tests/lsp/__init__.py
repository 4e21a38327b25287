"""The language server over stdio, as editors talk to it (memlsp/lsp)."""
