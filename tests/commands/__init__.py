"""The command line, its answers, and memlsp serve with the vault's socket (memlsp/commands, daemon)."""
