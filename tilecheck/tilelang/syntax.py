"""Cheap questions about the CST: statement walks without expression visits, parameters, targets."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence

import libcst as cst

from tilecheck.source import python_ast

_FIELDS: dict[type, tuple[str, ...]] = {}


def node_fields(kind: type) -> tuple[str, ...]:
    """A node type's fields that may hold nodes (not whitespace or plain values)."""
    known = _FIELDS.get(kind)
    if known is None:
        known = _FIELDS[kind] = tuple(
            item.name for item in dataclasses.fields(kind) if "whitespace" not in item.name
        )
    return known


def descendants(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`root` and every node under it, by the nodes' fields (several times faster than a
    libcst visitor, which rebuilds every node it leaves)."""
    stack: list[object] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.CSTNode):
            yield node
            for name in node_fields(type(node)):
                stack.append(getattr(node, name))
        elif isinstance(node, (tuple, list)):
            stack.extend(node)


def called_names(root: cst.CSTNode, methods: Sequence[str] = ()) -> set[str]:
    """The names called anywhere under `root`: `f` of `f(...)`, and of `f.m(...)` for `m` in
    `methods`."""
    found: set[str] = set()
    for node in descendants(root):
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Name):
                found.add(func.value)
            elif (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.attr.value in methods
            ):
                found.add(func.value.value)
    return found


def nested_statements(body: Iterable[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every statement nested in a statement list, without visiting expressions (cheap)."""
    stack = list(body)
    while stack:
        statement = stack.pop()
        yield statement
        for suite in suites(statement):
            if isinstance(suite, cst.IndentedBlock):
                stack.extend(suite.body)


def suites(statement: cst.CSTNode) -> Iterator[cst.BaseSuite]:
    for name in ("body", "orelse", "finalbody"):
        part = getattr(statement, name, None)
        if isinstance(part, cst.BaseSuite):
            yield part
        elif isinstance(part, (cst.Else, cst.Finally)):
            yield part.body
        elif isinstance(part, cst.If):  # elif
            yield from suites(part)
    for handler in getattr(statement, "handlers", ()):
        yield handler.body


def defines_kernel(function: cst.FunctionDef) -> bool:
    """Whether a `@...prim_func` definition appears anywhere inside `function`."""
    for statement in nested_statements(suite_body(function.body)):
        if isinstance(statement, cst.FunctionDef):
            for decorator in statement.decorators:
                expr = (
                    decorator.decorator.func
                    if isinstance(decorator.decorator, cst.Call)
                    else decorator.decorator
                )
                name = expr.attr.value if isinstance(expr, cst.Attribute) else getattr(expr, "value", None)
                if name == "prim_func":
                    return True
    return False


def has_init(node: cst.CSTNode | None) -> bool:
    if not isinstance(node, cst.Call):
        return False
    positional = [a for a in node.args if a.keyword is None]
    return any(a.keyword is not None and a.keyword.value == "init" for a in node.args) or len(positional) > 1


def parameters(function: cst.FunctionDef) -> list[cst.Param]:
    params = function.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def first_target_name(small: cst.CSTNode) -> str | None:
    if isinstance(small, cst.Assign) and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        return small.target.value
    return None


def target_names(target: cst.BaseExpression) -> list[str] | None:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
        return names if len(names) == len(target.elements) else None
    return None


def has_positional(call: cst.Call, index: int) -> bool:
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return len(positional) > index


def if_bodies(statement: cst.If) -> Iterator[Sequence[cst.BaseStatement]]:
    yield statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
    orelse = statement.orelse
    if isinstance(orelse, cst.If):
        yield from if_bodies(orelse)
    elif isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
        yield orelse.body.body


def assigned_names(statement: cst.CSTNode) -> set[str]:
    """Names a compound statement may bind (assignments, loop targets, definitions)."""
    names: set[str] = set()
    for inner in nested_statements([statement]):
        targets: list[cst.BaseExpression] = []
        if isinstance(inner, cst.SimpleStatementLine):
            for small in inner.body:
                if isinstance(small, cst.Assign):
                    targets += [t.target for t in small.targets]
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    targets.append(small.target)
        elif isinstance(inner, cst.For):
            targets.append(inner.target)
        elif isinstance(inner, (cst.FunctionDef, cst.ClassDef)):
            names.add(inner.name.value)
        while targets:
            target = targets.pop()
            if isinstance(target, cst.Name):
                names.add(target.value)
            elif isinstance(target, (cst.Tuple, cst.List)):
                targets += [element.value for element in target.elements]
    return names


def suite_body(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a suite (`if x: y = 1` on one line is one simple statement)."""
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    if isinstance(suite, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=suite.body)]
    return []


def string_value(node: cst.SimpleString) -> str | bytes:
    """The value of a string literal; plain ones without escapes skip `ast.literal_eval`."""
    raw = node.value
    if raw[:1] in ("'", '"') and "\\" not in raw and raw[:3] not in ('"""', "'''"):
        return raw[1:-1]
    value = python_ast.literal_eval(node.value)
    assert isinstance(value, (str, bytes))  # the literal of a SimpleString
    return value


def string_literal(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = string_value(node)
        return value if isinstance(value, str) else None
    return None


def is_reference(node: cst.BaseExpression) -> bool:
    """A name, attribute or constant subscript of one: evaluating it again costs nothing."""
    if isinstance(node, cst.Name):
        return True
    if isinstance(node, cst.Attribute):
        return is_reference(node.value)
    if isinstance(node, cst.Subscript):
        return is_reference(node.value) and all(
            isinstance(e.slice, cst.Index)
            and isinstance(e.slice.value, (cst.Integer, cst.SimpleString, cst.Name))
            for e in node.slice
        )
    return False
