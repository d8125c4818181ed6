"""Fast structural helpers over libcst nodes.

libcst's visitor machinery costs several microseconds per node; the lowering walks every cloned
body once per clone, so these helpers walk dataclass fields directly and skip the whitespace and
punctuation fields, which never hold names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TypeVar

import libcst as cst

from tilecheck.source import python_ast

_NodeT = TypeVar("_NodeT", bound=cst.CSTNode)

_SKIP = frozenset(
    {
        "lpar",
        "rpar",
        "comma",
        "semicolon",
        "leading_lines",
        "lines_after_decorators",
        "trailing_whitespace",
        "header",
        "footer",
        "operator",
        "dot",
        "equal",
        "colon",
        "star",
        "asynchronous",
        "lbracket",
        "rbracket",
        "lbrace",
        "rbrace",
        "indent",
        "newline",
        "first_line",
        "empty_lines",
        "default_indent",
        "default_newline",
        "encoding",
    }
)
_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = tuple(
            f.name
            for f in dataclasses.fields(cls)
            if f.name not in _SKIP and not f.name.startswith("whitespace")
        )
        _FIELDS[cls] = fields
    return fields


_SLOTS: dict[type, tuple[str, ...]] = {}
_SET = object.__setattr__


def replace(node: _NodeT, changes: dict[str, object]) -> _NodeT:
    """`node.with_changes(**changes)` without dataclasses.replace and libcst's validation.

    Validation only ever raises; the lowering builds its changes from parsed, valid nodes, and
    `tilecheck lower --write` re-parses the result before writing it.
    """
    kind = type(node)
    names = _SLOTS.get(kind)
    if names is None:
        names = _SLOTS[kind] = tuple(field.name for field in dataclasses.fields(kind))
    new = object.__new__(kind)
    for name in names:
        _SET(new, name, changes[name] if name in changes else getattr(node, name))
    return new


_IS_NODE: dict[type, bool] = {}


def is_node(value: object) -> bool:
    """`isinstance(value, cst.CSTNode)` without the ABC machinery (a dict lookup per type)."""
    kind = type(value)
    found = _IS_NODE.get(kind)
    if found is None:
        found = _IS_NODE[kind] = isinstance(value, cst.CSTNode)
    return found


def iter_children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for name in child_fields(type(node)):
        value = getattr(node, name)
        if type(value) is tuple or type(value) is list:
            for item in value:
                if is_node(item):
                    yield item
        elif is_node(value):
            yield value


_SCOPES = frozenset(
    {cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.FunctionDef, cst.ClassDef}
)


def names_read(node: cst.CSTNode, opaque: set[str] | None = None) -> set[str]:
    """Every identifier used as a variable under `node` (attribute and keyword names excluded).

    Names under a lambda, comprehension or nested def are added to `opaque` as well: they may be
    rebound there, so the lowering never renames them.
    """
    found: set[str] = set()
    stack: list[tuple[cst.CSTNode, bool]] = [(node, False)]
    pop = stack.pop
    push = stack.append
    name_type, attribute_type, arg_type = cst.Name, cst.Attribute, cst.Arg
    while stack:
        current, inside_scope = pop()
        if type(current) is name_type:
            found.add(current.value)
            if inside_scope and opaque is not None:
                opaque.add(current.value)
            continue
        if type(current) is attribute_type or type(current) is arg_type:
            push((current.value, inside_scope))
            continue
        kind = type(current)
        scoped = inside_scope or kind in _SCOPES
        for field in child_fields(kind):
            value = getattr(current, field)
            if type(value) is tuple or type(value) is list:
                for item in value:
                    if is_node(item):
                        push((item, scoped))
            elif is_node(value):
                push((value, scoped))
    return found


def int_node(value: int) -> cst.BaseExpression:
    if value < 0:
        return cst.UnaryOperation(operator=cst.Minus(), expression=cst.Integer(str(-value)))
    return cst.Integer(str(value))


def literal_int(node: cst.BaseExpression) -> int | None:
    """The value of an integer literal, a negated one, or arithmetic over them."""
    if isinstance(node, cst.Integer):
        return int_value(node)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = literal_int(node.expression)
        if inner is None:
            return None
        return -inner if isinstance(node.operator, cst.Minus) else inner
    if isinstance(node, cst.BinaryOperation):
        left, right = literal_int(node.left), literal_int(node.right)
        if left is None or right is None:
            return None
        op = node.operator
        if isinstance(op, cst.Add):
            return bounded(left + right)
        if isinstance(op, cst.Subtract):
            return bounded(left - right)
        if isinstance(op, cst.Multiply):
            return bounded(left * right)
        if isinstance(op, cst.FloorDivide) and right:
            return left // right
        if isinstance(op, cst.Modulo) and right:
            return left % right
    return None


# Python operator precedence, higher binds tighter.
_BINARY_PRECEDENCE = {
    cst.BitOr: 4,
    cst.BitXor: 5,
    cst.BitAnd: 6,
    cst.LeftShift: 7,
    cst.RightShift: 7,
    cst.Add: 8,
    cst.Subtract: 8,
    cst.Multiply: 9,
    cst.Divide: 9,
    cst.FloorDivide: 9,
    cst.Modulo: 9,
    cst.MatrixMultiply: 9,
    cst.Power: 11,
}
UNARY_PRECEDENCE = 10
ATOM_PRECEDENCE = 20


def precedence(node: cst.BaseExpression) -> int:
    if node.lpar:
        return ATOM_PRECEDENCE
    if isinstance(node, cst.BinaryOperation):
        return _BINARY_PRECEDENCE[type(node.operator)]
    if isinstance(node, cst.UnaryOperation):
        return 1 if isinstance(node.operator, cst.Not) else UNARY_PRECEDENCE
    if isinstance(node, cst.Comparison):
        return 3
    if isinstance(node, cst.BooleanOperation):
        return 2 if isinstance(node.operator, cst.And) else 1
    if isinstance(node, (cst.IfExp, cst.Lambda, cst.NamedExpr)):
        return 0
    return ATOM_PRECEDENCE


def parenthesize(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def operand(node: cst.BaseExpression, parent_precedence: int, right: bool) -> cst.BaseExpression:
    """`node` as an operand of a binary operator, parenthesized the way PyPTO's printer does:
    a left operand when it binds looser, a right operand when it binds looser or equal."""
    own = precedence(node)
    if parent_precedence == _BINARY_PRECEDENCE[cst.Power]:
        right = not right  # ** is right-associative
    if own < parent_precedence or (right and own == parent_precedence):
        return parenthesize(node)
    return node


def binop(
    left: cst.BaseExpression, operator: cst.BaseBinaryOp, right: cst.BaseExpression
) -> cst.BinaryOperation:
    level = _BINARY_PRECEDENCE[type(operator)]
    return cst.BinaryOperation(
        left=operand(left, level, right=False), operator=operator, right=operand(right, level, right=True)
    )


def binary_precedence(operator: cst.BaseBinaryOp) -> int:
    return _BINARY_PRECEDENCE[type(operator)]


# Folded integers are bounded: PyPTO's IR holds 64-bit integers, and an unbounded fold
# (`(10**4096)**4096`, a 5,000-digit literal) would cost unbounded time and memory. A value
# beyond the bound is unknown, as a value tilecheck cannot read is.
MAX_INT_BITS = 256
_MAX_LITERAL_CHARS = 100  # no literal this long stays within MAX_INT_BITS


def bounded(value: int) -> int | None:
    """`value` when it is within `MAX_INT_BITS`, else None (unknown)."""
    return value if value.bit_length() <= MAX_INT_BITS else None


def int_value(node: cst.Integer) -> int | None:
    """`node.evaluated_value` without its `literal_eval` (which compiles code on every call);
    None beyond `MAX_INT_BITS`."""
    if len(node.value) > _MAX_LITERAL_CHARS:
        return None
    try:
        return bounded(int(node.value, 0))
    except ValueError:  # a leading zero or an underscore `int(..., 0)` does not take
        value = python_ast.literal_eval(node.value)
        return bounded(value) if isinstance(value, int) else None
