"""The commands a vault answers (`search`, `links`, `related`, `mentions`, `graph`, `read`,
`recent`), the same for the command line, a process that has the vault open, and an agent.

Each command's arguments are one typed, checked value (calls.py: `SearchCall` ... `RecentCall`,
built by `call_of` from the command line or by `call_from_json` from a socket request); its
answer is a function of a snapshot and that value (search.py, links.py, reading.py), turned into
`wire` JSON or text by answers.py: `ANSWERED` names them, `answer_json` gives the JSON,
`print_answer` prints what the command line prints, `answer_on_socket` answers on the vault's
socket. arguments.py holds the command line's parser (`command_parser`, `UsageError`);
graph_view_text.py draws a graph view as text, Mermaid or DOT; request_reply.py is the request
and reply a vault's socket carries (`memlsp serve` and the socket itself are in `daemon/`).
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.commands.answers import ANSWERED as ANSWERED
    from memlsp.commands.answers import answer_json as answer_json
    from memlsp.commands.answers import answer_on_socket as answer_on_socket
    from memlsp.commands.answers import print_answer as print_answer
    from memlsp.commands.arguments import UsageError as UsageError
    from memlsp.commands.arguments import command_parser as command_parser
    from memlsp.commands.calls import Call as Call
    from memlsp.commands.calls import call_from_json as call_from_json
    from memlsp.commands.calls import call_of as call_of

__getattr__ = exports(
    __name__,
    {
        "ANSWERED": "answers",
        "answer_json": "answers",
        "answer_on_socket": "answers",
        "print_answer": "answers",
        "UsageError": "arguments",
        "command_parser": "arguments",
        "Call": "calls",
        "call_from_json": "calls",
        "call_of": "calls",
    },
)
