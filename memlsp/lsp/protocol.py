"""memlsp's JSON-RPC protocol: every request gets exactly one answer.

pygls 2.1.1 structures each message inside the JSON decoder (an `object_hook`), so a request whose
params lsprotocol rejects raises there, its id is lost and no answer is ever sent; it also serves
requests before `initialize`, drops them after `shutdown`, and answers nothing for a body that is
not JSON. Here `handle_message` gets plain JSON values, checks the envelope, the lifecycle and the
params in that order, answers what it refuses with the JSON-RPC error for it (one log line each),
and passes the rest, structured as pygls would, to pygls; `unreadable` answers a body that is not
JSON.
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
from collections.abc import Callable, Generator
from concurrent.futures import Future
from typing import Any, TypeGuard
from urllib.parse import unquote

import attrs
from cattrs import Converter, transform_error
from cattrs.errors import BaseValidationError
from cattrs.v import format_exception
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcMethodNotFound,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol, default_converter, lsp_method
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    MsgId,
)

from memlsp import wire

log = logging.getLogger(__name__)

_MOST_PROBLEMS = 3  # named in one error message; a client that sends more gets the first ones
_SHORT = 160  # characters of a client's text quoted back in a message

# A request's id as JSON-RPC has it: a string or a number. Integers are what clients send; a
# fractional number is answered with that id too (the specification only advises against it),
# where lsprotocol's types, and pygls's `MsgId`, know integers and strings only.
RequestId = int | str | float


class MemlspProtocol(LanguageServerProtocol):
    """pygls's protocol with the checks above, and a guard on `didChange`: a change to a document
    that is not open, or one not newer than the version held, is dropped with one log line (pygls
    would fail with an error shown to the user, or apply stale edits to the newer text)."""

    def __init__(self, server: Any, converter: Converter) -> None:
        super().__init__(server, converter)
        self.initialize_received = False  # a second `initialize` is refused
        # Once the client asks for `shutdown`, only `exit` is taken: tracked here, on receipt,
        # rather than by pygls (which marks it only once the shutdown handler has run well) or by
        # the server (whose handler never runs for a `shutdown` refused before `initialize`).
        self.shutdown_received = False
        # A client's capabilities are a large tree: one odd value in them must not stop the
        # server from starting, so `initialize` is read as leniently as pygls reads it.
        self._lenient: Converter = default_converter()  # type: ignore[no-untyped-call]
        _exact_primitives(converter)

    # -- reading -----------------------------------------------------------------------------

    def structure_message(self, data: dict[str, Any]) -> Any:
        """The JSON decoder's hook for every object in pygls's own read loop (memlsp runs its own,
        see `main`): left as it is, for `handle_message` to check."""
        return data

    def handle_message(self, message: Any) -> None:
        try:
            self._route(message)
        except Exception as error:
            # A bug here; not passed on, or the read loop would take it for a body that is not JSON.
            log.exception("could not handle a message")
            msg_id = message.get("id") if isinstance(message, dict) else None
            if _is_id(msg_id) and "method" in message:
                failed = JsonRpcInternalError(f"memlsp could not handle it: {error!r}")
                with contextlib.suppress(Exception):  # told above; the client may be gone
                    self._send_error(msg_id, failed)

    def unreadable(self, error: Exception) -> None:
        """A frame's body was not JSON: what the decoder raised."""
        if isinstance(error, RecursionError):
            reason = "nested too deeply"
        elif isinstance(error, UnicodeDecodeError):
            reason = f"not UTF-8 ({_short(str(error))})"
        else:
            reason = f"not JSON ({_short(str(error))})"
        self._refuse(None, None, JsonRpcParseError, f"the message is {reason}")

    # -- the kinds of message ----------------------------------------------------------------

    def _route(self, message: Any) -> None:
        if not isinstance(message, dict):
            not_object = f"a message must be a JSON object, not {wire.json_kind(message)}"
            self._refuse(None, None, JsonRpcInvalidRequest, not_object)
            return
        has_id = "id" in message
        msg_id = message.get("id")
        usable_id = msg_id if _is_id(msg_id) else None
        if "method" not in message:
            if "result" in message or "error" in message:
                self._response(message)
            else:
                needs = "a message needs a 'method' (or, as a response, 'result' or 'error')"
                self._refuse(usable_id, None, JsonRpcInvalidRequest, needs)
            return
        method = message["method"]
        problem = _envelope_problem(message, method, has_id)
        if problem is not None:
            if has_id:
                self._refuse(usable_id, method, JsonRpcInvalidRequest, problem)
            else:
                log.warning("notification ignored: %s", problem)
        elif has_id:
            assert msg_id is not None  # _envelope_problem checked it
            self._request(msg_id, method, message)
        else:
            self._notification(method, message)

    def _request(self, msg_id: RequestId, method: str, message: dict[str, Any]) -> None:
        message_type = self.get_message_type(method)
        refusal = self._lifecycle_refusal(method)
        if method == types.SHUTDOWN:
            self.shutdown_received = True  # even when refused: the client wants the end
        if refusal is not None:
            self._refuse(msg_id, method, *refusal)
        elif message_type is not None and not _is_request_type(message_type):
            problem = "a notification, which takes no 'id'"
            self._refuse(msg_id, method, JsonRpcInvalidRequest, problem)
        elif not self._handles(method):
            self._refuse(msg_id, method, JsonRpcMethodNotFound, "no such method")
        else:
            structured = self._structure(method, message, message_type or JsonRPCRequestMessage)
            if isinstance(structured, str):
                self._refuse(msg_id, method, JsonRpcInvalidParams, structured)
                return
            if method == types.INITIALIZE:
                self.initialize_received = True
            super().handle_message(structured)

    def _lifecycle_refusal(self, method: str) -> tuple[type[JsonRpcException], str] | None:
        """Why a request is refused where the lifecycle stands, if it is."""
        if self.shutdown_received:
            return JsonRpcInvalidRequest, "the server is shut down: only 'exit' is accepted now"
        if not self.initialize_received:
            if method == types.INITIALIZE:
                return None
            problem = "initialize comes first"
            if method == types.SHUTDOWN:
                problem += "; only 'exit' is taken now"
            return JsonRpcServerNotInitialized, problem
        if method == types.INITIALIZE:
            return JsonRpcInvalidRequest, "initialize was already received"
        return None

    def _notification(self, method: str, message: dict[str, Any]) -> None:
        message_type = self.get_message_type(method)
        if method == types.EXIT:
            # Whatever its params: a client that says `exit` wants the process gone.
            super().handle_message(types.ExitNotification())  # type: ignore[arg-type]
        elif not self.initialize_received:
            log.warning("notification %s before initialize: ignored", _name(method))
        elif self.shutdown_received:
            log.warning("notification %s after shutdown: ignored", _name(method))
        elif message_type is not None and _is_request_type(message_type):
            log.warning("%s is a request, sent without an 'id': ignored", _name(method))
        else:
            structured = self._structure(method, message, message_type or JsonRPCNotification)
            if isinstance(structured, str):
                log.warning("notification %s ignored: %s", _name(method), structured)
            else:
                super().handle_message(structured)

    def _response(self, message: dict[str, Any]) -> None:
        """A client's answer to a request of ours (a registration, a progress token)."""
        msg_id = message.get("id")
        if not _is_id(msg_id) or isinstance(msg_id, float):  # ours are integers or strings
            log.warning("a response without a usable id: ignored")
            return
        envelope = {key: message[key] for key in ("id", "result", "error") if key in message}
        response_type: Any = (
            types.ResponseErrorMessage
            if "error" in message
            else self._result_types.pop(msg_id, None) or JsonRPCResponseMessage
        )
        try:
            structured = self._converter.structure({"jsonrpc": "2.0", **envelope}, response_type)
        except Exception as error:
            problem = f"the client's response to {msg_id!r} did not deserialize: {_problems(error)}"
            log.warning("%s", problem)
            # Fail the waiting request rather than leave it waiting forever.
            self._handle_response(msg_id, None, JsonRpcInternalError(problem).to_response_error())
            return
        super().handle_message(structured)

    # -- helpers -----------------------------------------------------------------------------

    def _handles(self, method: str) -> bool:
        return method in self.fm.features or method in self.fm.builtin_features

    def _structure(self, method: str, message: dict[str, Any], message_type: Any) -> Any:
        """The message as pygls structures it, or what is wrong with its params (a string)."""
        envelope: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if "id" in message:
            envelope["id"] = message["id"]
        params = message.get("params")
        params_type: Any = types.METHOD_TO_TYPES.get(method, (None, None, None, None))[2]
        if message_type in (JsonRPCRequestMessage, JsonRPCNotification):
            # Our own methods: the handler gets the JSON value as it came, and checks it.
            fields = {"jsonrpc": "2.0", "method": method, "params": params}
            return (
                message_type(id=message["id"], **fields)
                if "id" in message
                else message_type(**fields)
            )
        if params_type is not None and attrs.has(params_type):
            if params is None and not _required_fields(params_type):
                params = {}  # e.g. `initialized` with null params: nothing to miss
            if not isinstance(params, dict):
                return f"params must be an object, not {wire.json_kind(params)}"
            envelope["params"] = params
        converter = self._lenient if method == types.INITIALIZE else self._converter
        try:
            return converter.structure(envelope, message_type)
        except Exception as error:
            return f"invalid params: {_problems(error)}"

    def _refuse(
        self, msg_id: RequestId | None, method: Any, kind: type[JsonRpcException], problem: str
    ) -> None:
        """Answer a request with an error naming its method (id null when its id is unknown)."""
        message = problem if method is None else f"{_name(method)}: {problem}"
        name = kind.__name__.removeprefix("JsonRpc")
        log.warning("%s: %s (answered %s)", _about(msg_id), message, name)
        self._send_error(msg_id, kind(message))

    def _send_error(self, msg_id: RequestId | None, error: JsonRpcException) -> None:
        """The error response written out here: lsprotocol's would leave a null id out of the
        JSON (JSON-RPC wants it there), and its types take no fractional id."""
        body: dict[str, Any] = {"code": error.code, "message": error.message}
        if error.data is not None:
            body["data"] = error.data
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": body})

    def _send_handler_result(self, future: Future[Any], *, msg_id: MsgId) -> None:
        """A handler's own refusal (bad params, say) is logged in one line, not with pygls's
        traceback; everything else as pygls does it."""
        error = None if future.cancelled() else future.exception()
        if isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError):
            self._request_futures.pop(msg_id, None)
            name = type(error).__name__.removeprefix("JsonRpc")
            log.warning("%s: %s (answered %s)", _about(msg_id), error.message, name)
            self._send_error(msg_id, error)
            return
        super()._send_handler_result(future, msg_id=msg_id)

    # -- writing -----------------------------------------------------------------------------

    def _serialize_message(self, data: Any) -> Any:
        """What `json.dumps` writes for an object that is not JSON (pygls's `default`). The answer
        to one of memlsp's own requests (pygls's response type for a method lsprotocol does not
        know), whose result is a JSON object or array built by memlsp/wire/, is written as it
        is: cattrs would walk every value of it once more before `json.dumps` does (the 2,000
        nodes of a `memlsp/graph` took it tens of ms). Anything in it that is not JSON would still
        come back here, and be written as pygls writes it."""
        if isinstance(data, JsonRPCResponseMessage) and isinstance(data.result, dict | list):
            return {"id": data.id, "jsonrpc": data.jsonrpc, "result": data.result}
        return super()._serialize_message(data)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        """pygls's answer, with what memlsp's own requests take: the graph view's bounds."""
        result = yield from super().lsp_initialize(params)
        result.capabilities.experimental = {"memlspGraph": wire.graph_bounds_json()}
        return result

    # -- document sync -----------------------------------------------------------------------

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        uri, version = params.text_document.uri, params.text_document.version
        document = self.workspace.text_documents.get(unquote(uri))
        if document is None:
            self._tell(f"memlsp: didChange for {uri}, which is not open: ignored")
            return
        if document.version is not None and version <= document.version:
            self._tell(
                f"memlsp: didChange for {uri} at version {version}, not newer than "
                f"{document.version}: ignored"
            )
            return
        yield from super().lsp_text_document__did_change(params)

    def _tell(self, message: str) -> None:
        tell = getattr(self._server, "tell", None)  # MemlspServer's: the log and the client
        if callable(tell):
            tell(message, types.MessageType.Warning)
        else:
            log.warning("%s", message)


class _WrongType(TypeError):
    """A JSON value of another type than the field's."""


def _exact_primitives(converter: Converter) -> None:
    """lsprotocol's converter calls `str(value)` for a string field, `int(value)` for an integer
    and `bool(value)` for a boolean: `"query": null` would search for "None", `"line": 1.5` be
    line 1 and `"includeDeclaration": "no"` true. Such params are refused instead."""
    for kind, name in ((str, "a string"), (int, "an integer"), (bool, "a boolean")):
        converter.register_structure_hook(kind, _exactly(kind, name))
    converter.register_structure_hook(float, _number)
    # Request ids and progress tokens: lsprotocol passes any value through.
    converter.register_structure_hook(int | str, _id)
    converter.register_structure_hook(int | str | None, _optional_id)


def _exactly(kind: type, name: str) -> Callable[[Any, Any], Any]:
    def structure(value: Any, _: Any) -> Any:
        if type(value) is not kind:  # not `isinstance`: true is no integer here
            raise _WrongType(f"expected {name}, not {wire.json_kind(value)}")
        return value

    return structure


def _number(value: Any, _: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _WrongType(f"expected a number, not {wire.json_kind(value)}")
    return float(value)


def _id(value: Any, _: Any) -> RequestId:
    if not _is_id(value):
        raise _WrongType(f"expected a string or a number, not {_id_kind(value)}")
    return value


def _optional_id(value: Any, _: Any) -> RequestId | None:
    return None if value is None else _id(value, _)


def _envelope_problem(message: dict[str, Any], method: Any, has_id: bool) -> str | None:
    if message.get("jsonrpc") != "2.0":
        return "'jsonrpc' must be \"2.0\""
    if not isinstance(method, str):
        return f"'method' must be a string, not {wire.json_kind(method)}"
    if has_id and not _is_id(message["id"]):
        return f"'id' must be a string or a number, not {_id_kind(message['id'])}"
    return None


def _is_id(value: Any) -> TypeGuard[RequestId]:
    if isinstance(value, bool):  # a JSON boolean, which Python counts among the integers
        return False
    if isinstance(value, float):
        # Python's JSON reader takes NaN and Infinity; they could not be written back as an id.
        return math.isfinite(value)
    return isinstance(value, int | str)


def _id_kind(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN or an infinity"
    return wire.json_kind(value)


def _is_request_type(message_type: Any) -> bool:
    return attrs.has(message_type) and "id" in attrs.fields_dict(message_type)


def _required_fields(params_type: Any) -> list[str]:
    return [f.name for f in attrs.fields(params_type) if f.default is attrs.NOTHING]


def _problems(error: Exception) -> str:
    """cattrs's account of what did not structure, short: "params.position: Position.line should
    be in range [0:2147483647], but was -1." (JSON names, not Python's)."""
    if isinstance(error, BaseValidationError):
        lines = transform_error(error, path="$", format_exception=_describe)
    else:
        lines = [f"{type(error).__name__}: {error}"]
    problems = []
    for line in lines:
        description, at, path = line.rpartition(" @ ")
        if not at:
            description, path = line, ""
        path = _camel(path.removeprefix("$").removeprefix("."))
        problems.append(_short(f"{path}: {description}" if path else description))
    extra = len(problems) - _MOST_PROBLEMS
    return "; ".join(problems[:_MOST_PROBLEMS]) + (f"; and {extra} more" if extra > 0 else "")


def _describe(error: BaseException, kind: type | None) -> str:
    ours = isinstance(error, _WrongType) or (kind is None and isinstance(error, ValueError))
    if ours and str(error):
        return str(error)  # lsprotocol's validators say what was out of range
    return format_exception(error, kind)


def _camel(path: str) -> str:
    """`params.text_document.uri` as the client spelled it: `params.textDocument.uri`."""
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path).replace("_.", ".").rstrip("_")


def _name(method: Any) -> str:
    return _short(method) if isinstance(method, str) else "(no method)"


def _about(msg_id: RequestId | None) -> str:
    return "a message" if msg_id is None else f"request {_short(repr(msg_id), 40)}"


def _short(text: str, limit: int = _SHORT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
