"""CPython's own parser (`ast.parse`), one thread at a time.

CPython 3.11 and 3.12 keep the AST constructor's recursion depth in interpreter-wide state, so
two threads building `ast` trees at once can fail with `SystemError: AST constructor recursion
depth mismatch` (python/cpython#106905). tilecheck's callers of `ast.parse` go through `parse`
here, and its callers of `ast.literal_eval` (which parses too; libcst's `evaluated_value` is one)
through `literal_eval`. Both hold one lock while CPython builds the tree: a language server
checking two buffers in two threads, or the thread-safety test, would otherwise see spurious
crashes.
"""

from __future__ import annotations

import ast
import re
import threading

from tilecheck.source.collection import paused

# Re-entrant: the editor's worker abandons a check by raising from a signal handler, which on
# Python 3.10 can land between the lock's acquisition and the `with` block's cleanup; a plain
# lock then stays held by the one thread that takes it next, and the worker hangs until its
# time budget (seen on 3.10 in tests/server/test_edit_session.py). Threads still exclude each other.
_LOCK = threading.RLock()
LINE_BREAK = re.compile(r"\r\n|\r|\n")  # where CPython starts a new line


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(source, filename)` (raises what it raises: SyntaxError, ValueError, ...)."""
    with _LOCK, paused():
        return ast.parse(source, filename)


def compile_module(source: str | ast.Module) -> None:
    """CPython's compiler over `source` (a text or a tree), for its verdict only: raises the
    SyntaxError (`break` outside a loop, a repeated keyword argument, ...) or ValueError it
    raises. Nothing is run; `dont_inherit`: tilecheck's own `__future__` imports do not apply."""
    with _LOCK, paused():
        compile(source, "<tilecheck>", "exec", dont_inherit=True)


def literal_eval(source: str) -> object:
    """`ast.literal_eval(source)`: a libcst literal's value (`node.evaluated_value` is this
    without the lock)."""
    with _LOCK:
        return ast.literal_eval(source)


def first_line(statement: ast.stmt) -> int:
    """The line a statement starts on, its decorators included (CPython's `lineno` is the
    `def`'s or `class`'s own line)."""
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])


def nested_statements(node: ast.AST) -> list[ast.AST]:
    """`node` and every statement nested in it, except handler and match case, in source order;
    no expression is visited (much cheaper than `ast.walk` to find a `def` or a `for`)."""
    found = [node]
    for field in ("body", "handlers", "orelse", "finalbody", "cases"):
        for child in getattr(node, field, None) or ():
            if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                found += nested_statements(child)
    return found


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` of CPython's tree as a string, or None when it is not a plain dotted name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted_name(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None
