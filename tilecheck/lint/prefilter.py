"""A cheap first look that skips building a CST for files that cannot have a finding.

Every built-in rule reports on TileLang or PyPTO kernels: the TileLang model is empty for a
source without `tilelang` in it (imports may sit inside functions, but they name the package),
the PyPTO checks need an import of `pypto.language`, and the suppression rules need a comment
that mentions `tilecheck` or `noqa`. A file with none of these words, that CPython's parser
accepts and that has no line long enough to hide a pathological expression, is therefore clean
under built-in rules; `ast.parse` establishes that about ten times faster than libcst parses
it. Anything else (a plugin rule is enabled, a word is present, the file does not parse, or
its encoding is not ASCII-compatible) takes the full path. `tests/test_prefilter.py` checks on
every fixture and the shared corpus that the full path finds nothing where this one skips.
"""

from __future__ import annotations

import codecs
import io
import tokenize
from typing import TYPE_CHECKING

from tilecheck.source import python_ast
from tilecheck.source.kernel_code import may_hold_kernel_code

if TYPE_CHECKING:
    from tilecheck.config.resolver import FileSettings

SUPPRESSION_WORDS = (b"tilecheck", b"noqa", b"NOQA", b"Noqa")  # as suppressions.may_have_suppressions
LONG_LINE = 2000  # the engine looks for pathological nesting only in files with lines this long
BUILTIN_PREFIX = "tilecheck.rules."


def cannot_have_findings(data: bytes, settings: FileSettings) -> str | None:
    """The decoded text of a file no enabled rule can report on, else None (check it fully)."""
    if may_hold_kernel_code(data) or any(word in data for word in SUPPRESSION_WORDS):
        return None
    if not all(rule.module.startswith(BUILTIN_PREFIX) for rule in settings.rules):
        return None
    text = _decode(data)
    if text is None:
        return None
    if any(len(line) >= LONG_LINE for line in text.splitlines()):
        # The engine's own pre-check (CPython's parser and the tree's depth): a large literal
        # without kernel code is clean without libcst's minutes on it; a refused one is reported.
        from tilecheck.source.guards import compiler_verdict, refuse

        if refuse(text) is not None:
            return None
        return text if compiler_verdict(text, None)[1] is None else None
    try:
        python_ast.compile_module(python_ast.parse(text))  # the compiler refuses more than the parser
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None  # let the full path report it, at its position
    return text


def _decode(data: bytes) -> str | None:
    """As the engine decodes (a BOM or coding cookie, else UTF-8), for ASCII-compatible
    encodings only: only there is a word's absence from the bytes its absence from the text."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        if codecs.lookup(encoding).name not in (
            "utf-8",
            "utf-8-sig",
            "ascii",
            "iso8859-1",
            "latin-1",
            "cp1252",
        ):
            return None
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return None
    return text[1:] if text.startswith("\ufeff") else text
