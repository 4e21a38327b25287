"""A command asked of the process that has its vault open: the request, the reply, the refusals.

The command line (and MCP) ask a process that keeps the vault live (the language server, `memlsp
serve`) on the vault's socket (memlsp/daemon/) instead of opening the index and loading two
models. A request carries the command's arguments, the client's folder and the settings it would
open the vault with (`settings_key`: a process opened with other settings does not answer); the
reply is what the command printed and its exit status. These values live here, beside the
commands that answer them (`commands/answers.py`), because the socket's layer sits above the
commands: both ends of the socket speak in them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memlsp.settings.table import Settings, answer_key

PROTOCOL = 1


def settings_key(settings: Settings, cache_dir: Path) -> dict[str, str]:
    """What decides a command's answer, as text to compare: a process opened with other settings
    does not answer. The cache folder is compared as the folder it resolves to."""
    return {**answer_key(settings), "cache_folder": str(cache_dir)}


@dataclass(frozen=True, slots=True)
class Request:
    argv: tuple[str, ...]  # the command line after `memlsp`
    cwd: str  # the client's folder: relative paths in `argv` are relative to it
    settings: tuple[tuple[str, str], ...]  # `settings_key` of the settings the client would use
    call: Any = None  # the same as a typed call (commands/calls.py), answered with its JSON

    def json(self) -> dict[str, Any]:
        return {
            "memlsp": PROTOCOL,
            "argv": list(self.argv),
            "cwd": self.cwd,
            "settings": dict(self.settings),
            "call": self.call,
        }


@dataclass(frozen=True, slots=True)
class Reply:
    """What the command printed and its exit status."""

    stdout: str
    stderr: str
    code: int
    answer: dict[str, Any] | None = None  # a typed call's answer, as JSON


class Refused(Exception):
    """The server does not answer this request; the message says why, in one line."""

    kind = "error"


class NotMine(Refused):
    """Another vault, or other settings than this process opened the vault with."""

    kind = "not_mine"


Handler = Callable[[Request], Reply]


def parse_request(line: bytes) -> Request:
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise Refused(f"not a JSON line: {error}") from None
    if not isinstance(data, dict):
        raise Refused("a request must be a JSON object")
    if data.get("memlsp") != PROTOCOL:
        raise Refused(f"unknown protocol {data.get('memlsp')!r}; this server speaks {PROTOCOL}")
    argv, cwd, settings = data.get("argv"), data.get("cwd"), data.get("settings")
    if not isinstance(argv, list) or not all(isinstance(item, str) for item in argv):
        raise Refused("'argv' must be a list of strings")
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        raise Refused("'cwd' must be an absolute path")
    if not isinstance(settings, dict) or not all(isinstance(v, str) for v in settings.values()):
        raise Refused("'settings' must be an object of strings")
    return Request(tuple(argv), cwd, tuple(sorted(settings.items())), data.get("call"))
