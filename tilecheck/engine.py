"""Checking one file: read, parse once, build the kernel model once, run every rule.

Nothing here raises for bad input: unreadable files, undecodable bytes, syntax errors,
pathological nesting and crashing rules all become diagnostics of their own.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field

import libcst as cst

from tilecheck.context import Context
from tilecheck.registry import builtin_rules, by_code
from tilecheck.rule import Rule
from tilecheck.types import Diagnostic, Span

MAX_FILE_BYTES = 16 * 1024 * 1024
RECURSION_LIMIT = 6000


@dataclass
class FileResult:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    internal_error: bool = False  # a rule crashed: exit code 2
    source: str | None = None


def _meta(path: str, code: str, span: Span, message: str) -> Diagnostic:
    rule = by_code(code)
    assert rule is not None, code
    return Diagnostic(path, span, rule.CODE, rule.NAME, rule.GRADE, rule.severity(), message)


def read_source(path: str) -> tuple[bytes | None, Diagnostic | None]:
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            message = f"File is too large to check ({size} bytes; the limit is {MAX_FILE_BYTES})"
            return None, _meta(path, "TL003", Span.point(1, 0), message)
        with open(path, "rb") as handle:
            return handle.read(), None
    except OSError as error:
        reason = error.strerror or str(error)
        return None, _meta(path, "TL003", Span.point(1, 0), f"Cannot read file: {reason}")


def parse(path: str, data: bytes | str) -> tuple[cst.Module | None, str | None, Diagnostic | None]:
    """Parse once; a failure is one diagnostic at the error's position."""
    text: str | None = None
    try:
        text = data if isinstance(data, str) else _decode(data)
    except (UnicodeDecodeError, LookupError, SyntaxError) as error:
        return None, None, _meta(path, "TL002", Span.point(1, 0), f"Cannot decode file: {error}")
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        span = Span.point(error.raw_line, error.raw_column)
        message = "Syntax error: " + str(error.message).strip().splitlines()[0]
        return None, text, _meta(path, "TL001", span, message)
    except (RecursionError, MemoryError):
        return None, text, _meta(path, "TL004", Span.point(1, 0), "File is too deeply nested to parse")
    except Exception as error:  # the native parser reports some errors with other types
        return None, text, _meta(path, "TL001", Span.point(1, 0), f"Syntax error: {error}")
    return module, text, None


def _decode(data: bytes) -> str:
    import io
    import tokenize

    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


def check_source(
    data: bytes | str,
    path: str = "<string>",
    rules: Iterable[type[Rule]] | None = None,
    backend: object | None = None,
) -> FileResult:
    result = FileResult(path)
    module, text, failure = parse(path, data)
    result.source = text
    if failure is not None:
        result.diagnostics.append(failure)
        return result
    assert module is not None and text is not None
    ctx = Context(path, text, module, backend)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
    try:
        for rule in rules if rules is not None else builtin_rules():
            if rule.GRADE.value == "meta":
                continue
            _run_rule(rule, ctx, result)
            if result.diagnostics and result.diagnostics[-1].code == "TL004":
                break
    finally:
        sys.setrecursionlimit(limit)
    result.diagnostics.extend(_unique(ctx.diagnostics))
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result


def _run_rule(rule: type[Rule], ctx: Context, result: FileResult) -> None:
    ctx.rule = rule
    try:
        rule().check(ctx)
    except RecursionError:
        ctx.diagnostics.clear()
        message = "File is too deeply nested to analyze; no rule was run on it"
        result.diagnostics.append(_meta(ctx.path, "TL004", Span.point(1, 0), message))
    except Exception as error:  # a crashing rule must not stop the others
        result.internal_error = True
        message = f"Rule {rule.CODE} ({rule.NAME}) crashed: {type(error).__name__}: {error}"
        result.diagnostics.append(_meta(ctx.path, "TL005", Span.point(1, 0), message))
    finally:
        ctx.rule = None


def _unique(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Python-level unrolling copies a body: the same finding at the same place counts once."""
    seen: set[tuple] = set()
    unique = []
    for diagnostic in diagnostics:
        key = (diagnostic.code, diagnostic.span, diagnostic.message)
        if key not in seen:
            seen.add(key)
            unique.append(diagnostic)
    return unique


def check_file(
    path: str, rules: Iterable[type[Rule]] | None = None, backend: object | None = None
) -> FileResult:
    data, failure = read_source(path)
    if failure is not None:
        return FileResult(path, [failure])
    assert data is not None
    return check_source(data, path, rules, backend)
