"""Where TileLang constructs are in a file, read from CPython's tree for the unmodeled-code rule
(TL006); not a rule module.

The rule reads only the module-level statements that hold a construct the model did not cover,
so these walk a few statements, never the whole file.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterator

from tilecheck.source import python_ast
from tilecheck.source.lines import utf8_column

_KERNEL_APIS = frozenset({"Kernel", "Pipelined", "Parallel"})
_KERNEL_DECORATORS = frozenset({"prim_func", "jit", "lazy_jit", "autotune", "cache", "lru_cache"})


def tops_at(tree: ast.Module, lines: list[int]) -> list[ast.stmt]:
    """The module-level statements (decorators included) that hold any of `lines`."""
    wanted = sorted(set(lines))
    found = []
    for statement in tree.body:
        start = python_ast.first_line(statement)
        end = statement.end_lineno or statement.lineno
        position = bisect.bisect_left(wanted, start)
        if position < len(wanted) and wanted[position] <= end:
            found.append(statement)
    return found


def constructs(source: str, tops: list[ast.stmt]) -> list[tuple[str, int, int, str, str | None]]:
    """(alias, line, column, api, enclosing plain function) of each TileLang construct in the
    module-level statements `tops`."""
    lines = source.splitlines()

    def column(line: int, offset: int) -> int:  # ast's offsets count UTF-8 bytes
        return utf8_column(lines[line - 1] if line <= len(lines) else "", offset)

    found: list[tuple[str, int, int, str, str | None]] = []
    for node, function in (pair for top in tops for pair in _walk_from(top, None)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if _is_api(target, {"prim_func"}):
                    assert isinstance(target, ast.Attribute)
                    found.append(
                        (
                            python_ast.dotted_name(target.value) or "",
                            target.lineno,
                            column(target.lineno, target.col_offset),
                            "prim_func",
                            None,
                        )
                    )
        elif isinstance(node, ast.Call) and _is_api(node.func, _KERNEL_APIS):
            assert isinstance(node.func, ast.Attribute)
            line = node.lineno
            alias = python_ast.dotted_name(node.func.value) or ""
            found.append((alias, line, column(line, node.col_offset), node.func.attr, function))
    return sorted(found, key=lambda item: (item[1], item[2]))


def _walk_from(node: ast.AST, function: str | None) -> Iterator[tuple[ast.AST, str | None]]:
    """`node` and every node in it, each with the function that explains why it was not
    modeled: `plain:f` inside a plain Python function, `macro:m` inside a `@T.macro`, None
    inside other decorated ones (`function` is the one around `node`)."""
    yield node, function
    inner = function
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        decorators = [_target(d) for d in node.decorator_list]
        if any(_is_api(d, {"macro"}) for d in decorators):
            inner = f"macro:{node.name}"
        elif any(_decorator_name(d) in _KERNEL_DECORATORS for d in decorators):
            inner = None  # @T.prim_func, @tilelang.jit: the model's business
        elif decorators:
            inner = f"decorated:{node.name}:{ast.unparse(decorators[0])}"
        else:
            inner = f"plain:{node.name}"
    for child in ast.iter_child_nodes(node):
        yield from _walk_from(child, inner)


def _decorator_name(decorator: ast.expr) -> str | None:
    if isinstance(decorator, ast.Attribute):
        return decorator.attr
    return decorator.id if isinstance(decorator, ast.Name) else None


def _target(decorator: ast.expr) -> ast.expr:
    return decorator.func if isinstance(decorator, ast.Call) else decorator


def _is_api(node: ast.expr, names: set[str] | frozenset[str]) -> bool:
    """`T.Parallel`, or `utils.T.Parallel` through a module attribute."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr in names
        and python_ast.dotted_name(node.value) is not None
    )
