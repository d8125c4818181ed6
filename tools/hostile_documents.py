"""`make hostile`'s `documents` category: the language server with hostile documents.

The framing is valid; what the editor sends is not kind: a document made of the fuzzer's hostile
constructs (deep nesting, 5,000-digit literals, NUL bytes, recursive macros), lone surrogates,
carriage-return or mixed line ends, a 2 MiB line, more than the 16 MiB a file may have,
characters outside the Basic Multilingual Plane (two UTF-16 units each), then an edit whose
range lies past the end of the text or splits a surrogate pair, and a hover anywhere. The
server must answer the hover and the shutdown, publish diagnostics for the document's last
version, never log a traceback, and exit 0.
"""

from __future__ import annotations

import json
import os
import random
import select
import subprocess
import sys
import time
from typing import Any

from tools.fuzz_cases import DEPTHS, HOSTILE, NESTINGS, _nested
from tools.hostile_run import KERNEL, frame

DEADLINE = 300.0  # seconds for the whole session: far beyond a healthy one on a loaded machine


def _hostile_text(rng: random.Random) -> str:
    how = rng.choice(
        ["construct", "nesting", "surrogate", "line-ends", "long-line", "oversize", "astral", "empty"]
    )
    lines = KERNEL.splitlines(keepends=True)
    where = rng.randrange(len(lines) + 1)
    if how == "construct":
        inserted = rng.choice(HOSTILE) + "\n"
    elif how == "nesting":
        inserted = _nested(rng.choice(NESTINGS), rng.choice(DEPTHS)) + "\n"
    elif how == "surrogate":
        inserted = f"x = '{chr(rng.randrange(0xD800, 0xE000))}'\n"
    elif how == "line-ends":
        return KERNEL.replace("\n", rng.choice(["\r", "\r\n", "\n\r", "\x0c\n"]))
    elif how == "long-line":
        inserted = "x = " + "1 + " * (1 << 19) + "1\n"
    elif how == "oversize":
        return KERNEL + "#" * (17 * 1024 * 1024) + "\n"
    elif how == "astral":
        inserted = "x = '" + "\U0001f600" * rng.randint(1, 50) + "'  # " + "\U00010348" * 3 + "\n"
    else:
        return ""
    return "".join(lines[:where]) + inserted + "".join(lines[where:])


def _change(rng: random.Random, text: str) -> dict[str, Any]:
    """A didChange content change: the whole text, or a range that may lie past the end."""
    if rng.random() < 0.4:
        return {"text": _hostile_text(rng)}
    line_count = text.count("\n") + 1
    start = {"line": rng.randrange(line_count + 3), "character": rng.choice([0, 1, 5, 10**6])}
    end = {"line": start["line"] + rng.randint(0, 2), "character": rng.choice([0, 3, 10**6])}
    return {
        "range": {"start": start, "end": end},
        "text": rng.choice(["", "\U0001f600", "for i in T.Parallel(4):\n"]),
    }


def _messages(buffer: bytearray) -> list[dict[str, Any]]:
    """The complete messages at the start of `buffer`, removed from it."""
    found: list[dict[str, Any]] = []
    while b"\r\n\r\n" in buffer:
        header, _, rest = bytes(buffer).partition(b"\r\n\r\n")
        length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        if len(rest) < length:
            break
        found.append(json.loads(rest[:length]))
        del buffer[: len(header) + 4 + length]
    return found


def documents_case(rng: random.Random, directory: str) -> tuple[str, str | None]:
    uri = "file://" + os.path.join(directory, "k.py")
    first = _hostile_text(rng)
    change = _change(rng, first)
    hover = {"line": rng.randrange(first.count("\n") + 5), "character": rng.choice([0, 4, 17, 10**6])}
    tried = f"opened {len(first)} characters, then {'a range edit' if 'range' in change else 'a new text'}"
    session: list[dict[str, Any]] = [
        {"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": "file://" + directory, "capabilities": {}}},
        {"method": "initialized", "params": {}},
        {"method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": first}}},
        {"method": "textDocument/didChange",
         "params": {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]}},
        {"id": 2, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri}, "position": hover}},
    ]  # fmt: skip
    server = subprocess.Popen(
        [sys.executable, "-m", "tilecheck", "server"],
        cwd=directory,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert server.stdin is not None and server.stdout is not None
    problem = None
    try:
        server.stdin.write(b"".join(frame(message) for message in session))
        server.stdin.flush()
        problem = _await_answers(server.stdout.fileno(), uri, time.monotonic() + DEADLINE)
        server.stdin.write(frame({"id": 3, "method": "shutdown", "params": None}))
        server.stdin.write(frame({"method": "exit", "params": None}))
        server.stdin.flush()
        server.wait(timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        problem = problem or f"the server did not answer and end: {error}"
    finally:
        server.kill()
        errors = server.communicate()[1].decode("utf-8", "replace")
    if problem is None and "Traceback" in errors:
        problem = f"a traceback: {errors[-300:]}"
    if problem is None and server.returncode != 0:
        problem = f"exit {server.returncode}: {errors[-300:]}"
    return tried, problem


def _await_answers(stream: int, uri: str, deadline: float) -> str | None:
    """None once the hover is answered and the document's version 2 has its diagnostics."""
    buffer = bytearray()
    hovered = published = False
    while time.monotonic() < deadline and not (hovered and published):
        ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(stream, 1 << 16) if ready else b""
        if not chunk:
            break
        buffer += chunk
        for message in _messages(buffer):
            if message.get("id") == 2:
                if "error" in message:
                    return f"the hover failed: {message['error']}"
                hovered = True
            params = message.get("params") or {}
            if message.get("method") == "textDocument/publishDiagnostics" and params.get("uri") == uri:
                published = published or params.get("version") in (2, None)
    if not hovered:
        return "no answer to the hover"
    return None if published else "no diagnostics for the document's last version"
