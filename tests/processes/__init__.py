"""Whole memlsp processes: several on one vault, a hostile vault, the heap settings."""
