"""memlsp mcp, in process, as a process and on the real vaults (memlsp/agent)."""
