"""A live vault as a person reads about it (memlsp/live)."""
