"""`memlsp mcp`: the vault as an agent's memory, over the Model Context Protocol (the only
package that imports the `mcp` SDK).

A few tools (search, read, links, related, recent, and write) that call the
commands of `commands/` as typed calls, answered by the process that has the vault open when one
does (the models loaded once; `source.py`), else by a live vault of this process's own, so a
tool's answer is the command line's `--json` by construction. `budget.py` cuts every tool's
answer to one budget rule; `tools.py` holds the tools, `writing.py` the `write` tool's checks
and atomic writes, `server.py` presents them on the SDK and `main.py` runs stdio or HTTP.
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.agent.budget import cut_to_fit as cut_to_fit
    from memlsp.agent.main import serve as serve
    from memlsp.agent.server import MemoryServer as MemoryServer
    from memlsp.agent.source import VaultSource as VaultSource
    from memlsp.agent.tools import Memory as Memory

__getattr__ = exports(
    __name__,
    {
        "cut_to_fit": "budget",
        "serve": "main",
        "MemoryServer": "server",
        "VaultSource": "source",
        "Memory": "tools",
    },
)
