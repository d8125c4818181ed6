"""CPython's tree of an editor buffer, re-parsing only the top-level statements an edit touched.

`ast.parse` of the corpus's 2,076-line file takes about 23 ms and its compilation (for the
compiler's verdict) 15 ms: most of an edit's re-check once the kernels are reused. An edit
changes a few lines; the top-level statements wholly in the unchanged lines before it stay as
they were, those wholly in the unchanged lines after it move by the number of lines the edit
added, and only the lines between ("the region") are parsed, as a module of their own placed at
their line (blank lines before them).

Why the result is exactly `ast.parse(text)`: top-level statements start at column 0, and a
region that parses on its own ends with no bracket, string, backslash continuation, decorator
or block header left open, so the whole text's tokenizer and parser split it at the same
places. Where that could fail the cache does not reuse:
- a kept statement must not share a line with one that is re-parsed (`x = 1; y = \\`);
- lines added after a kept statement's block may be its body: the region then starts indented
  or with `else:`, does not parse alone, and the whole text is parsed;
- any failure of the region, and `from __future__ import barry_as_FLUFL` (which changes the
  grammar), means a whole-text parse, so a syntax error is always the whole text's.

The compiler's verdict holds statement by statement as well, except where one statement's
meaning depends on another's at module level (`global`, `nonlocal`, `__future__` imports): when
the region mentions none of them and the previous text compiled, `changed` gives the region's
statements, and only they need compiling.

The cache owns the trees it returns: the kept statements of the previous tree are moved to the
new one (their line numbers shifted in place), so a tree is valid until the next `parse`. One
per buffer (it lives in the buffer's `ChunkCache`); not thread-safe.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tilecheck.source import python_ast

_CROSS_STATEMENT = ("global", "nonlocal", "__future__")  # words whose statements bind others


@dataclass
class _Base:
    text: str
    lines: list[str]  # with their line breaks
    tree: ast.Module
    compiled: bool = False  # CPython's compiler accepted the whole text


class TreeCache:
    """The last tree parsed for a buffer, and what its next text can reuse of it."""

    def __init__(self) -> None:
        self._base: _Base | None = None
        self._changed: tuple[ast.Module, list[ast.stmt]] | None = None
        self.whole_parses = 0
        self.region_lines = 0  # lines parsed by the last region parse (tests read it)

    def parse(self, text: str) -> ast.Module:
        """`ast.parse(text)` (raising what it raises), re-using the previous text's statements."""
        self._changed = None
        lines = _lines(text)
        base = self._base
        tree: ast.Module | None = None
        if base is not None and "barry_as_FLUFL" not in text and "barry_as_FLUFL" not in base.text:
            tree = self._reparse(base, text, lines)
        if tree is None:
            self.whole_parses += 1
            tree = python_ast.parse(text)
        self._base = _Base(text, lines, tree)
        return tree

    def changed(self, tree: ast.Module) -> list[ast.stmt] | None:
        """The statements of `tree` the compiler has to see (those of the region), when the rest
        compiled before and cannot be affected by them; None: compile the whole tree."""
        if self._changed is None or self._changed[0] is not tree:
            return None
        return self._changed[1]

    def compiled(self, tree: ast.Module) -> None:
        """The compiler accepted `tree`, the last tree `parse` returned."""
        if self._base is not None and self._base.tree is tree:
            self._base.compiled = True

    def _reparse(self, base: _Base, text: str, lines: list[str]) -> ast.Module | None:
        old, body = base.lines, base.tree.body
        same_start = _common_prefix(old, lines)
        same_end = _common_suffix(old, lines, limit=min(len(old), len(lines)) - same_start)
        shift = len(lines) - len(old)
        spans = [
            (python_ast.first_line(statement), statement.end_lineno or statement.lineno) for statement in body
        ]
        before = 0  # statements kept from the start: wholly in the unchanged first lines
        while before < len(spans) and spans[before][1] <= same_start:
            before += 1
        # the first statement parsed again must not start on the line where a kept one ends
        while before and before < len(spans) and spans[before][0] <= spans[before - 1][1]:
            before -= 1
        after = len(spans)  # statements kept from `after` on: wholly in the unchanged last lines
        while after > before and spans[after - 1][0] > len(old) - same_end:
            after -= 1
        while after < len(spans) and after > before and spans[after][0] <= spans[after - 1][1]:
            after += 1
        if before == 0 and after == len(spans):
            return None  # nothing to reuse: a whole parse costs the same
        first = spans[before - 1][1] + 1 if before else 1  # the region's lines, in the new text
        last = spans[after][0] + shift - 1 if after < len(spans) else len(lines)
        region = "".join(lines[first - 1 : last])
        try:
            parsed = python_ast.parse("\n" * (first - 1) + region)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return None  # the whole text's parse decides, and says where
        kept_after = body[after:]
        self._base = None  # its statements change now: if this is interrupted, parse whole next time
        if shift:
            for statement in kept_after:
                ast.increment_lineno(statement, shift)
        self.region_lines = last - first + 1
        tree = ast.Module(body=[*body[:before], *parsed.body, *kept_after], type_ignores=[])
        if base.compiled and not any(word in region for word in _CROSS_STATEMENT):
            self._changed = (tree, parsed.body)
        return tree


def _lines(text: str) -> list[str]:
    """`text`'s lines as CPython counts them, each with its line break."""
    starts = [0, *(match.end() for match in python_ast.LINE_BREAK.finditer(text))]
    if starts[-1] == len(text) and len(starts) > 1:
        starts.pop()  # a final line break ends the last line; no empty line after it
    return [text[start:end] for start, end in zip(starts, [*starts[1:], len(text)], strict=True)]


def _common_prefix(old: list[str], new: list[str]) -> int:
    count = 0
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        count += 1
    return count


def _common_suffix(old: list[str], new: list[str], limit: int) -> int:
    count = 0
    while count < limit and old[-1 - count] == new[-1 - count]:
        count += 1
    return count
