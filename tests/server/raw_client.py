"""A language-server client over raw stdio, for what pytest-lsp cannot do: start the server in a
chosen working directory, send malformed framing, and watch the process itself."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from typing import Any

DEADLINE = 300.0  # seconds; only a server that is stuck ever waits this long


class RawServer:
    def __init__(self, cwd: str, env: dict[str, str] | None = None, command: list[str] | None = None) -> None:
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "tilecheck", "server"],
            cwd=cwd,
            env={**os.environ, **(env or {})},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.next_id = 0
        self.seen: list[dict[str, Any]] = []  # every message waited through, in order
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            assert length is not None
            self.messages.put(json.loads(stream.read(length)))

    # sending ---------------------------------------------------------------------------------
    def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    # receiving -------------------------------------------------------------------------------
    def wait_for(self, matches: Any, timeout: float = DEADLINE) -> dict[str, Any]:
        """The next message for which `matches(message)` is true (server requests get null)."""
        while True:
            message = self.messages.get(timeout=timeout)
            if message is None:
                raise EOFError("the server closed its output")
            self.seen.append(message)
            if "id" in message and "method" in message:  # a request from the server
                self.send({"id": message["id"], "result": None})
            if matches(message):
                return message

    def response(self, request_id: int) -> dict[str, Any]:
        return self.wait_for(lambda m: m.get("id") == request_id and "method" not in m)

    def diagnostics(self, uri: str, version: int | None = None) -> list[dict[str, Any]]:
        def published(message: dict[str, Any]) -> bool:
            if message.get("method") != "textDocument/publishDiagnostics":
                return False
            params = message["params"]
            return bool(params["uri"] == uri and (version is None or params.get("version") == version))

        result: list[dict[str, Any]] = self.wait_for(published)["params"]["diagnostics"]
        return result

    # a session -------------------------------------------------------------------------------
    def initialize(self, root: str) -> None:
        uri = "file://" + root
        request = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri,
                "workspaceFolders": [{"uri": uri, "name": "root"}],
                "capabilities": {},
            },
        )
        self.response(request)
        self.notify("initialized", {})

    def open(self, path: str, text: str, version: int = 1) -> str:
        uri = "file://" + path
        document = {"uri": uri, "languageId": "python", "version": version, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})
        return uri

    def finish(self) -> int:
        """Shut down politely; the exit code."""
        self.response(self.request("shutdown", None))
        self.notify("exit", None)
        return self.process.wait(DEADLINE)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
