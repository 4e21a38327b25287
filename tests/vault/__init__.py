"""The vault: its link graph, link resolution, roots, file rules, and the real vaults (memlsp/vault)."""
