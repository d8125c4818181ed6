"""The cache's files as untrusted input: a cache directory can come with a checked-out tree, be
a FIFO or a file, be unwritable or full, and hold anything an attacker wrote.

An entry is a regular file (never followed through a link, never blocking, at most
`MAX_ENTRY_BYTES`) whose first line names the format and a MAC over the entry's key and its
payload, keyed by a secret of the user's (outside any tree: `secret_places`), so an entry copied
to another key, corrupted, or written by anyone without the secret is a miss, never a result;
without a private secret nothing is cached.
The payload is JSON nested at most `MAX_NESTING` deep. A directory is used only when tilecheck
made it (its `CACHEDIR.TAG`) or it is empty, and `clean` removes only such a directory.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import stat
from typing import Any

from tilecheck.source.reading import ReadFailure, read_bytes

FORMAT = 5  # bump when the entry layout changes (4: the MAC line; 5: absent places apart)
MAGIC = b"tilecheck-cache"
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # twice the largest file checked, with its diagnostics
MAX_NESTING = 64  # an entry's JSON is 5 deep; deeper is not ours
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by tilecheck.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
GITIGNORE = "# Automatically created by tilecheck.\n*\n"
SECRET_BYTES = 32


class NotACache(Exception):
    """`clean` refused a directory; the message says why."""


def secret_places() -> list[str]:
    """Where the user's MAC key may live, in order: `$XDG_CACHE_HOME/tilecheck/cache-key`, then
    under `~/.cache`, the home taken from `HOME` and from the password database (`HOME` may be
    unset, as under some service managers, or wrong). Only absolute places: a relative one would
    name a directory of the tree being checked, where whoever wrote the tree could plant a key."""
    bases = [os.environ.get("XDG_CACHE_HOME", "")]
    bases += [os.path.join(home, ".cache") for home in (os.environ.get("HOME", ""), _password_home())]
    places: list[str] = []
    for base in bases:
        place = os.path.join(base, "tilecheck", "cache-key")
        if os.path.isabs(base) and place not in places:
            places.append(place)
    return places


def _password_home() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, OSError):  # no password database (Windows), or no entry
        return ""


def user_secret() -> bytes | None:
    """The user's MAC key, made on first use (mode 0600) in the first place it can be; None when
    there is no private key anywhere: then nothing is cached, since an entry sealed without a
    secret could be forged by anyone who can write the cache directory."""
    for path in secret_places():
        found = _private_key(path)
        if found is None:
            with contextlib.suppress(OSError):
                _make_key(path)
                found = _private_key(path)
        if found is not None:
            return found
    return None


def _private_key(path: str) -> bytes | None:
    """The key at `path` if it is a regular file of ours that no one else can read."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        handle = os.open(path, flags)
    except OSError:
        return None
    try:
        status = os.fstat(handle)
        ours = not hasattr(os, "geteuid") or status.st_uid == os.geteuid()
        if not stat.S_ISREG(status.st_mode) or not ours or status.st_mode & 0o077:
            return None
        found = os.read(handle, 1024)
    except OSError:
        return None
    finally:
        os.close(handle)
    return found if len(found) >= SECRET_BYTES else None


def _make_key(path: str) -> None:
    import secrets
    import tempfile

    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-key-")  # 0600
    try:
        os.write(handle, secrets.token_bytes(SECRET_BYTES))
        os.close(handle)
        with contextlib.suppress(FileExistsError):  # another run made one first: use it
            os.link(temporary, path)
    finally:
        os.unlink(temporary)


def _mac(secret: bytes, key: str, payload: bytes) -> bytes:
    return hmac.new(secret, key.encode() + b"\0" + payload, hashlib.sha256).hexdigest().encode()


def seal(secret: bytes, key: str, entry: dict[str, Any]) -> bytes:
    payload = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return b"%s %d %s\n%s" % (MAGIC, FORMAT, _mac(secret, key, payload), payload)


def unseal(secret: bytes, key: str, path: str) -> dict[str, Any] | None:
    """The entry stored for `key` at `path`, or None: absent, not a regular file, too large,
    another format, a MAC that does not match, or JSON that is not an entry."""
    data = read_bytes(path, MAX_ENTRY_BYTES, follow_symlinks=False)
    if isinstance(data, ReadFailure):
        return None
    header, _, payload = data.partition(b"\n")
    parts = header.split(b" ")
    if len(parts) != 3 or parts[0] != MAGIC or parts[1] != b"%d" % FORMAT:
        return None
    if not hmac.compare_digest(parts[2], _mac(secret, key, payload)):
        return None
    if _nesting(payload) > MAX_NESTING:
        return None
    try:
        entry = json.loads(payload.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError):
        return None
    return entry if isinstance(entry, dict) else None


_NOT_QUOTES_OR_BRACKETS = bytes(byte for byte in range(256) if byte not in b'"[]{}')
MAX_BRACKETS = 1_000_000  # an entry has a few dozen per diagnostic
_INNERMOST = re.compile(rb"\[\]|\{\}")


def _outside_strings(payload: bytes) -> bytes:
    """The brackets of `payload` that are not inside a JSON string, found with byte operations
    (a regular expression over every string cost a warm run a sixth of its time). The escapes
    that could hide a quote (`\\\\`, `\\"`) go first, as JSON reads them left to right; then the
    quotes alternate in and out. An unterminated string's brackets count, as outside."""
    if b"\\" in payload:  # a search is cheaper than two replacements that find nothing
        payload = payload.replace(b"\\\\", b"").replace(b'\\"', b"")
    plain = payload.translate(None, _NOT_QUOTES_OR_BRACKETS)
    if plain.count(b'"') % 2 == 0:  # every string ends
        # Two adjacent quotes are an empty string or the end of one and the start of the next,
        # with nothing outside between: dropping them keeps every other bracket in or out, and
        # leaves no quote at all when no string holds a bracket (an entry's strings seldom do).
        plain = plain.replace(b'""', b"")
        if b'"' not in plain:
            return plain
    parts = plain.split(b'"')
    outside = parts[::2] if len(parts) % 2 else [*parts[::2], parts[-1]]
    return b"".join(outside)


def _nesting(payload: bytes) -> int:
    """How deep `payload`'s brackets nest outside its strings, without parsing it (a JSON
    parser recurses, and the CLI's recursion limit is high)."""
    brackets = _outside_strings(payload)
    if len(brackets) > MAX_BRACKETS:
        return MAX_NESTING + 1
    # Well-nested brackets lose one level to each pass that drops the innermost pairs: a few
    # passes in C for an entry (5 deep), not a Python loop over its hundreds of brackets.
    inner, passes = brackets, 0
    while inner and passes <= MAX_NESTING:
        shorter = _INNERMOST.sub(b"", inner)
        if len(shorter) == len(inner):
            break  # mismatched: counted below
        inner, passes = shorter, passes + 1
    if not inner:
        return passes
    depth = deepest = 0
    for byte in brackets:
        depth += 1 if byte in b"[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_NESTING:
                break
    return deepest


def write_atomic(path: str, data: bytes | str) -> None:
    import tempfile  # only to write: a fully cached run writes nothing

    directory = os.path.dirname(path)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def is_tilecheck_cache(directory: str) -> bool:
    tag = read_bytes(os.path.join(directory, "CACHEDIR.TAG"), 4096, follow_symlinks=False)
    return not isinstance(tag, ReadFailure) and tag == CACHEDIR_TAG.encode()


def adopt(directory: str) -> str | None:
    """Make `directory` usable as the cache (create and tag it); why not, when it cannot be."""
    try:
        status = os.stat(directory)
    except FileNotFoundError:
        status = None
    except OSError as error:
        return f"cannot look at it: {error.strerror or error}"
    try:
        if status is None:
            _create(directory)
        elif not stat.S_ISDIR(status.st_mode):
            return "it is not a directory"
        elif not is_tilecheck_cache(directory):
            if os.listdir(directory):
                return "it is not empty and has no CACHEDIR.TAG written by tilecheck"
            _tag(directory)
    except OSError as error:
        return f"cannot write it: {error.strerror or error}"
    return None


def _tag(directory: str) -> None:
    write_atomic(os.path.join(directory, "CACHEDIR.TAG"), CACHEDIR_TAG)
    write_atomic(os.path.join(directory, ".gitignore"), GITIGNORE)


def _create(directory: str) -> None:
    """A new cache directory appears with its tag in it (made aside, renamed into place), so a
    concurrent run never sees it untagged and refuses it."""
    import shutil
    import tempfile

    parent = os.path.dirname(os.path.abspath(directory))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(dir=parent, prefix=".tmp-tilecheck-cache-")
    try:
        _tag(staging)
        os.rename(staging, directory)
    except OSError:
        if not is_tilecheck_cache(directory):  # not another run's, made meanwhile
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def clean(directory: str) -> bool:
    """Remove a cache directory (`tilecheck clean`); False when there was none. Raises
    `NotACache` for anything but a directory tilecheck made (never a symbolic link to one)."""
    try:
        status = os.lstat(directory)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise NotACache(f"cannot look at it: {error.strerror or error}") from None
    if stat.S_ISLNK(status.st_mode):
        raise NotACache("it is a symbolic link")
    if not stat.S_ISDIR(status.st_mode):
        raise NotACache("it is not a directory")
    if not is_tilecheck_cache(directory):
        raise NotACache("it has no CACHEDIR.TAG written by tilecheck, so it is not a tilecheck cache")
    import shutil

    try:
        shutil.rmtree(directory)
    except OSError as error:
        raise NotACache(f"removing it failed: {error.strerror or error}") from None
    return True
