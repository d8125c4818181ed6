"""Writing files the user owns: atomically, as they were encoded, never over a newer version.

`write_atomic` replaces a file keeping its encoding, byte-order mark, permissions and line
endings (the text carries those), and never overwrites a file that changed meanwhile; every
command that writes a checked file (`--fix`, `--add-ignore`, `lower --write`) goes through it.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import re
import stat
import tempfile
import tokenize


class WriteError(Exception):
    pass


def encode_like(original: bytes, text: str) -> bytes:
    """Encode `text` as `original` was: same declared encoding, same byte-order mark."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(original).readline)
    except SyntaxError:
        encoding = "utf-8"
    bom = original.startswith(codecs.BOM_UTF8)
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError as error:
        raise WriteError(f"the fixed text cannot be encoded as {encoding}: {error.reason}") from None
    return codecs.BOM_UTF8 + data if bom else data


TEMP_SUFFIX = ".tilecheck-tmp"


def write_atomic(path: str, data: bytes, expected: bytes | None = None) -> None:
    """Replace the file at `path` (through symlinks) by `data`, as ruff's `--fix` would.

    Like ruff, a file this user may not write (a read-only 0444 file, unless root) is not
    written, and a file with several hard links is rewritten in place, so that every link sees
    the fix (that write is not atomic). Any other file is replaced in one rename, keeping its
    permission bits (and owner, where allowed), so a killed run leaves the old or the new file.
    With `expected`, the file is left alone when its bytes are no longer `expected`.
    """
    target = os.path.realpath(path)
    try:
        info = os.stat(target)
        os.close(os.open(target, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0)))  # may we write it?
    except OSError as error:
        raise WriteError(error.strerror or str(error)) from None
    remove_stale_temporaries(target)
    if info.st_nlink > 1:
        _write_in_place(target, data, expected)
    else:
        _replace(target, info, data, expected)


def write_output(path: str, data: bytes) -> None:
    """Write a report or picture (`-o FILE`): atomically, creating the file (and its directory)
    when it does not exist, with the permissions a new file gets."""
    directory = os.path.dirname(path)
    try:
        if directory:
            os.makedirs(directory, exist_ok=True)
        if not os.path.lexists(path):
            umask = os.umask(0)
            os.umask(umask)
            info = os.stat_result(
                (stat.S_IFREG | (0o666 & ~umask), 0, 0, 1, os.getuid(), os.getgid(), 0, 0, 0, 0)
            )
            _replace(path, info, data, None, must_exist=False)
            return
    except OSError as error:
        raise WriteError(error.strerror or str(error)) from None
    write_atomic(path, data)


def _unchanged(current: bytes, expected: bytes | None) -> None:
    if expected is not None and current != expected:
        raise WriteError("the file changed while it was being checked; it was not modified")


def _write_in_place(target: str, data: bytes, expected: bytes | None) -> None:
    try:
        with open(target, "r+b") as handle:
            _unchanged(handle.read(), expected)
            handle.seek(0)
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:
        raise WriteError(error.strerror or str(error)) from None


def _replace(
    target: str, info: os.stat_result, data: bytes, expected: bytes | None, *, must_exist: bool = True
) -> None:
    directory, name = os.path.split(target)
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{name}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=directory or "."
        )
    except OSError as error:
        raise WriteError(error.strerror or str(error)) from None
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        if hasattr(os, "chown") and (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
            with contextlib.suppress(OSError):
                os.chown(temporary, info.st_uid, info.st_gid)
        if must_exist:
            with open(target, "rb") as current:
                _unchanged(current.read(), expected)
        os.replace(temporary, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise WriteError(error.strerror or str(error)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def remove_stale_temporaries(target: str) -> list[str]:
    """Remove what a killed run left next to `target` (`.NAME.PID.XXXXXXXX.tilecheck-tmp` of a
    process that no longer runs); the names removed."""
    directory, name = os.path.split(target)
    pattern = re.compile(re.escape(f".{name}.") + r"(\d+)\.[A-Za-z0-9_]+" + re.escape(TEMP_SUFFIX))
    try:
        entries = os.listdir(directory or ".")
    except OSError:
        return []
    removed = []
    for entry in entries:
        match = pattern.fullmatch(entry)
        if match and not _running(int(match[1])):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, entry))
                removed.append(entry)
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return False  # an earlier write of this process was interrupted
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by someone else
    return True
