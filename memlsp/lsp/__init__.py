"""The language server over the engine (the only package that imports pygls and lsprotocol)."""
