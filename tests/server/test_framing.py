"""The server's input framing: an oversized Content-Length is refused without allocating it, and
a stream whose framing is broken (a length one byte off, a header that is not one) ends the
session with a logged error instead of a traceback or a server that answers nothing forever."""

from __future__ import annotations

import json

import pytest

from tests.server.raw_client import DEADLINE, RawServer
from tilecheck.server.framing import MAX_MESSAGE_BYTES

LISTED = b'{"jsonrpc": "2.0", "id": 7, "method": "shutdown", "params": [1]}'  # one short ends in "]"
PREFIX = "tilecheck server: error: ending the session: the client's message framing is broken: "


def body(message: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode()


@pytest.fixture
def server(tmp_path):
    started = RawServer(str(tmp_path))
    yield started
    started.kill()


def initialized(server: RawServer, root) -> None:
    server.initialize(str(root))


def test_an_oversized_content_length_is_refused_without_allocating_it(server, tmp_path):
    initialized(server, tmp_path)
    server.send_bytes(b"Content-Length: 99999999999\r\n\r\n{}")
    code = server.process.wait(DEADLINE)
    assert code == 1  # no `shutdown` came first
    assert server.process.stderr is not None
    errors = server.process.stderr.read().decode()
    assert (
        PREFIX + f"a message of 99999999999 bytes is larger than the limit ({MAX_MESSAGE_BYTES} bytes)"
        in errors
    )
    assert "Traceback" not in errors and "MemoryError" not in errors


@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        (lambda b: b"Content-Length: %d\r\n\r\n" % (len(b) - 1) + b, "expected a header (`Name: value`), got '}Content-Length: "),
        (lambda _: b"Content-Length: %d\r\n\r\n" % (len(LISTED) - 1) + LISTED, "expected a header (`Name: value`), got '}Content-Length: "),
        (lambda b: b"Content-Length: %d\r\n\r\n" % (len(b) + 1) + b, "a message has no Content-Length header"),
        (lambda b: b"Content-Length: x\r\n\r\n" + b, "Content-Length is not a number of bytes: 'x'"),
        (lambda b: b"Content-Type: utf-8\r\n\r\n" + b, "a message has no Content-Length header"),
        (lambda b: b"garbage\r\n\r\n" + b, "expected a header (`Name: value`), got 'garbage\\r\\n'"),
        (lambda b: b"X-" + b"a" * 10000 + b": 1\r\n", "a header line is longer than 8192 bytes"),
    ],
    ids=["one-short", "short-ending-in-a-bracket", "one-long", "not-a-number", "no-length", "not-a-header", "endless-header"],
)  # fmt: skip
def test_broken_framing_ends_the_session_with_a_logged_error(server, tmp_path, frame, reason):
    initialized(server, tmp_path)
    hover = body({"id": 7, "method": "shutdown", "params": None})
    following = body({"id": 8, "method": "shutdown", "params": None})
    server.send_bytes(frame(hover) + b"Content-Length: %d\r\n\r\n" % len(following) + following)
    code = server.process.wait(DEADLINE)
    assert server.process.stderr is not None
    errors = server.process.stderr.read().decode()
    assert code == 1
    assert errors.splitlines()[-1].startswith(PREFIX + reason)
    # a body that is not JSON (a length one byte off) is pygls' to log, with its traceback
    assert errors.count("Traceback") == errors.count("Unable to handle message")


def test_well_framed_messages_with_other_spacing_and_headers_are_read(server, tmp_path):
    initialized(server, tmp_path)
    shutdown = body({"id": 9, "method": "shutdown", "params": None})
    server.send_bytes(
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:%d\r\n\r\n"
        % len(shutdown)
        + shutdown
    )
    assert server.response(9)["result"] is None
    server.notify("exit", None)
    assert server.process.wait(DEADLINE) == 0
