"""The vault's socket: a process that keeps a vault live answers the command line on it.

`vault_socket.py` is the socket itself, both ends: the server (`VaultSocket`, one per live vault,
one process per socket) and the client (`ask`, and `start` of a `memlsp serve` when none answers).
`host.py` is the one host of those sockets in a process, used by the language server, `memlsp
serve` and MCP alike. `serve.py` is `memlsp serve` (imported from there: the package's
attribute `serve` is that module). The request and the reply they carry are the
commands' (`commands/request_reply.py`), one layer below, beside the code that answers them; they
are named here too, for the callers of the socket.
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.commands.request_reply import NotMine as NotMine
    from memlsp.commands.request_reply import Refused as Refused
    from memlsp.commands.request_reply import Reply as Reply
    from memlsp.commands.request_reply import Request as Request
    from memlsp.commands.request_reply import settings_key as settings_key
    from memlsp.daemon.host import SocketHost as SocketHost
    from memlsp.daemon.vault_socket import LOG_FILE as LOG_FILE
    from memlsp.daemon.vault_socket import MAX_REQUEST as MAX_REQUEST
    from memlsp.daemon.vault_socket import MAX_SOCKET_PATH as MAX_SOCKET_PATH
    from memlsp.daemon.vault_socket import NoServer as NoServer
    from memlsp.daemon.vault_socket import Unanswered as Unanswered
    from memlsp.daemon.vault_socket import VaultSocket as VaultSocket
    from memlsp.daemon.vault_socket import answers as answers
    from memlsp.daemon.vault_socket import ask as ask
    from memlsp.daemon.vault_socket import ask_started as ask_started
    from memlsp.daemon.vault_socket import socket_path as socket_path
    from memlsp.daemon.vault_socket import start as start
    from memlsp.daemon.vault_socket import supported as supported

__getattr__ = exports(
    __name__,
    {
        "NotMine": "memlsp.commands.request_reply",
        "Refused": "memlsp.commands.request_reply",
        "Reply": "memlsp.commands.request_reply",
        "Request": "memlsp.commands.request_reply",
        "settings_key": "memlsp.commands.request_reply",
        "SocketHost": "host",
        "LOG_FILE": "vault_socket",
        "MAX_REQUEST": "vault_socket",
        "MAX_SOCKET_PATH": "vault_socket",
        "NoServer": "vault_socket",
        "Unanswered": "vault_socket",
        "VaultSocket": "vault_socket",
        "answers": "vault_socket",
        "ask": "vault_socket",
        "ask_started": "vault_socket",
        "socket_path": "vault_socket",
        "start": "vault_socket",
        "supported": "vault_socket",
    },
)
