"""Editor features and vault queries as a library (memlsp/navigation)."""
