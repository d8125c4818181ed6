"""Reading source files: regular files only, bounded, never blocking; decoded as Python does.

Every reader of a file's text goes through here: the files a run checks, the project modules
the kernel model and the PyPTO constants follow, and the excerpts a report quotes.
"""

from __future__ import annotations

import io
import os
import stat
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

from tilecheck.core import meta
from tilecheck.core.meta import Problem
from tilecheck.core.types import Diagnostic, Span

MAX_FILE_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class ReadFailure:
    """Why a file was not read: `reason` completes "Cannot read file: ..."."""

    reason: str
    too_large: bool = False
    subject: str = "file"  # "directory": one a walk could not list


def read_bytes(
    path: str, limit: int = MAX_FILE_BYTES, *, follow_symlinks: bool = True
) -> bytes | ReadFailure:
    """The bytes of the regular file `path`; never blocks, never reads more than `limit` bytes
    however large the file claims or turns out to be; without `follow_symlinks`, a symbolic
    link is refused (a cache entry that points at /dev/zero or a secret is no entry)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        status = os.stat(path) if follow_symlinks else os.lstat(path)
        problem = "it is a symbolic link" if stat.S_ISLNK(status.st_mode) else _not_regular(status.st_mode)
        if stat.S_ISDIR(status.st_mode):
            return _directory_failure(path, problem)
        if problem:  # before opening: opening a device can act
            return ReadFailure(problem)
        descriptor = os.open(path, flags)
        with open(descriptor, "rb", buffering=0, closefd=True) as handle:
            opened = os.fstat(descriptor)
            problem = _not_regular(opened.st_mode)  # it may have been swapped meanwhile
            if problem:
                return ReadFailure(problem)
            data = read_at_most(handle.read, limit, opened.st_size)
    except BlockingIOError:
        return ReadFailure("reading it would block")
    except OSError as error:
        return ReadFailure(error.strerror or str(error), subject=_listed_kind(path))
    if len(data) > limit:
        return ReadFailure(f"more than {limit} bytes", too_large=True)
    return data


def read_at_most(read: Callable[[int], bytes], limit: int, expected: int | None = None) -> bytes:
    """What `read` gives, up to one byte more than `limit` (so that too much is known without
    reading the rest: an endless stream, a file that grows). Each read allocates what it asks
    for: the first asks for one byte more than the `expected` size, if known, and after a short
    read a small one confirms the end (a warm run reads two small files per file it checks)."""
    chunks, size = [], 0
    want = expected + 1 if expected is not None else 1 << 20
    while size <= limit:
        asked = max(1, min(want, 1 << 20, limit + 1 - size))
        chunk = read(asked)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        want = 1 << 20 if len(chunk) >= asked else 1 << 12
    return b"".join(chunks)


def read_source(path: str, limit: int | None = None) -> tuple[bytes | None, Diagnostic | None]:
    """`read_bytes`, with an unreadable-file diagnostic when the file cannot be read."""
    found = read_bytes(path, MAX_FILE_BYTES if limit is None else limit)
    if not isinstance(found, ReadFailure):
        return found, None
    if found.too_large:
        message = f"File is too large to check ({found.reason})"
    else:
        message = f"Cannot read {found.subject}: {found.reason}"
    return None, meta.at_start(Problem.UNREADABLE_FILE, path, message)


def _directory_failure(path: str, problem: str) -> ReadFailure:
    """A directory where a file was expected: one that cannot be listed (a walk met it and
    went on) says why it could not be listed."""
    try:
        os.scandir(path).close()
    except OSError as error:
        return ReadFailure(error.strerror or str(error), subject="directory")
    return ReadFailure(problem)


def _listed_kind(path: str) -> str:
    """Gives "directory" when the folder's listing says `path` is one: in a folder that can be listed
    but not searched, a walk meets a subdirectory it can neither list nor look up."""
    folder, name = os.path.split(path)
    try:
        with os.scandir(folder or os.curdir) as entries:
            for entry in entries:
                if entry.name == name:
                    return "directory" if entry.is_dir(follow_symlinks=False) else "file"
    except OSError:
        pass
    return "file"


def _not_regular(mode: int) -> str:
    if stat.S_ISREG(mode):
        return ""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    return f"it is {kind}, not a regular file"


def decode(data: bytes) -> str:
    """Decode as Python does (a BOM or coding cookie, else UTF-8), without the BOM; raises
    SyntaxError, LookupError or UnicodeDecodeError as Python would refuse the file."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


def read_text(path: str, limit: int = MAX_FILE_BYTES) -> str | None:
    """The decoded text of a file (a project module, a file a report quotes), else None."""
    data = read_bytes(path, limit)
    if isinstance(data, ReadFailure):
        return None
    try:
        return decode(data)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return None


def decode_source(path: str, data: bytes) -> tuple[str, Diagnostic | None]:
    """`decode`, with an encoding-error diagnostic at the first undecodable byte."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        if "unknown encoding" in str(error) or "encoding problem" in str(error):
            message = f"Cannot decode file: {error}"
            return "", meta.at_start(Problem.ENCODING_ERROR, path, message)
        encoding = "utf-8"  # undecodable first lines: let the decoder say where
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        start = getattr(error, "start", 0)
        line = data.count(b"\n", 0, start) + 1
        column = len(data[data.rfind(b"\n", 0, start) + 1 : start].decode(encoding, "replace"))
        reason = getattr(error, "reason", str(error))
        message = f"Cannot decode file as {encoding}: {reason} (byte {data[start : start + 1]!r})"
        return "", meta.diagnostic(Problem.ENCODING_ERROR, path, Span.point(line, column), message)
    return (text[1:] if text.startswith("\ufeff") else text), None
