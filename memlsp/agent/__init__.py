"""`memlsp mcp`: the vault as an agent's memory, over the Model Context Protocol.

A few tools (search, read, links, related, recent, write) answered exactly as the command line
answers `memlsp search|read|graph|related|recent --json`: by the process that has the vault open
when one does (the models loaded once), else by a live vault of this process's own.
"""
