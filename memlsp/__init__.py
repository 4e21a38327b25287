"""memlsp: search and navigate a Markdown vault from any editor or the command line."""

__version__ = "0.1.0"
