"""Settings from every source, and the VS Code extension's copy of them (memlsp/settings, config)."""
