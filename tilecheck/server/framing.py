"""The server's input framing, checked before pygls sees it: a message's headers are bounded
lines of `Name: value`, with one `Content-Length` no larger than `MAX_MESSAGE_BYTES`, and its
body is exactly that long.

pygls reads whatever it is given: a `Content-Length: 99999999999` header makes it allocate that
much (a MemoryError that ends the server with a traceback), and a length one byte off leaves it
reading headers out of the middle of bodies forever (alive, answering nothing). A stream whose
framing is broken cannot be resynchronised, so `FramedInput` ends it instead: it logs what was
wrong, and reads as the end of input, so pygls stops, and the server exits (1: no `shutdown`).
A length one byte off is found at the next message: its headers begin with the previous body's
last byte, or lack the first byte of their own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import BinaryIO

MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # four 16 MiB documents, JSON-escaped
MAX_HEADER_BYTES = 8192
_HEADER = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([^\r\n]*?)[ \t]*\r?\n")


class FramedInput:
    """The standard input as pygls reads it (`readline` for headers, `read(n)` for a body),
    ending at the first framing error, which `on_error` receives."""

    def __init__(self, stream: BinaryIO, on_error: Callable[[str], None]) -> None:
        self._stream = stream
        self._on_error = on_error
        self._length: int | None = None  # the Content-Length of the headers read so far
        self._in_headers = False
        self._broken = False

    def _fail(self, reason: str) -> bytes:
        self._broken = True
        self._on_error(f"ending the session: the client's message framing is broken: {reason}")
        return b""

    def readline(self) -> bytes:
        if self._broken:
            return b""
        line = self._stream.readline(MAX_HEADER_BYTES + 1)
        if not line:
            if self._in_headers:
                return self._fail("the input ended inside a message's headers")
            return b""
        if len(line) > MAX_HEADER_BYTES:
            return self._fail(f"a header line is longer than {MAX_HEADER_BYTES} bytes")
        if line in (b"\r\n", b"\n"):
            if self._length is None:
                return self._fail("a message has no Content-Length header")
            return line
        self._in_headers = True
        match = _HEADER.fullmatch(line)
        if match is None:
            shown = line[:60].decode("ascii", "backslashreplace")
            return self._fail(f"expected a header (`Name: value`), got {shown!r}")
        if match[1].lower() == b"content-length":
            value = match[2]
            if not value.isdigit() or len(value) > 20:
                return self._fail(
                    f"Content-Length is not a number of bytes: {value.decode('ascii', 'replace')!r}"
                )
            length = int(value)
            if length > MAX_MESSAGE_BYTES:
                return self._fail(
                    f"a message of {length} bytes is larger than the limit ({MAX_MESSAGE_BYTES} bytes)"
                )
            self._length = length
            return b"Content-Length: %d\r\n" % length  # as pygls expects it, whatever the spacing
        return line

    def read(self, size: int) -> bytes:
        if self._broken:
            return b""
        expected, self._length, self._in_headers = self._length, None, False
        if expected is None or size != expected:
            return self._fail("a body without its Content-Length")
        chunks, remaining = [], size
        while remaining:
            chunk = self._stream.read(min(remaining, 1 << 20))
            if not chunk:
                return self._fail(f"the input ended {remaining} bytes before the end of a message's body")
            chunks.append(chunk)
            remaining -= len(chunk)
        # A body that is not JSON is the protocol's to answer (it is logged, and the session goes
        # on); a Content-Length that was off shows in the next message's headers, which then
        # do not parse.
        return b"".join(chunks)
