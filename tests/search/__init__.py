"""Search: fusion, relevance, scope, ranking, related notes (memlsp/search)."""
