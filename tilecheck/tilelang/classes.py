"""Class bodies read as Python: the literals that `self.X` and `cls.X` stand for in methods.

Apart from `python_level` because these read a class's syntax (and literals through the callback
they are given), not the reader's state.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from tilecheck.tilelang.syntax import parameters, suite_body
from tilecheck.tilelang.values import PyConst, Value


def class_attributes(
    statement: cst.ClassDef, literal: Callable[[cst.BaseExpression], PyConst | None]
) -> dict[str, Value]:
    """The class attributes assigned a literal (`X = 64`)."""
    found: dict[str, Value] = {}
    for line in suite_body(statement.body):
        if isinstance(line, cst.SimpleStatementLine):
            for small in line.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    value = literal(small.value)
                    if isinstance(target, cst.Name) and value is not None:
                        found[target.value] = value
    return found


def decorator_name(node: cst.BaseExpression) -> str | None:
    node = node.func if isinstance(node, cst.Call) else node
    return node.value if isinstance(node, cst.Name) else None


def constructed_with_arguments(source: str, name: str) -> bool:
    """Whether the file may call `name(...)` with arguments (then `__init__`'s defaults are
    not the values); read from the text, conservatively (a comment counts too)."""
    return re.search(rf"(?<![\w.]){re.escape(name)}\(\s*[^)\s]", source) is not None


def init_defaults(
    init: cst.FunctionDef, literal: Callable[[cst.BaseExpression], PyConst | None]
) -> dict[str, Value]:
    """`self.X = x` in `__init__` where `x` is a parameter with a literal default."""
    params = parameters(init)
    if not params:
        return {}
    receiver = params[0].name.value
    defaults = {p.name.value: literal(p.default) for p in params[1:] if p.default is not None}
    found: dict[str, Value] = {}
    for line in suite_body(init.body):
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                continue
            target = small.targets[0].target
            default = defaults.get(small.value.value) if isinstance(small.value, cst.Name) else None
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == receiver
                and default is not None
            ):
                found[target.attr.value] = default
    return found


def contains_call(node: cst.BaseExpression) -> bool:
    """Whether an expression contains a call (a project module's constants are read without them)."""
    found = False

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> bool:
            nonlocal found
            found = True
            return False

    node.visit(Finder())
    return found
