"""Applying fixes: text edits by (line, column) spans, re-parsed, iterated.

A rule attaches a `Fix` (a title, one or more `Edit`s, and whether it is safe) to a
diagnostic. `apply_fixes` applies non-overlapping fixes (identical fixes count once);
`fix_text` repeats lint-and-fix until nothing more applies, dropping any fix after which
the file would not parse. Writing the result is the application layer's (`app.files`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from tilecheck.core.types import Diagnostic, Edit, Fix
from tilecheck.source import guards as nesting
from tilecheck.source import python_ast
from tilecheck.source.lines import line_starts, newline_of, to_offset
from tilecheck.source.python_ast import LINE_BREAK

if TYPE_CHECKING:
    from tilecheck.lint.analysis import FileAnalysis
    from tilecheck.lint.context import Context

MAX_ROUNDS = 10


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
        new = edit.replacement if newline == "\n" else LINE_BREAK.sub(newline, edit.replacement)
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
    seen: dict[tuple[object, ...], bool] = {}
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
        python_ast.compile_module(text)  # a fix must not make a file CPython refuses
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
    result: FileAnalysis  # the engine's result for `text`


def fixable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    return diagnostic.fix is not None and (diagnostic.fix.safe or unsafe)


def fix_text(
    text: str, lint: Callable[[str], FileAnalysis], *, unsafe: bool = False, first: FileAnalysis | None = None
) -> FixOutcome:
    """Lint (unless `first` is the result for `text`), apply the applicable fixes, lint again,
    until nothing more applies."""
    result = first if first is not None else lint(text)
    fixed: list[Diagnostic] = []
    for _ in range(MAX_ROUNDS):
        candidates = [d for d in result.diagnostics if fixable(d, unsafe)]
        if not candidates:
            break
        new_text, applied = apply_parsing(text, [d.fix for d in candidates if d.fix is not None])
        if not applied or new_text == text:
            break
        fixed += [candidates[i] for i in applied]
        text = new_text
        result = lint(text)
    return FixOutcome(text, fixed, result)
