"""Checking one file: read, parse once, build the kernel model once, run every rule.

Nothing here raises for bad input: unreadable files, undecodable bytes, syntax errors,
pathological nesting and crashing rules all become diagnostics of their own.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import io
import os
import re
import stat
import time
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilecheck.core.registry import builtin_rules, by_code
from tilecheck.core.rule import Rule
from tilecheck.core.types import Diagnostic, Span
from tilecheck.lint.coverage import Coverage
from tilecheck.source import guards as nesting
from tilecheck.source import python_ast

if TYPE_CHECKING:  # libcst, the model and the rules are imported when a file is parsed, not before:
    # importing the engine (the runner, the workspace, `rules`, `backends`) stays cheap.
    import libcst as cst

    from tilecheck.backends.profile import Profile
    from tilecheck.config.resolver import FileSettings
    from tilecheck.lint.context import Context
    from tilecheck.source.chunks import ChunkCache
    from tilecheck.tilelang.model import FileModel

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
    measured: Coverage | None = None  # the coverage of a detached result (measured before detaching)

    @property
    def model(self) -> FileModel | None:
        return self.context.model if self.context is not None else None

    @property
    def coverage(self) -> Coverage:
        """How many kernels and loops the model saw (`tilecheck.lint.coverage`)."""
        if self.context is not None and not any(d.code == "TL004" for d in self.diagnostics):
            from tilecheck.lint.coverage import measure

            return measure(self.context)  # not after TL004: the model would be rebuilt, and fail again
        return self.measured or Coverage()

    def detached(self) -> FileAnalysis:
        """Without the CST and the model: what crosses a process boundary cheaply (the
        coverage counts, measured from the model, go along)."""
        return FileAnalysis(
            self.path, self.diagnostics, self.internal_error, self.text, measured=self.coverage
        )


@dataclass
class Timings:
    """Seconds spent in each phase of `check_source`, summed over the files a caller checks with
    the same object (`make bench`'s breakdown of a cold run). The model is built before the
    rules run (as the first rule would build it), so its time is its own."""

    parse: float = 0.0
    model: float = 0.0
    rules: float = 0.0
    suppressions: float = 0.0
    files: int = 0


def meta_diagnostic(path: str, code: str, span: Span, message: str) -> Diagnostic:
    """A diagnostic of one of the engine's own (meta) rules."""
    rule = by_code(code)
    assert rule is not None, code
    return Diagnostic(path, span, rule.CODE, rule.NAME, rule.GRADE, rule.severity(), message)


def read_source(path: str, limit: int | None = None) -> tuple[bytes | None, Diagnostic | None]:
    """The bytes of the regular file `path`, or a TL003 diagnostic; never blocks, never reads more
    than `limit` (MAX_FILE_BYTES) bytes however large the file claims or turns out to be."""
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        problem = _not_regular(os.stat(path).st_mode)  # before opening: opening a device can act
        if problem:
            return None, _unreadable(path, problem)
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        with open(descriptor, "rb", buffering=0, closefd=True) as handle:
            problem = _not_regular(os.fstat(descriptor).st_mode)  # it may have been swapped meanwhile
            if problem:
                return None, _unreadable(path, problem)
            chunks, size = [], 0
            while size <= limit:
                chunk = handle.read(min(1 << 20, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
    except BlockingIOError:
        return None, _unreadable(path, "reading it would block")
    except OSError as error:
        return None, _unreadable(path, error.strerror or str(error))
    if size > limit:
        message = f"File is too large to check (more than {limit} bytes)"
        return None, meta_diagnostic(path, "TL003", Span.point(1, 0), message)
    return b"".join(chunks), None


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


def _unreadable(path: str, reason: str) -> Diagnostic:
    return meta_diagnostic(path, "TL003", Span.point(1, 0), f"Cannot read file: {reason}")


def parse(
    path: str, data: bytes | str, chunks: ChunkCache | None = None
) -> tuple[cst.Module | None, str | None, Diagnostic | None]:
    """Parse once; a failure is one diagnostic at the error's position. With `chunks`, the
    module is built chunk by chunk, reusing the chunks the cache holds (`tilecheck.source.chunks`).

    Input that could crash or stall libcst's native parser (which segfaults at about 1,270
    nested brackets) never reaches it: `nesting.suspicious` spots it cheaply, and then CPython's
    own parser decides, so the file gets CPython's verdict at CPython's position.
    """
    module, text, failure, _ = _parse(path, data, chunks)
    return module, text, failure


def _parse(
    path: str, data: bytes | str, chunks: ChunkCache | None
) -> tuple[cst.Module | None, str | None, Diagnostic | None, ast.Module | None]:
    """`parse`, plus CPython's tree of the text when it was built on the way (the pre-check and
    the chunked parser both need it: it is parsed once, and the rules' context reuses it)."""
    if isinstance(data, str):
        text = data
    else:
        text, failure = _decode(path, data)
        if failure is not None:
            return None, None, failure, None
    tree: ast.Module | None = None
    suspicious = nesting.suspicious(text)
    if suspicious:
        tree, refusal = nesting.checked_tree(text, path, deep=True)
        failure = _refusal_diagnostic(path, refusal)
        if failure is not None:  # also a syntax error: see `nesting.refuse`
            return None, text, failure, None
    import libcst as cst

    try:
        if chunks is None:
            module = cst.parse_module(text)
        else:
            if not suspicious:  # else CPython's tree is there already
                tree = _python_tree(text)
            module = _parse_chunked(text, chunks, tree)
    except (cst.ParserSyntaxError, ValueError) as error:  # the native parser raises both
        return None, text, _cpython_verdict(path, text) or _libcst_limitation(path, error), None
    except (RecursionError, MemoryError):
        message = "File is too deeply nested to parse"
        return None, text, meta_diagnostic(path, "TL004", Span.point(1, 0), message), None
    except Exception as error:  # never seen; do not let a parser bug take the run down
        return None, text, _cpython_verdict(path, text) or _libcst_limitation(path, error), None
    return module, text, None, tree


def _python_tree(text: str) -> ast.Module | None:
    try:
        return python_ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None  # the chunked parser falls back to a whole-file parse, which says why


def _parse_chunked(text: str, chunks: ChunkCache, tree: ast.Module | None) -> cst.Module:
    from tilecheck.source import chunks as regions

    return regions.parse_module(text, chunks, tree=tree)


def _decode(path: str, data: bytes) -> tuple[str, Diagnostic | None]:
    """Decode as Python does: a BOM or coding cookie, else UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        if "unknown encoding" in str(error) or "encoding problem" in str(error):
            return "", meta_diagnostic(path, "TL002", Span.point(1, 0), f"Cannot decode file: {error}")
        encoding = "utf-8"  # undecodable first lines: let the decoder say where
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        start = getattr(error, "start", 0)
        line = data.count(b"\n", 0, start) + 1
        column = len(data[data.rfind(b"\n", 0, start) + 1 : start].decode(encoding, "replace"))
        reason = getattr(error, "reason", str(error))
        message = f"Cannot decode file as {encoding}: {reason} (byte {data[start : start + 1]!r})"
        return "", meta_diagnostic(path, "TL002", Span.point(line, column), message)
    return (text[1:] if text.startswith("\ufeff") else text), None


def _cpython_verdict(path: str, text: str, *, checked: bool = False) -> Diagnostic | None:
    return _refusal_diagnostic(path, nesting.cpython_verdict(text, path, deep=checked))


def _refusal_diagnostic(path: str, refusal: nesting.Refusal | None) -> Diagnostic | None:
    if refusal is None:
        return None
    code = "TL001" if refusal.kind == "syntax" else "TL004"
    return meta_diagnostic(path, code, Span.point(refusal.line, refusal.column), refusal.message)


def _libcst_limitation(path: str, error: Exception) -> Diagnostic:
    """Valid Python (CPython parses it) that libcst cannot parse: say so, not "syntax error"."""
    import libcst as cst

    if isinstance(error, cst.ParserSyntaxError):
        reason = str(error.message).strip().splitlines()[0].split(": expected one of")[0]
        where = re.search(r"error at (\d+):(\d+)", reason)  # where libcst's parser stopped
        span = Span.point(int(where[1]), int(where[2])) if where else Span.point(error.raw_line, 0)
        if where:
            reason = f"its parser stops at line {span.line}, column {span.column + 1}"
    else:
        span, reason = Span.point(1, 0), f"{type(error).__name__}: {error}".splitlines()[0]
    import importlib.metadata  # rare path: keep the import off start-up

    version = importlib.metadata.version("libcst")
    message = (
        f"File could not be analyzed: it is valid Python, but libcst {version} cannot "
        f"parse it ({reason}); no rule was run on it"
    )
    return meta_diagnostic(path, "TL007", span, message)


def check_source(
    data: bytes | str,
    path: str = "<string>",
    rules: Iterable[type[Rule]] | None = None,
    backend: Profile | str | None = None,
    *,
    known: Iterable[type[Rule]] | None = None,
    chunks: ChunkCache | None = None,
    timings: Timings | None = None,
) -> FileAnalysis:
    """Check one file's contents with `rules` (all built-in rules by default).

    Suppression comments are honoured; the suppression rules among `rules` (TL901-TL904)
    report unused, unknown, unmatched and malformed ones. `known` are the rules a
    suppression may name (the built-in ones and `rules` by default). `chunks` (a
    `tilecheck.source.chunks.ChunkCache` the caller keeps, e.g. per editor buffer) re-parses only
    the top-level statements that changed since the texts it has seen. `timings` adds the
    time of each phase to the caller's totals.
    """
    clock = time.perf_counter
    started = clock()
    result = FileAnalysis(path)
    module, text, failure, tree = _parse(path, data, chunks)
    if timings is not None:
        timings.files += 1
        timings.parse += clock() - started
    result.text = text
    if failure is not None:
        result.diagnostics.append(failure)
        return result
    assert module is not None and text is not None
    from tilecheck.backends.profile import profile_of
    from tilecheck.lint.context import Context
    from tilecheck.lint.folding import fold
    from tilecheck.lint.suppressions import may_have_suppressions

    chosen = list(rules) if rules is not None else list(builtin_rules())
    ctx = Context(path, text, module, profile_of(backend), python_tree=tree)  # a profile's name works too
    result.module, result.context = module, ctx
    if timings is not None:
        started = clock()
        with contextlib.suppress(Exception):  # the rules report it (the model keeps its error)
            ctx.model  # noqa: B018 - built now only to be timed on its own
        timings.model += clock() - started
    started = clock()
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
    if timings is not None:
        timings.rules += clock() - started
        started = clock()
    if may_have_suppressions(text):
        _suppress(result, text, chosen, ran, known)
    result.diagnostics = fold(result.diagnostics)  # after suppressions: they name the raw findings
    result.diagnostics.sort(key=Diagnostic.sort_key)
    if timings is not None:
        timings.suppressions += clock() - started
    return result


def _suppress(
    result: FileAnalysis,
    text: str,
    rules: list[type[Rule]],
    ran: set[str],
    known: Iterable[type[Rule]] | None,
) -> None:
    from tilecheck.lint.suppressions import META_CODES, Suppressions

    universe = list(known) if known is not None else [*builtin_rules(), *rules]
    suppressions = Suppressions.from_source(text, universe)
    if not suppressions.directives:
        return
    kept = suppressions.filter(result.diagnostics)
    enabled = {rule.CODE for rule in rules if rule.CODE in META_CODES}
    result.diagnostics = kept + suppressions.report(result.path, ran, enabled)


def _run_rule(rule: type[Rule], ctx: Context, result: FileAnalysis) -> bool:
    """Run one rule; False when it could not complete."""
    from tilecheck.lint.context import ModelError, ModelTooDeep
    from tilecheck.tilelang.scope import ModelTooLarge

    ctx.rule = rule
    try:
        rule().check(ctx)
        return True
    except ModelTooLarge as error:
        ctx.diagnostics.clear()
        message = f"Kernel expansion is too large to analyze ({error}); no rule was run on it"
        result.diagnostics.append(meta_diagnostic(ctx.path, "TL004", Span.point(1, 0), message))
    except ModelError as error:
        if not result.internal_error:  # report the model's crash once, not once per rule
            result.internal_error = True
            message = f"Building the kernel model crashed: {error}"
            result.diagnostics.append(meta_diagnostic(ctx.path, "TL005", Span.point(1, 0), message))
    except (MemoryError, RecursionError) as error:
        if not isinstance(error, ModelTooDeep) and not _is_builtin(rule):
            _rule_crashed(rule, ctx, result, error)  # a plugin's own bug, not the file's size
            return False
        ctx.diagnostics.clear()
        if isinstance(error, MemoryError):
            message = "File is too complex to analyze within the available memory; no rule was run on it"
        else:
            message = "File is too deeply nested to analyze; no rule was run on it"
        result.diagnostics.append(meta_diagnostic(ctx.path, "TL004", Span.point(1, 0), message))
    except Exception as error:  # a crashing rule must not stop the others
        _rule_crashed(rule, ctx, result, error)
    finally:
        ctx.rule = None
    return False


def _is_builtin(rule: type[Rule]) -> bool:
    return rule.__module__.startswith("tilecheck.rules.")


def _rule_crashed(rule: type[Rule], ctx: Context, result: FileAnalysis, error: BaseException) -> None:
    result.internal_error = True
    message = f"Rule {rule.CODE} ({rule.NAME}) crashed: {type(error).__name__}: {error}"
    result.diagnostics.append(meta_diagnostic(ctx.path, "TL005", Span.point(1, 0), message))


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


def lint_source(
    data: bytes | str,
    path: str,
    settings: FileSettings,
    *,
    chunks: ChunkCache | None = None,
    timings: Timings | None = None,
) -> FileAnalysis:
    """check_source under a file's resolved configuration (rules, backend, severities)."""
    result = check_source(
        data, path, settings.rules, settings.backend, known=settings.known, chunks=chunks, timings=timings
    )
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
