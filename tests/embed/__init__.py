"""The embedders, offline models and the bilingual layout (memlsp/embed)."""
