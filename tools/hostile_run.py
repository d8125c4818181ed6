"""What `make hostile`'s categories share: the kernel they check, the in-process runner, and
LSP framing for the cases that talk to a server."""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tilecheck.cli.main import main as tilecheck_main  # noqa: E402

with open(os.path.join(ROOT, "fixtures", "examples", "softmax_mistakes.py"), encoding="utf-8") as _kernel:
    KERNEL = _kernel.read()
Outcome = tuple[int, str, str]  # exit status, standard output, standard error


def run_in_process(arguments: list[str]) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = tilecheck_main(arguments)
        except SystemExit as exit:  # argparse's usage errors
            status = exit.code if isinstance(exit.code, int) else 2
    return status, out.getvalue(), err.getvalue()


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def wait_for_diagnostics(stream: int, uri: str, deadline: float) -> list[dict[str, Any]] | None:
    buffer = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(stream, 65536)
        if not chunk:
            break
        buffer += chunk
        while b"\r\n\r\n" in buffer:
            header, _, rest = buffer.partition(b"\r\n\r\n")
            length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
            if len(rest) < length:
                break
            message, buffer = json.loads(rest[:length]), rest[length:]
            params = message.get("params") or {}
            published = message.get("method") == "textDocument/publishDiagnostics"
            if published and params.get("uri") == uri and params.get("diagnostics"):
                found: list[dict[str, Any]] = params["diagnostics"]
                return found
    return None
