"""Checking one file: read, parse once, build the kernel model once, run every rule.

Nothing here raises for bad input: unreadable files, undecodable bytes, syntax errors,
pathological nesting and crashing rules all become diagnostics of their own.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import itertools
import os
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from tilecheck import python_ast
from tilecheck.analysis.scope import ModelTooLarge
from tilecheck.backends.profile import Profile, profile_of
from tilecheck.consequences import fold
from tilecheck.context import Context, ModelError
from tilecheck.registry import builtin_rules, by_code
from tilecheck.rule import Rule
from tilecheck.suppressions import META_CODES, Suppressions, may_have_suppressions
from tilecheck.types import Diagnostic, Span

if TYPE_CHECKING:
    from tilecheck.analysis.model import FileModel
    from tilecheck.config import FileSettings

MAX_FILE_BYTES = 16 * 1024 * 1024
RECURSION_LIMIT = 6000  # what entry points set (once, for the process): deep kernels recurse deeply


@dataclass
class FileAnalysis:
    """Everything the engine learnt about one file, so no front end parses or models it again.

    `text` is the decoded source (None when the file could not be read or decoded), `module`
    its CST and `context` the rules' context (None when the file did not parse), whose
    `model` is the kernel model, built on first use.
    """

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    internal_error: bool = False  # a rule or the model crashed: exit code 2
    text: str | None = None
    module: cst.Module | None = None
    context: Context | None = None

    @property
    def model(self) -> FileModel | None:
        return self.context.model if self.context is not None else None

    def detached(self) -> FileAnalysis:
        """Without the CST and the model: what crosses a process boundary cheaply."""
        return FileAnalysis(self.path, self.diagnostics, self.internal_error, self.text)


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
    if isinstance(data, str):
        text = data
    else:
        text, failure = _decode(path, data)
        if failure is not None:
            return None, None, failure
    too_deep = _brackets_too_deep(path, text)
    if too_deep is not None:
        return None, text, too_deep
    if _too_complex(text):
        message = "File is too deeply nested to analyze (an expression nests more than 1000 levels)"
        return None, text, _meta(path, "TL004", Span.point(1, 0), message)
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        return None, text, _syntax_error(path, text, error)
    except (RecursionError, MemoryError):
        return None, text, _meta(path, "TL004", Span.point(1, 0), "File is too deeply nested to parse")
    except Exception as error:  # the native parser reports some errors with other types
        return None, text, _meta(path, "TL001", Span.point(1, 0), f"Syntax error: {error}")
    return module, text, None


def _decode(path: str, data: bytes) -> tuple[str, Diagnostic | None]:
    """Decode as Python does: a BOM or coding cookie, else UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        if "unknown encoding" in str(error) or "encoding problem" in str(error):
            return "", _meta(path, "TL002", Span.point(1, 0), f"Cannot decode file: {error}")
        encoding = "utf-8"  # undecodable first lines: let the decoder say where
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        start = getattr(error, "start", 0)
        line = data.count(b"\n", 0, start) + 1
        column = len(data[data.rfind(b"\n", 0, start) + 1 : start].decode(encoding, "replace"))
        reason = getattr(error, "reason", str(error))
        message = f"Cannot decode file as {encoding}: {reason} (byte {data[start : start + 1]!r})"
        return "", _meta(path, "TL002", Span.point(line, column), message)
    return (text[1:] if text.startswith("\ufeff") else text), None


_MAX_BRACKETS = 200  # CPython's tokenizer refuses deeper nesting of (), [] and {} (MAXLEVEL)
_BRACKET_STEP = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_NOT_BRACKETS = re.compile(r"[^()\[\]{}]+")


def _brackets_too_deep(path: str, text: str) -> Diagnostic | None:
    """CPython refuses more than 200 nested brackets, but libcst parses them at a cost that
    grows much faster than the file (1,000 nested lists, 2 KB: 7 s and 950 MB): refuse such a
    file first. The bracket count is a cheap upper bound; CPython's parser decides."""
    if sum(map(text.count, "([{")) <= _MAX_BRACKETS:
        return None
    brackets = _NOT_BRACKETS.sub("", text)
    if max(itertools.accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0) <= _MAX_BRACKETS:
        return None
    try:
        compile(text, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        if "too many nested parentheses" in str(error.msg):
            column = max((error.offset or 1) - 1, 0)
            message = f"File is too deeply nested to parse: {error.msg}"
            return _meta(path, "TL004", Span.point(error.lineno or 1, column), message)
    except (RecursionError, MemoryError, ValueError):
        pass
    return None


_DEEP_HINT = 2000  # only files with a line this long can hide a pathological expression


def _too_complex(text: str) -> bool:
    """libcst's parser is quadratic on very long operator chains; refuse them cheaply first."""
    if not text or max(map(len, text.splitlines()), default=0) < _DEEP_HINT:
        return False
    try:
        tree = python_ast.parse(text)
    except (RecursionError, MemoryError):
        return True
    except (SyntaxError, ValueError):
        return False  # libcst reports it
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > 1000:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


def _syntax_error(path: str, text: str, error: cst.ParserSyntaxError) -> Diagnostic:
    """Locate with CPython's parser when it agrees the file is invalid: its positions are exact."""
    message = str(error.message).strip().splitlines()[0]
    if "indentation levels" in message or "too many nested" in message:
        return _meta(
            path,
            "TL004",
            Span.point(error.raw_line, error.raw_column),
            f"File is too deeply nested to parse: {message}",
        )
    try:
        # Not under `path`: CPython re-reads the error's line from that file when it exists, so an
        # unsaved buffer would get columns measured on the saved text.
        python_ast.parse(text, "<tilecheck>")
    except SyntaxError as exact:
        if exact.lineno is not None:
            column = max((exact.offset or 1) - 1, 0)
            return _meta(path, "TL001", Span.point(exact.lineno, column), f"Syntax error: {exact.msg}")
    except (RecursionError, MemoryError, ValueError):
        pass
    return _meta(path, "TL001", Span.point(error.raw_line, error.raw_column), f"Syntax error: {message}")


def check_source(
    data: bytes | str,
    path: str = "<string>",
    rules: Iterable[type[Rule]] | None = None,
    backend: Profile | str | None = None,
    *,
    known: Iterable[type[Rule]] | None = None,
) -> FileAnalysis:
    """Check one file's contents with `rules` (all built-in rules by default).

    Suppression comments are honoured; the suppression rules among `rules` (TL901-TL904)
    report unused, unknown, unmatched and malformed ones. `known` are the rules a
    suppression may name (the built-in ones and `rules` by default).
    """
    result = FileAnalysis(path)
    module, text, failure = parse(path, data)
    result.text = text
    if failure is not None:
        result.diagnostics.append(failure)
        return result
    assert module is not None and text is not None
    chosen = list(rules) if rules is not None else list(builtin_rules())
    ctx = Context(path, text, module, profile_of(backend))  # a shipped profile's name works too
    result.module, result.context = module, ctx
    ran: set[str] = set()
    for rule in chosen:
        if rule.check is Rule.check:
            continue  # reported by the engine itself (unreadable files, suppressions, ...)
        if _run_rule(rule, ctx, result):
            ran.add(rule.CODE)
        if result.diagnostics and result.diagnostics[-1].code == "TL004":
            ran.clear()
            break
    result.diagnostics.extend(_unique(ctx.diagnostics))
    if may_have_suppressions(text):
        _suppress(result, text, chosen, ran, known)
    result.diagnostics = fold(result.diagnostics)  # after suppressions: they name the raw findings
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result


def _suppress(
    result: FileAnalysis,
    text: str,
    rules: list[type[Rule]],
    ran: set[str],
    known: Iterable[type[Rule]] | None,
) -> None:
    universe = list(known) if known is not None else [*builtin_rules(), *rules]
    suppressions = Suppressions.from_source(text, universe)
    if not suppressions.directives:
        return
    kept = suppressions.filter(result.diagnostics)
    enabled = {rule.CODE for rule in rules if rule.CODE in META_CODES}
    result.diagnostics = kept + suppressions.report(result.path, ran, enabled)


def _run_rule(rule: type[Rule], ctx: Context, result: FileAnalysis) -> bool:
    """Run one rule; False when it could not complete."""
    ctx.rule = rule
    try:
        rule().check(ctx)
        return True
    except ModelTooLarge as error:
        ctx.diagnostics.clear()
        message = f"Kernel expansion is too large to analyze ({error}); no rule was run on it"
        result.diagnostics.append(_meta(ctx.path, "TL004", Span.point(1, 0), message))
    except ModelError as error:
        if not result.internal_error:  # report the model's crash once, not once per rule
            result.internal_error = True
            message = f"Building the kernel model crashed: {error}"
            result.diagnostics.append(_meta(ctx.path, "TL005", Span.point(1, 0), message))
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
    return False


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
    path: str, rules: Iterable[type[Rule]] | None = None, backend: Profile | str | None = None
) -> FileAnalysis:
    data, failure = read_source(path)
    if failure is not None:
        return FileAnalysis(path, [failure])
    assert data is not None
    return check_source(data, path, rules, backend)


def lint_source(data: bytes | str, path: str, settings: FileSettings) -> FileAnalysis:
    """check_source under a file's resolved configuration (rules, backend, severities)."""
    result = check_source(data, path, settings.rules, settings.backend, known=settings.known)
    if settings.severities:
        result.diagnostics = [
            dataclasses.replace(d, severity=settings.severities[d.code])
            if d.code in settings.severities
            else d
            for d in result.diagnostics
        ]
    return result


def lint_file(path: str, settings: FileSettings) -> FileAnalysis:
    data, failure = read_source(path)
    if failure is not None:
        return FileAnalysis(path, [failure])
    assert data is not None
    return lint_source(data, path, settings)
