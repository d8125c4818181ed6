"""Parsing a file once into libcst's tree; a failure is one diagnostic at the error's position.

Input that could crash or stall libcst's native parser (which segfaults at about 1,270 nested
brackets) never reaches it: `guards.suspicious` spots it cheaply, and then CPython's own parser
decides, so the file gets CPython's verdict at CPython's position. Valid Python that libcst
cannot parse is said to be so, not called a syntax error; what libcst parses and CPython's
parser or compiler refuses (a repeated keyword argument, `break` outside a loop) is one.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from tilecheck.core import meta
from tilecheck.core.errors import looks_like_failed_allocation
from tilecheck.core.meta import Problem
from tilecheck.core.types import Diagnostic, Span
from tilecheck.source import guards
from tilecheck.source.reading import decode_source

if TYPE_CHECKING:  # libcst is imported when a file is parsed, not before
    import libcst as cst

    from tilecheck.source.chunks import ChunkCache
    from tilecheck.source.tree_cache import TreeCache


def parse(
    path: str, data: bytes | str, chunks: ChunkCache | None = None
) -> tuple[cst.Module | None, str | None, Diagnostic | None]:
    """The module, its decoded text and the failure (one of them None). With `chunks`, the
    module is built chunk by chunk, reusing the chunks the cache holds (`source.chunks`)."""
    module, text, failure, _ = parse_with_tree(path, data, chunks)
    return module, text, failure


def parse_with_tree(
    path: str, data: bytes | str, chunks: ChunkCache | None = None
) -> tuple[cst.Module | None, str | None, Diagnostic | None, ast.Module | None]:
    """`parse`, plus CPython's tree of the text when it was built on the way (the pre-check and
    the chunked parser both need it: it is parsed once, and the rules' context reuses it)."""
    if isinstance(data, str):
        text = data
    else:
        text, failure = decode_source(path, data)
        if failure is not None:
            return None, None, failure, None
    tree: ast.Module | None = None
    trees = chunks.trees if chunks is not None else None  # the buffer's previous tree, to reuse
    suspicious = guards.suspicious(text)
    if suspicious:
        shallow = None
        if chunks is not None:
            if len(chunks.shallow) > chunks.max_chunks:
                chunks.shallow.clear()  # refilled from this text
            shallow = chunks.shallow
        tree, refusal = guards.checked_tree(text, path, deep=True, shallow=shallow, trees=trees)
        failure = refusal_diagnostic(path, refusal)
        if failure is not None:  # also a syntax error: see `guards.refuse`
            return None, text, failure, None
    import libcst as cst

    from tilecheck.source.cst_parse import parse_module as parse_whole

    try:
        if chunks is None:
            module = parse_whole(text)
        else:
            from tilecheck.source.chunks import parse_module

            if not suspicious:  # else CPython's tree is there already
                tree = _python_tree(text, chunks.trees)
            module = parse_module(text, chunks, tree=tree)
    except (cst.ParserSyntaxError, ValueError) as error:  # the native parser raises both
        return None, text, _cpython_verdict(path, text) or _libcst_limitation(path, error), None
    except (RecursionError, MemoryError):
        too_deep = meta.at_start(Problem.TOO_COMPLEX, path, "File is too deeply nested to parse")
        return None, text, too_deep, None
    except Exception as error:  # never seen; do not let a parser bug take the run down
        if looks_like_failed_allocation(error):
            # e.g. libcst's native module could not be mapped under the worker's memory limit:
            # the worker that set the limit judges it (TL004), it is not libcst's limitation
            raise
        return None, text, _cpython_verdict(path, text) or _libcst_limitation(path, error), None
    # what libcst accepts and CPython refuses
    tree, refusal = guards.compiler_verdict(text, tree, trees)
    failure = refusal_diagnostic(path, refusal)
    if failure is not None:
        return None, text, failure, None
    return module, text, None, tree


def _python_tree(text: str, trees: TreeCache) -> ast.Module | None:
    try:
        return trees.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None  # the chunked parser falls back to a whole-file parse, which says why


def _cpython_verdict(path: str, text: str) -> Diagnostic | None:
    return refusal_diagnostic(path, guards.cpython_verdict(text, path))


def refusal_diagnostic(path: str, refusal: guards.Refusal | None) -> Diagnostic | None:
    """CPython's refusal of a text as a syntax error, or as too complex to analyze."""
    if refusal is None:
        return None
    problem = Problem.SYNTAX_ERROR if refusal.kind == "syntax" else Problem.TOO_COMPLEX
    return meta.diagnostic(problem, path, Span.point(refusal.line, refusal.column), refusal.message)


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
    return meta.diagnostic(Problem.PARSER_LIMITATION, path, span, message)
