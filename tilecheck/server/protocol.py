"""JSON-RPC as the specifications ask, where pygls 2 does otherwise: every request is answered,
and the client's protocol mistakes go to its log instead of popping up.

pygls 2 answers nothing to a request whose params do not deserialise (it shows "Error in server:
Invalid Params" instead), nor to a request after `shutdown`; it ends with exit code 0 after an
`exit` that no `shutdown` preceded; and it shows invalid JSON or a change to a document never
opened as "Error in server" popups. `TilecheckProtocol` (passed as `protocol_cls`) and
`TilecheckServer` fix that by subclassing, leaving pygls itself untouched.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, TypeGuard
from urllib.parse import unquote

import attrs
from cattrs import transform_error
from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, RPCNotification, RPCRequest

logger = logging.getLogger(__name__)


@attrs.define
class Rejected:
    """A message that cannot be handled. A request (`answered`) gets `code` and `reason` as its
    error response, with id null when its own id is unusable; anything else is logged."""

    id: int | str | None
    method: str | None
    code: int
    reason: str
    answered: bool


class TilecheckProtocol(LanguageServerProtocol):
    """pygls' protocol, with the checks and answers described in the module docstring."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.exit_code: int | None = None  # set by `exit`: 0 after `shutdown`, 1 without

    def final_exit_code(self) -> int:
        """The process's exit code: as `exit` set it, else (the client closed the stream) 0 after
        `shutdown` and 1 without, as vscode-languageserver does."""
        if self.exit_code is not None:
            return self.exit_code
        return 0 if self._shutdown else 1

    def structure_message(self, data: dict[str, Any]) -> Any:
        """The message `data` (`json.loads`'s object hook), or `Rejected` when it is a request or
        notification that cannot be structured: pygls would raise, and answer nothing."""
        if "jsonrpc" not in data or "method" not in data or "error" in data:
            return super().structure_message(data)  # a response, or an object inside a message
        method, is_request = data["method"], "id" in data
        message_id = data.get("id")
        if not isinstance(method, str):
            usable = message_id if _usable_id(message_id) else None
            return Rejected(
                usable, None, types.ErrorCodes.InvalidRequest, '"method" must be a string', is_request
            )
        if is_request and not _usable_id(message_id):
            reason = f"the id of a request must be an integer or a string, not {json.dumps(message_id)}"
            return Rejected(None, method, types.ErrorCodes.InvalidRequest, reason, True)
        if data["jsonrpc"] != self.VERSION:
            reason = f'"jsonrpc" must be "{self.VERSION}", not {json.dumps(data["jsonrpc"])}'
            return Rejected(message_id, method, types.ErrorCodes.InvalidRequest, reason, is_request)
        message_type = self.get_message_type(method)
        if message_type is None:  # an unknown method: pygls answers MethodNotFound
            params = data.get("params")  # pygls' generic messages need the (optional) params
            if is_request and _usable_id(message_id):  # (an unusable id was rejected above)
                return JsonRPCRequestMessage(
                    id=message_id, method=method, jsonrpc=self.VERSION, params=params
                )
            return JsonRPCNotification(method=method, jsonrpc=self.VERSION, params=params)
        if is_request != ("id" in attrs.fields_dict(message_type)):
            kind, sent = ("notification", "request") if is_request else ("request", "notification")
            reason = f"{method} is a {kind}, not a {sent}"
            return Rejected(message_id, method, types.ErrorCodes.InvalidRequest, reason, is_request)
        try:
            return self._converter.structure(data, message_type)
        except Exception as error:
            reason = f"invalid params for {method}: {_describe(error)}"
            return Rejected(message_id, method, types.ErrorCodes.InvalidParams, reason, is_request)

    def handle_message(self, message: Any) -> None:
        if not isinstance(message, Rejected):
            message = self._rejection(message)
        if isinstance(message, Rejected):
            self._reject(message)
            return
        if getattr(message, "method", None) == types.EXIT:
            self.exit_code = 0 if self._shutdown else 1
        super().handle_message(message)

    def _rejection(self, message: Any) -> Any:
        """`Rejected` for a structured message that must not reach the handlers, else `message`."""
        if not isinstance(message, (RPCNotification, RPCRequest)):
            return _not_a_message(message) if not hasattr(message, "jsonrpc") else message
        method = message.method
        is_request = isinstance(message, RPCRequest)
        message_id = getattr(message, "id", None)
        workspace = self._workspace
        if method == types.EXIT:  # the one message the specification accepts at any time
            return message
        if self._shutdown:  # pygls drops them: the specification wants requests answered
            reason = f"the server is shut down: {method} is not accepted after shutdown"
            return Rejected(message_id, method, types.ErrorCodes.InvalidRequest, reason, is_request)
        if workspace is None and method != types.INITIALIZE:  # pygls: internal errors
            reason = f"the server is not initialized: {method} is not accepted before initialize"
            return Rejected(message_id, method, types.ErrorCodes.ServerNotInitialized, reason, is_request)
        if workspace is not None and method == types.TEXT_DOCUMENT_DID_CHANGE:
            uri = message.params.text_document.uri
            if unquote(uri) not in workspace.text_documents:  # pygls would raise KeyError
                reason = f"{method} for {uri}, which is not open"
                return Rejected(None, method, types.ErrorCodes.InvalidParams, reason, False)
        return message

    def _reject(self, rejected: Rejected) -> None:
        if rejected.answered:
            logger.warning(
                "answered %s with error %d: %s",
                rejected.method or "a message",
                rejected.code,
                rejected.reason,
            )
            # a plain object: lsprotocol's ResponseErrorMessage leaves out a null id, JSON-RPC needs it
            error = {"code": int(rejected.code), "message": rejected.reason}
            self._send_data({"jsonrpc": self.VERSION, "id": rejected.id, "error": error})
            return
        if self._shutdown:  # the client may have stopped reading
            logger.info("ignored: %s", rejected.reason)
            return
        self._server.window_log_message(
            types.LogMessageParams(
                type=types.MessageType.Warning, message=f"tilecheck: ignored: {rejected.reason}"
            )
        )


class TilecheckServer(LanguageServer):
    """pygls' language server, logging (`window/logMessage`) instead of showing (`showMessage`)
    what went wrong in the message loop: the client's doing (invalid JSON), not the user's."""

    protocol: TilecheckProtocol

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, protocol_cls=TilecheckProtocol, **kwargs)

    def report_server_error(self, error: Exception, source: Any) -> None:
        if source is FeatureRequestError:  # already answered as the request's error
            return
        if source is not JsonRpcException:  # a handler failed: the user's file may go unchecked
            super().report_server_error(error, source)
            return
        if isinstance(error, (json.JSONDecodeError, UnicodeDecodeError)):
            message = f"tilecheck: ignored a message from the client that is not JSON: {error}"
        else:
            message = (
                f"tilecheck: could not handle a message from the client: {type(error).__name__}: {error}"
            )
        logger.error("%s", message)
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=message))


def _usable_id(message_id: object) -> TypeGuard[int | str]:
    """LSP's request ids: `integer | string` (JSON-RPC's fractional and null ids are not)."""
    return isinstance(message_id, str) or (isinstance(message_id, int) and not isinstance(message_id, bool))


def _not_a_message(value: object) -> Rejected:
    """A JSON body that is not a message object (an array: LSP has no batches), answered as
    JSON-RPC asks: Invalid Request, id null. An object without `jsonrpc` keeps its id."""
    if isinstance(value, dict):
        has_method = "method" in value
        message_id = value.get("id") if _usable_id(value.get("id")) else None
        reason = 'a message must have "jsonrpc": "2.0"'
        method = value.get("method")
        return Rejected(
            message_id,
            method if isinstance(method, str) else None,
            types.ErrorCodes.InvalidRequest,
            reason,
            has_method and "id" in value,
        )
    reason = "a message must be a JSON object" + (" (LSP has no batches)" if isinstance(value, list) else "")
    return Rejected(None, None, types.ErrorCodes.InvalidRequest, reason, True)


def _describe(error: Exception) -> str:
    """cattrs' structuring error as `what @ $.params.path`, with the validator's own words and
    the path in the message's JSON names (lsprotocol's attributes are their snake_case)."""
    if not hasattr(error, "exceptions"):
        return f"{type(error).__name__}: {error}"
    described = []
    for line in transform_error(error, format_exception=_format_leaf):
        what, at, path = line.rpartition(" @ ")
        described.append(f"{what}{at}{_json_names(path)}" if at else line)
    return "; ".join(described)


def _json_names(path: str) -> str:
    """`$.params.text_document.language_id` -> `$.params.textDocument.languageId` (and `from_`,
    a Python keyword's attribute, -> `from`)."""
    path = re.sub(r"_(?=[.\[]|$)", "", path)
    return re.sub(r"(?<=[a-z0-9])_([a-z0-9])", lambda match: match.group(1).upper(), path)


def _format_leaf(error: BaseException, expected: type | None) -> str:
    if isinstance(error, KeyError):
        return "required field missing"
    if expected is not None:
        return f"expected {getattr(expected, '__name__', expected)}"
    return str(error) or type(error).__name__
