"""End-to-end: a real `tilecheck server` process driven by pytest-lsp, per client profile."""

from __future__ import annotations

import json
import pathlib
import queue
import subprocess
import sys
import threading

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.support import (
    DATA,
    PROFILES,
    PULL_PROFILE,
    PUSH_PROFILES,
    diagnostics,
    open_document,
    pulls,
    server_config,
    start,
    summary,
)

SOFTMAX = DATA / "softmax_mistakes.py"
# (code, 0-based line, UTF-16 column) of softmax_mistakes.py, as `tilecheck check` reports them 1-based
SOFTMAX_EXPECTED = [
    ("TL104", 21, 16),
    ("TL101", 22, 25),
    ("TL104", 23, 46),
    ("TL103", 25, 16),
    ("TL102", 29, 25),
    ("TL105", 30, 20),
]


@pytest_lsp.fixture(config=server_config(), params=PROFILES)
async def client(lsp_client: LanguageClient, request):
    lsp_client.profile = request.param
    await start(lsp_client, request.param, DATA)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_initialize_advertises_pull_only_to_pulling_clients(client: LanguageClient):
    caps = client.capabilities
    assert caps is not None
    # the result of initialize is not kept by pytest-lsp: ask the question through behaviour
    uri = open_document(client, SOFTMAX)
    items = await diagnostics(client, uri, version=1)
    assert summary(items) == SOFTMAX_EXPECTED
    first = items[0]
    assert first.source == "tilecheck"
    assert first.severity == types.DiagnosticSeverity.Error
    assert first.message.startswith("Local buffer `row_max` is indexed by T.Parallel loop variable `i`")
    assert "\nhelp: " in first.message  # the help line follows the message
    assert first.code_description is None  # no repository URL configured: no invented link
    assert first.data["fix"]["safe"] is False


@pytest.mark.asyncio
async def test_push_or_pull_never_both(client: LanguageClient):
    uri = open_document(client, SOFTMAX)
    items = await diagnostics(client, uri, version=1)
    assert len(items) == 6
    if pulls(client):
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri))
        )
        unchanged = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(uri), previous_result_id=report.result_id
            )
        )
        assert unchanged.kind == "unchanged"
        assert client.publishes == []
    else:
        assert [p.uri for p in client.publishes] == [uri]


@pytest.mark.parametrize("profile", [PULL_PROFILE])
def test_pull_profile_declares_pull(profile):
    from tests.server.support import capabilities

    assert capabilities(profile).text_document.diagnostic is not None
    for push in PUSH_PROFILES:
        assert capabilities(push).text_document.diagnostic is None


# -- JSON-RPC robustness, byte by byte (what pytest-lsp's typed client cannot send) ---------------


class RawClient:
    """A `tilecheck server` process spoken to in raw JSON-RPC; every message it sends is kept."""

    def __init__(self, directory: pathlib.Path) -> None:
        self.stderr = (directory / "server.stderr").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tilecheck.server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=directory,
        )
        self.inbox: queue.Queue[dict | None] = queue.Queue()
        self.received: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            length = None
            while (line := stdout.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not line or length is None:
                self.inbox.put(None)
                return
            self.inbox.put(json.loads(stdout.read(length)))

    def write(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.process.stdin.flush()

    def send(self, message: dict) -> None:
        self.write(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def response(self, message_id: object, timeout: float = 60.0) -> dict:
        """The response to `message_id` (everything received before it is kept in `received`)."""
        while True:
            message = self.inbox.get(timeout=timeout)
            assert message is not None, "the server closed its output"
            self.received.append(message)
            if "method" in message and "id" in message:  # a request of the server's: nothing to say
                self.send({"id": message["id"], "result": None})
            elif "method" not in message and message.get("id") == message_id:
                return message

    def ask(self, message_id: object, method: str, **fields: object) -> dict:
        self.send({"id": message_id, "method": method, **fields})
        return self.response(message_id)

    def initialize(self, root: pathlib.Path) -> None:
        params = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
        assert "result" in self.ask("init", "initialize", params=params)
        self.send({"method": "initialized", "params": {}})

    def shown_and_logged(self) -> tuple[list[str], list[str]]:
        def texts(method: str) -> list[str]:
            return [m["params"]["message"] for m in self.received if m.get("method") == method]

        return texts("window/showMessage"), texts("window/logMessage")

    def wait(self, timeout: float = 60.0) -> int:
        try:
            return self.process.wait(timeout)
        finally:
            self.stderr.close()

    def close(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            self.process.wait()
        self.stderr.close()


@pytest.fixture
def raw(tmp_path):
    client = RawClient(tmp_path)
    yield client
    client.close()


def _error(response: dict) -> tuple[int, str]:
    assert "result" not in response, response
    return response["error"]["code"], response["error"]["message"]


HOVER_DOCUMENT = {"uri": SOFTMAX.as_uri()}
INVALID_PARAMS = [
    (
        "textDocument/hover",
        {"textDocument": HOVER_DOCUMENT, "position": {"line": -1, "character": 0}},
        "invalid params for textDocument/hover: Position.line should be in range [0:2147483647], "
        "but was -1. @ $.params.position",
    ),
    (
        "textDocument/hover",
        {"textDocument": HOVER_DOCUMENT, "position": {"line": 0, "character": "x"}},
        "invalid params for textDocument/hover: expected int @ $.params.position.character",
    ),
    (
        "textDocument/hover",
        {"textDocument": HOVER_DOCUMENT},
        "invalid params for textDocument/hover: required field missing @ $.params.position",
    ),
    ("textDocument/hover", None, "invalid params for textDocument/hover: expected HoverParams @ $.params"),
    (
        "textDocument/codeAction",
        {
            "textDocument": HOVER_DOCUMENT,
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        },
        "invalid params for textDocument/codeAction: required field missing @ $.params.context",
    ),
]


def test_requests_whose_params_do_not_deserialise_are_answered_invalid_params(raw, tmp_path):
    raw.initialize(tmp_path)
    for number, (method, params, message) in enumerate(INVALID_PARAMS):
        assert _error(raw.ask(number, method, params=params)) == (-32602, message), (method, params)
    assert _error(raw.ask("no-params", "textDocument/hover")) == (
        -32602,
        "invalid params for textDocument/hover: required field missing @ $.params",
    )
    # the server goes on: a well-formed hover on a document that is not open has no answer but null
    hover = {"textDocument": HOVER_DOCUMENT, "position": {"line": 0, "character": 0}}
    assert raw.ask("fine", "textDocument/hover", params=hover) == {
        "jsonrpc": "2.0",
        "id": "fine",
        "result": None,
    }
    assert raw.shown_and_logged()[0] == []  # answered, not popped up


def test_malformed_messages_are_answered_invalid_request_and_unknown_methods_method_not_found(raw, tmp_path):
    raw.initialize(tmp_path)
    raw.write(b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "shutdown"}')
    assert _error(raw.response(None)) == (
        -32600,
        'the id of a request must be an integer or a string, not {"a": 1}',
    )
    raw.write(b"[]")
    assert _error(raw.response(None)) == (-32600, "a message must be a JSON object (LSP has no batches)")
    raw.write(b'{"id": 7, "method": "shutdown"}')
    assert _error(raw.response(7)) == (-32600, 'a message must have "jsonrpc": "2.0"')
    assert _error(raw.ask(8, "shutdown", jsonrpc="1.0")) == (-32600, '"jsonrpc" must be "2.0", not "1.0"')
    assert _error(raw.ask(9, 5)) == (-32600, '"method" must be a string')
    didopen = {"textDocument": {"uri": SOFTMAX.as_uri(), "languageId": "python", "version": 1, "text": ""}}
    assert _error(raw.ask(10, "textDocument/didOpen", params=didopen)) == (
        -32600,
        "textDocument/didOpen is a notification, not a request",
    )
    # pygls' generic request needs params: without them an unknown method was an internal error
    assert _error(raw.ask(11, "tilecheck/bogus")) == (-32601, "Method Not Found: tilecheck/bogus")
    assert _error(raw.ask(12, "$/bogus", params={"x": 1})) == (-32601, "Method Not Found: $/bogus")
    assert raw.ask(13, "shutdown") == {"jsonrpc": "2.0", "id": 13, "result": None}
    raw.send({"method": "exit"})
    assert raw.wait() == 0
    assert raw.shown_and_logged()[0] == []


def test_client_protocol_errors_are_logged_not_shown(raw, tmp_path):
    raw.initialize(tmp_path)
    never_opened = (tmp_path / "never-opened.py").as_uri()
    changes = [{"text": "x = 1\n"}]
    raw.send(
        {
            "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": never_opened, "version": 2}, "contentChanges": changes},
        }
    )
    raw.send({"method": "textDocument/didOpen", "params": {"textDocument": {"uri": never_opened}}})
    raw.write(b"{not json")
    raw.send({"method": "$/bogus"})  # an unknown notification without params: ignored, as the spec says
    assert raw.ask("after", "shutdown")["result"] is None  # the server read all the above first
    shown, logged = raw.shown_and_logged()
    assert shown == []
    assert logged == [
        f"tilecheck: ignored: textDocument/didChange for {never_opened}, which is not open",
        "tilecheck: ignored: invalid params for textDocument/didOpen: required field missing @ "
        "$.params.textDocument.languageId; required field missing @ $.params.textDocument.version; "
        "required field missing @ $.params.textDocument.text",
        "tilecheck: ignored a message from the client that is not JSON: "
        "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    ]


def test_requests_after_shutdown_are_invalid_requests_and_exit_then_ends_with_0(raw, tmp_path):
    raw.initialize(tmp_path)
    assert raw.ask(1, "shutdown")["result"] is None
    hover = {"textDocument": HOVER_DOCUMENT, "position": {"line": 0, "character": 0}}
    assert _error(raw.ask(2, "textDocument/hover", params=hover)) == (
        -32600,
        "the server is shut down: textDocument/hover is not accepted after shutdown",
    )
    assert _error(raw.ask(3, "shutdown")) == (
        -32600,
        "the server is shut down: shutdown is not accepted after shutdown",
    )
    raw.send({"method": "exit"})
    assert raw.wait() == 0


def test_exit_without_shutdown_ends_with_1(raw, tmp_path):
    raw.initialize(tmp_path)
    raw.send({"method": "exit"})
    assert raw.wait() == 1


def test_the_client_closing_the_stream_without_shutdown_ends_with_1(raw, tmp_path):
    raw.initialize(tmp_path)
    assert raw.process.stdin is not None
    raw.process.stdin.close()
    assert raw.wait() == 1


def test_requests_before_initialize_are_answered_server_not_initialized(raw, tmp_path):
    hover = {"textDocument": HOVER_DOCUMENT, "position": {"line": 0, "character": 0}}
    assert _error(raw.ask(1, "textDocument/hover", params=hover)) == (
        -32002,
        "the server is not initialized: textDocument/hover is not accepted before initialize",
    )
    didopen = {"textDocument": {"uri": SOFTMAX.as_uri(), "languageId": "python", "version": 1, "text": ""}}
    raw.send({"method": "textDocument/didOpen", "params": didopen})  # dropped, as the specification says
    raw.initialize(tmp_path)
    assert raw.ask(2, "shutdown")["result"] is None
    raw.send({"method": "exit"})
    assert raw.wait() == 0
    assert raw.shown_and_logged() == (
        [],
        [
            "tilecheck: ignored: the server is not initialized: textDocument/didOpen is not accepted before initialize"
        ],
    )


def test_server_help_says_what_it_is():
    run = subprocess.run(
        [sys.executable, "-m", "tilecheck", "server", "--help"], capture_output=True, text=True, check=True
    )
    text = " ".join(run.stdout.split())
    assert text.startswith("usage: tilecheck server [-h] Run tilecheck's Language Server Protocol server, ")
    assert "speaking JSON-RPC on stdin and stdout" in text
    assert text.endswith(
        "Setting it up in Neovim, VS Code, Emacs and Helix: docs/editors.md. options: -h, --help show this help message and exit"
    )


def test_error_paths_name_the_json_fields():
    from tilecheck.server.protocol import _json_names

    assert _json_names("$.params.text_document.language_id") == "$.params.textDocument.languageId"
    assert _json_names("$.params.items[0].from_") == "$.params.items[0].from"  # lsprotocol's `from_`
    assert _json_names("$.params.context.only[0]") == "$.params.context.only[0]"
