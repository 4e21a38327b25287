"""Storage: the vector store, a remote Chroma server, the semantic side (memlsp/index)."""
