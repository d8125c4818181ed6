"""`workspace/executeCommand`: `tilecheck.showLowered` (the PyPTO lowering of a document) and
`tilecheck.showRuleDocumentation` (a rule's Markdown, shown through the editor)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.lsp.server import LanguageServer

from tilecheck.core.docs import brief, markdown
from tilecheck.core.registry import by_code
from tilecheck.server.code_actions import SHOW_DOCUMENTATION
from tilecheck.server.convert import documentation_url, repository_url
from tilecheck.server.session import Session

SHOW_LOWERED = "tilecheck.showLowered"


def register(server: LanguageServer, session: Session) -> None:
    # Handlers take the server first: pygls would pass it anyway to a first parameter whose
    # annotation it is a subclass of (`*arguments: object`).
    @server.command(SHOW_LOWERED)
    async def show_lowered(ls: LanguageServer, *arguments: Any) -> dict[str, object]:
        """Arguments: the document URI (or `{"uri": ...}`). Returns `{"uri", "text", "changed",
        "diagnostics"}`: the lowered text, whether anything was lowered, and why not."""
        uri = _uri_argument(arguments)
        if not session.settings.lowering_preview:
            raise JsonRpcInvalidRequest("the lowering preview is off (setting `tilecheck.loweringPreview`)")
        checked = await session.checked(uri)
        if checked is None:
            raise JsonRpcInvalidParams(f"{uri} is not an open document")
        if checked.workspace is None:
            raise JsonRpcInvalidParams(checked.problem or "no configuration")
        result = await session.off_loop(session.lowered, checked)  # in the worker, within the budget
        return {
            "uri": uri,
            "text": result.source,
            "changed": result.changed,
            "diagnostics": [
                {"code": d.code, "line": d.span.line, "column": d.span.column + 1, "message": d.message}
                for d in result.diagnostics
            ],
        }

    @server.command(SHOW_DOCUMENTATION)
    def show_documentation(ls: LanguageServer, *arguments: Any) -> str:
        arguments = _arguments(arguments)
        code = arguments[0] if arguments and isinstance(arguments[0], str) else None
        rule = by_code(code) if code else None
        if rule is None:
            raise JsonRpcInvalidParams(f"unknown rule {code!r}")
        href = documentation_url(rule.CODE, repository_url())
        window = session.capabilities.window
        if (
            href is not None
            and window is not None
            and window.show_document is not None
            and window.show_document.support
        ):
            server.window_show_document(types.ShowDocumentParams(uri=href, external=True))
        else:
            # a message area is no place for a page: what the rule finds, the fix, and the command
            server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Info, message=brief(rule))
            )
        return markdown(rule)  # the whole page, for a client that renders the command's result


def _arguments(arguments: tuple[object, ...]) -> tuple[object, ...]:
    if len(arguments) == 1 and isinstance(arguments[0], (list, tuple)):
        return tuple(arguments[0])  # a client that wraps the arguments once more
    return arguments


def _uri_argument(arguments: tuple[object, ...]) -> str:
    arguments = _arguments(arguments)
    first = arguments[0] if arguments else None
    if isinstance(first, dict):
        first = first.get("uri")
    if not isinstance(first, str):
        raise JsonRpcInvalidParams("expected the document URI as the first argument")
    return first
