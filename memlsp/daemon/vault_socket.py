"""A local socket per live vault, so that `memlsp search` asks a process that has the models loaded:
both ends, the server (`VaultSocket`) and the client (`ask`).

A process that keeps a vault live (the language server, `memlsp serve`) answers the commands of
commands/answers.py on a Unix socket in the vault's cache folder: a command then costs a
connection instead of opening the index and loading two models. One process
answers per socket, the one that holds an exclusive lock on the file beside it; the system releases
that lock when its process dies, so a socket file left behind is removed and bound again, and a
socket that answers is never taken.

One JSON object per line each way, in ASCII (JSON escapes keep a name's lone surrogate as it was).
A request carries the command's arguments (from an agent, also as a typed call), the client's
folder and the settings it would open the vault with; the answer is what the command printed and
its exit status (a call's: its JSON), or why this process does not answer (`not_mine`, `error`):
the command line then runs the command itself (the values: `commands/request_reply.py`).

Only what the client needs is imported at the top: the client must stay light (no index, no model).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memlsp.commands.request_reply import Handler, Refused, Reply, Request, parse_request
from memlsp.settings.files import is_private

if sys.platform != "win32":
    import fcntl

log = logging.getLogger(__name__)

SOCKET_NAME = "memlsp.sock"
MAX_SOCKET_PATH = 100  # bytes: an address holds 108 on Linux and 104 on macOS, with its NUL
MAX_REQUEST = 1 << 20  # bytes of a request: arguments and a folder, a few hundred in practice
MAX_ANSWER = 1 << 28  # bytes of an answer: `--queries` over thousands of queries prints a lot
CONNECTIONS = 8  # requests answered at once; more are told the server is busy
READ_TIMEOUT = 10.0  # seconds a client may take to send its request line
CONNECT_TIMEOUT = 2.0
ANSWER_TIMEOUT = 300.0  # seconds a client waits for an answer (a first index may come first)
START_TIMEOUT = 30.0  # seconds a client waits for the socket of a daemon it started
ENDED_GRACE = 3.0  # ... and after that daemon exited, for another started at the same moment
DRAIN = 1 << 24  # bytes read and dropped after answering a request that was too long
LOG_FILE = "serve.log"


def supported() -> bool:
    """Unix sockets and file locks; elsewhere every command runs in its own process."""
    return sys.platform != "win32" and hasattr(socket, "AF_UNIX")


def socket_path(cache_dir: Path) -> Path | None:
    """The socket of the vault whose cache folder this is: in a private folder inside it, or, when
    that path is too long for a socket address, in this user's private temp folder under a name
    made from the cache folder's path. None when no private folder is to be had."""
    path = cache_dir / "run" / SOCKET_NAME
    if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
        return path
    # Not `config.private_temp_dir()`: when that folder is not private it makes a new one each
    # time, and a client would never find the socket a server made in its own.
    folder = Path(tempfile.gettempdir()) / f"memlsp-{os.geteuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    if not is_private(folder, directory=True):
        return None
    digest = hashlib.sha256(os.fsencode(cache_dir)).hexdigest()[:24]
    path = folder / f"{digest}.sock"
    return path if len(os.fsencode(path)) <= MAX_SOCKET_PATH else None


class Unanswered(Exception):
    """No answer to use: the command line runs the command itself."""


class NoServer(Unanswered):
    """Nothing listens on the socket."""


def _line(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode("ascii") + b"\n"


class _TooLong(Exception):
    pass


def _read_line(connection: socket.socket, limit: int) -> bytes:
    """One line (without its newline), or what came before the other end stopped sending."""
    parts: list[bytes] = []
    size = 0
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            return b"".join(parts)
        end = chunk.find(b"\n")
        if end >= 0:
            chunk = chunk[:end]
        size += len(chunk)
        if size > limit:
            raise _TooLong(f"a line is limited to {limit:,} bytes")
        parts.append(chunk)
        if end >= 0:
            return b"".join(parts)


# -- the server ----------------------------------------------------------------------------------


class VaultSocket:
    """Answers on one vault's socket, from a thread of its own and a thread per request."""

    def __init__(self, path: Path, handle: Handler) -> None:
        self.path = path
        self.handle = handle
        self._owner: int | None = None  # the descriptor of the locked file beside the socket
        self._listener: socket.socket | None = None
        self._inode = 0
        self._stopping = threading.Event()
        self._slots = threading.BoundedSemaphore(CONNECTIONS)
        self._count_lock = threading.Lock()
        self._close_lock = threading.Lock()
        self._in_flight = 0
        self._last = time.monotonic()  # when the last request ended

    def open(self) -> bool:
        """Bind the socket and answer on it; False when another process answers there already
        (or no private folder can hold it)."""
        if not supported() or not _private_folder(self.path.parent):
            log.warning("%s: no private folder for the socket; not serving", self.path)
            return False
        owner = os.open(f"{self.path}.owner", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(owner, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(owner)
            log.info("%s: another process answers here", self.path)
            return False
        if _answers(self.path):  # its lock file was removed under it: still, do not steal
            os.close(owner)
            log.info("%s: another process answers here", self.path)
            return False
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # left by a process that died
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        before = os.umask(0o177)  # the socket is never open to others, not even for a moment
        try:
            listener.bind(str(self.path))
        except OSError:
            listener.close()
            os.close(owner)
            raise
        finally:
            os.umask(before)
        os.chmod(self.path, 0o600)
        self._inode = os.stat(self.path).st_ino
        listener.listen(CONNECTIONS)
        listener.settimeout(0.2)  # how soon `close` is noticed
        self._owner, self._listener = owner, listener
        threading.Thread(target=self._accept, name=f"socket {self.path.name}", daemon=True).start()
        log.info("answering on %s", self.path)
        return True

    def close(self) -> None:
        """Idempotent, from any thread (a server's shutdown may race its own opening)."""
        self._stopping.set()
        with self._close_lock:
            listener, owner = self._listener, self._owner
            self._listener = self._owner = None
        if listener is not None:
            listener.close()
            with contextlib.suppress(OSError):
                if os.stat(self.path).st_ino == self._inode:
                    os.unlink(self.path)
        if owner is not None:
            os.close(owner)

    def idle(self) -> float:
        """Seconds since the last request ended; 0 while one is being answered."""
        with self._count_lock:
            return 0.0 if self._in_flight else time.monotonic() - self._last

    def _accept(self) -> None:
        listener = self._listener
        assert listener is not None
        while not self._stopping.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stopping.is_set():
                    return
                log.exception("%s: accept failed", self.path)
                self._stopping.wait(0.5)
                continue
            if not self._slots.acquire(blocking=False):
                _refuse(connection, Refused(f"busy: {CONNECTIONS} requests are being answered"))
                continue
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with self._count_lock:
            self._in_flight += 1
        try:
            with connection:
                connection.settimeout(READ_TIMEOUT)
                try:
                    line = _read_line(connection, MAX_REQUEST)
                except _TooLong as error:
                    _refuse(connection, Refused(f"request too long: {error}"), drain=True)
                    return
                if not line:
                    return  # a look whether someone answers, not a request
                connection.sendall(_line(self._answer(line)))
        except OSError as error:
            log.info("a client left before its answer: %s", error)
        finally:
            with self._count_lock:
                self._in_flight -= 1
                self._last = time.monotonic()
            self._slots.release()

    def _answer(self, line: bytes) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            request = parse_request(line)
            reply = self.handle(request)
        except Refused as error:
            log.info("refused: %s", error)
            return {error.kind: str(error)}
        except Exception as error:  # a bug answers as an error; the client runs it itself
            log.exception("answering %r failed", line[:200])
            return {"error": f"internal error: {error}"}
        log.info("%s answered in %.3f s", " ".join(request.argv[:1]), time.perf_counter() - started)
        typed = {} if reply.answer is None else {"answer": reply.answer}
        return {"stdout": reply.stdout, "stderr": reply.stderr, "code": reply.code, **typed}


def _refuse(connection: socket.socket, error: Refused, *, drain: bool = False) -> None:
    with contextlib.suppress(OSError), connection:
        connection.sendall(_line({error.kind: str(error)}))
        if drain:
            # Closing with unread input resets the connection, and the client could lose the
            # answer: read what it still sends first (bounded, like everything else here).
            connection.shutdown(socket.SHUT_WR)
            left = DRAIN
            while left > 0 and (chunk := connection.recv(65536)):
                left -= len(chunk)


def _private_folder(folder: Path) -> bool:
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    with contextlib.suppress(OSError):
        info = os.lstat(folder)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():
            os.chmod(folder, 0o700)
    return is_private(folder, directory=True)


def answers(path: Path) -> bool:
    """Whether a process listens on `path` (one of this user's, in a private folder)."""
    return _trusted(path) and _answers(path)


def _answers(path: Path) -> bool:
    """Whether a process listens on `path`."""
    try:
        _connect(path).close()
    except OSError:  # refused (nobody listens), gone, or not a socket at all
        return False
    return True


def _connect(path: Path) -> socket.socket:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(CONNECT_TIMEOUT)
    try:
        connection.connect(str(path))
    except BaseException:
        connection.close()
        raise
    return connection


# -- the client ----------------------------------------------------------------------------------


def ask(path: Path, request: Request, timeout: float = ANSWER_TIMEOUT) -> Reply:
    """The answer of the process serving `path`; `NoServer` when none does, `Unanswered` when it
    does not answer this request."""
    if not _trusted(path):
        raise NoServer(f"no socket of this user's at {path}")
    try:
        connection = _connect(path)
    except (FileNotFoundError, ConnectionRefusedError) as error:
        raise NoServer(f"nobody answers on {path}: {error.strerror}") from None
    except OSError as error:
        raise Unanswered(f"cannot connect to {path}: {error}") from None
    try:
        with connection:
            connection.settimeout(timeout)
            connection.sendall(_line(request.json()))
            line = _read_line(connection, MAX_ANSWER)
    except (OSError, _TooLong) as error:
        raise Unanswered(f"no answer on {path}: {error}") from None
    return _reply(line)


def _reply(line: bytes) -> Reply:
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Unanswered(f"an answer that is not JSON: {line[:80]!r}") from None
    if not isinstance(data, dict):
        raise Unanswered("an answer that is not a JSON object")
    for kind in ("not_mine", "error"):
        if kind in data:
            raise Unanswered(f"the server answered {kind.replace('_', ' ')}: {data[kind]}")
    stdout, stderr, code = data.get("stdout"), data.get("stderr"), data.get("code")
    if not (isinstance(stdout, str) and isinstance(stderr, str) and type(code) is int):
        raise Unanswered("an answer without stdout, stderr and code")
    return Reply(stdout, stderr, code, data.get("answer"))  # the client checks a call's answer


def _trusted(path: Path) -> bool:
    """The socket and its folder are this user's, and the folder is closed to others: nobody
    else can have put a server there to read the queries or answer them."""
    if not is_private(path.parent, directory=True):
        return False
    try:
        own = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISSOCK(own.st_mode) and own.st_uid == os.geteuid()


def start(vault: Path, flags: Sequence[str]) -> subprocess.Popen[bytes]:
    """`memlsp serve VAULT FLAGS` in a session of its own, talking to nobody's terminal."""
    return subprocess.Popen(
        [sys.executable, "-m", "memlsp", "serve", str(vault), *flags],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def ask_started(
    path: Path, request: Request, daemon: subprocess.Popen[bytes], wait: float = START_TIMEOUT
) -> Reply:
    """Ask a daemon just started, once its socket answers (within `wait` seconds)."""
    deadline = time.monotonic() + wait
    tick = threading.Event()
    while True:
        try:
            return ask(path, request)
        except NoServer:
            if daemon.poll() is not None:
                # It may have lost the socket to another one started at the same moment, which
                # answers soon; else it failed, and waiting longer would not help.
                deadline = min(deadline, time.monotonic() + ENDED_GRACE)
            if time.monotonic() > deadline:
                ended = daemon.poll()
                how = "did not answer" if ended is None else f"exited with status {ended}"
                raise Unanswered(f"`memlsp serve` {how} (its log: {LOG_FILE})") from None
            tick.wait(0.02)
