"""The language server (`memlsp --stdio`): the only package that imports pygls and lsprotocol.

`main.py` starts it; `server.py` is `MemlspServer`, the parts put together and how a handler
reaches a note; `features/` holds one module per group of requests, handlers of a few lines;
`convert.py` turns domain values into LSP values. The parts that talk to the client on their
own (`vault_events.py`, `progress.py`, `diagnostics.py`) get a narrow port to it
(`client_port.py`), never the server. docs/ARCHITECTURE.md has the table of its modules.
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.lsp.client_port import ClientPort as ClientPort
    from memlsp.lsp.diagnostics import Publisher as Publisher
    from memlsp.lsp.main import create_server as create_server
    from memlsp.lsp.main import serve as serve
    from memlsp.lsp.server import MemlspServer as MemlspServer
    from memlsp.lsp.vault_events import VaultEvents as VaultEvents

__getattr__ = exports(
    __name__,
    {
        "ClientPort": "client_port",
        "Publisher": "diagnostics",
        "create_server": "main",
        "serve": "main",
        "MemlspServer": "server",
        "VaultEvents": "vault_events",
    },
)
