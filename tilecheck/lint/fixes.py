"""Applying fixes: text edits by (line, column) spans, re-parsed, iterated, written atomically.

A rule attaches a `Fix` (a title, one or more `Edit`s, and whether it is safe) to a
diagnostic. `apply_fixes` applies non-overlapping fixes (identical fixes count once);
`fix_text` repeats lint-and-fix until nothing more applies, dropping any fix after which
the file would not parse; `write_atomic` replaces a file keeping its encoding, byte-order
mark, permissions and line endings, and never overwrites a file that changed meanwhile.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import itertools
import os
import re
import stat
import tempfile
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from tilecheck.core.types import Diagnostic, Edit, Fix
from tilecheck.source import guards as nesting

if TYPE_CHECKING:
    from tilecheck.lint.context import Context

MAX_ROUNDS = 10
_NEWLINE = re.compile(r"\r\n|\r|\n")


class WriteError(Exception):
    pass


def line_starts(text: str) -> list[int]:
    """Offsets of the first character of each line (lines end at \\n, \\r\\n or \\r, as in Python)."""
    return [0, *(match.end() for match in _NEWLINE.finditer(text))]


def to_offset(starts: list[int], text: str, line: int, column: int) -> int:
    if line > len(starts):
        return len(text)
    return min(starts[line - 1] + column, len(text))


def newline_of(text: str) -> str:
    match = _NEWLINE.search(text)
    return match.group() if match else "\n"


def replace_node(
    ctx: Context, node: cst.CSTNode, top: cst.CSTNode, text: str, *, title: str, safe: bool
) -> Fix:
    """A fix replacing the source of `node` (inside module-level statement `top`) by `text`."""
    return Fix(title, (Edit(ctx.span(node, top), text),), safe=safe)


def _ranges(text: str, starts: list[int], fix: Fix) -> list[tuple[int, int, str]]:
    newline = newline_of(text)
    edits = []
    for edit in fix.edits:
        span = edit.span
        start = to_offset(starts, text, span.line, span.column)
        end = to_offset(starts, text, span.end_line, span.end_column)
        new = edit.replacement if newline == "\n" else _NEWLINE.sub(newline, edit.replacement)
        edits.append((start, max(start, end), new))
    return sorted(edits)


def _overlaps(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    if a[0] == a[1] == b[0] == b[1]:
        return True  # two insertions at one place
    return a[0] < b[1] and b[0] < a[1]


def apply_with_report(source: str, fixes: Sequence[Fix]) -> tuple[str, list[int]]:
    """Apply what can be applied; returns the text and the indices of the fixes it contains."""
    starts = line_starts(source)
    order = sorted(range(len(fixes)), key=lambda i: _ranges(source, starts, fixes[i])[:1] or [(0, 0, "")])
    accepted: list[tuple[int, int, str]] = []
    seen: dict[tuple, bool] = {}
    applied: list[int] = []
    for index in order:
        edits = _ranges(source, starts, fixes[index])
        key = tuple(edits)
        if key in seen:
            if seen[key]:
                applied.append(index)
            continue
        inner = any(_overlaps(a, b) for a, b in itertools.pairwise(edits))
        ok = not inner and not any(_overlaps(a, b) for a in edits for b in accepted)
        seen[key] = ok
        if ok:
            accepted.extend(edits)
            applied.append(index)
    pieces = []
    cursor = 0
    for start, end, new in sorted(accepted):
        pieces += [source[cursor:start], new]
        cursor = end
    pieces.append(source[cursor:])
    return "".join(pieces), sorted(applied)


def apply_fixes(source: str, fixes: Iterable[Fix]) -> str:
    """`source` with every non-overlapping fix applied (the first of two overlapping ones wins)."""
    return apply_with_report(source, list(fixes))[0]


def parses(text: str) -> bool:
    if nesting.refuse(text) is not None:  # never hand libcst what could crash it
        return False
    try:
        cst.parse_module(text)
    except Exception:
        return False
    return True


def apply_parsing(source: str, fixes: Sequence[Fix]) -> tuple[str, list[int]]:
    """Like apply_with_report, but drops every fix after which the text would not parse."""
    text, applied = apply_with_report(source, fixes)
    if not applied or parses(text):
        return text, applied
    kept: list[int] = []
    for index in applied:
        trial, _ = apply_with_report(source, [fixes[i] for i in (*kept, index)])
        if parses(trial):
            kept.append(index)
    if not kept:
        return source, []
    text, inner = apply_with_report(source, [fixes[i] for i in kept])
    return text, [kept[i] for i in inner]


@dataclass
class FixOutcome:
    text: str
    fixed: list[Diagnostic]  # the diagnostics whose fix was applied
    result: object  # the engine's FileAnalysis for `text`


def fixable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    return diagnostic.fix is not None and (diagnostic.fix.safe or unsafe)


def fix_text(
    text: str, lint: Callable[[str], object], *, unsafe: bool = False, first: object | None = None
) -> FixOutcome:
    """Lint (unless `first` is the result for `text`), apply the applicable fixes, lint again,
    until nothing more applies."""
    result = first if first is not None else lint(text)
    fixed: list[Diagnostic] = []
    for _ in range(MAX_ROUNDS):
        candidates = [d for d in result.diagnostics if fixable(d, unsafe)]  # type: ignore[attr-defined]
        if not candidates:
            break
        new_text, applied = apply_parsing(text, [d.fix for d in candidates if d.fix is not None])
        if not applied or new_text == text:
            break
        fixed += [candidates[i] for i in applied]
        text = new_text
        result = lint(text)
    return FixOutcome(text, fixed, result)


# -- writing ----------------------------------------------------------------------------------


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


def _replace(target: str, info: os.stat_result, data: bytes, expected: bytes | None) -> None:
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
