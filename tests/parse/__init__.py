"""Parsing a note: frontmatter, links, chunks, masks, tokens (memlsp/parse)."""
