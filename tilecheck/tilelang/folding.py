"""Constant folding, as TVM folds at construction time, with bounds on size (and so on time).

The real checkers only ever see folded expressions: `i * 0` and `i % 1` are `0`, `i + 0` and
`i * 1` are `i` (arith::TryConstFold). Python arithmetic on constants folds as Python does, but
only while the result stays small: an integer of more than `MAX_INT_BITS` bits, a sequence or
string of more than `MAX_SEQUENCE` items, or a literal of more than `MAX_LITERAL_DIGITS` digits
is an int (or a Python value) whose content tilecheck does not hold. Folding never raises, and
never computes something large: every bound is checked before the operation runs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import libcst as cst

from tilecheck.source import python_ast
from tilecheck.tilelang.values import (
    PY_INT,
    UNKNOWN,
    Constness,
    LoopVarList,
    PyConst,
    PyValue,
    TirExpr,
    Unknown,
    Value,
    Var,
    constness_of,
)

# Far beyond any loop bound or shape (TIR integers are 64-bit), and far below CPython's
# 4,300-digit limit on int <-> str conversion, so that every folded value can be printed.
MAX_INT_BITS = 4096
MAX_SEQUENCE = 1 << 16  # the longest string, list or tuple folded statically
MAX_EXPONENT = 64  # `x ** n` and `x << n` with a larger `n` are not folded
MAX_BASE = 1 << 16  # nor `b ** n` with a larger base
# Decimal digits of an integer literal read as a value; a longer one is an int tilecheck
# does not hold (CPython refuses more than 4,300 digits, and a few hundred already exceed
# MAX_INT_BITS).
MAX_LITERAL_DIGITS = 1300

_FOLD: dict[type, Callable[[Any, Any], object]] = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.FloorDivide: operator.floordiv,
    cst.Divide: operator.truediv,
    cst.Modulo: operator.mod,
    cst.Power: operator.pow,
    cst.LeftShift: operator.lshift,
    cst.RightShift: operator.rshift,
    cst.BitAnd: operator.and_,
    cst.BitOr: operator.or_,
    cst.BitXor: operator.xor,
}


def _identical(a: object, b: object) -> bool:
    """`is` where Python's answer does not depend on object identity: against a singleton."""
    if not any(x is None or isinstance(x, bool) for x in (a, b)):
        raise TypeError("identity of values tilecheck holds as constants")
    return a is b


def _member(item: object, container: object) -> bool:
    """`in` over a constant container; a tuple or list holds tilecheck's values, unwrapped here."""
    if isinstance(container, (tuple, list)):
        if not all(isinstance(element, PyConst) for element in container):
            raise TypeError("a member tilecheck does not know")
        return any(item == element.value for element in container)
    if isinstance(container, (str, dict, set, frozenset)):
        return item in container
    raise TypeError("not a container")


COMPARE: dict[type, Callable[[Any, Any], object]] = {
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
    cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge,
    cst.Is: _identical,
    cst.IsNot: lambda a, b: not _identical(a, b),
    cst.In: _member,
    cst.NotIn: lambda a, b: not _member(a, b),
}

# TileLang calls that fold like Python on constants and build a PrimExpr otherwise.
MATH: dict[str, Callable[..., object]] = {
    "min": min,
    "max": max,
    "ceildiv": lambda a, b: -(-a // b),
    "floordiv": operator.floordiv,
    "floormod": operator.mod,
    "truncdiv": lambda a, b: int(a / b),
    "truncmod": lambda a, b: a - int(a / b) * b,
}

# Python builtins folded on constant arguments.
BUILTINS: dict[str, Callable[..., object]] = {
    "min": min,
    "max": max,
    "len": len,
    "int": int,
    "abs": abs,
    "float": float,
}

# What folding may raise on bad operands (`1 / 0`, `int("x")`, `float(1 << 2000)`).
FOLD_ERRORS = (TypeError, ValueError, ArithmeticError, IndexError, KeyError)

_SEQUENCES = (str, bytes, list, tuple)


def is_small(value: object) -> bool:
    """Whether a folded Python value is within the bounds tilecheck holds values to."""
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return value.bit_length() <= MAX_INT_BITS
    if isinstance(value, _SEQUENCES):
        return len(value) <= MAX_SEQUENCE
    return True


def bounded(value: object) -> Value:
    """`value` as a constant, or an int / Python value of unknown content when too large."""
    if is_small(value):
        return PyConst(value)
    return PY_INT if isinstance(value, int) else PyValue()


def integer_literal(node: cst.Integer) -> Value:
    """An integer literal's value; an int of unknown value when it is too long to hold."""
    digits = node.value.replace("_", "")
    if len(digits) > MAX_LITERAL_DIGITS:
        return PY_INT
    if digits.isascii() and digits.isdigit() and (digits[0] != "0" or not digits.strip("0")):
        return bounded(int(digits))  # plain decimal: no `literal_eval` (a compile per literal)
    try:
        return bounded(python_ast.literal_eval(node.value))
    except FOLD_ERRORS:
        return PY_INT


def call_folded(function: Callable[..., object], arguments: Sequence[object]) -> Value:
    """`function(*arguments)` on small constants (a builtin or TileLang's math), or unknown."""
    try:
        return bounded(function(*arguments))
    except FOLD_ERRORS:
        return UNKNOWN


def _bits(value: object) -> int:
    return value.bit_length() if isinstance(value, int) else 0


def _too_big(op: type, left: object, right: object) -> bool:
    """Whether `left <op> right` could exceed the bounds (checked before computing it)."""
    if op in (cst.Power, cst.LeftShift) and isinstance(right, int) and abs(right) > MAX_EXPONENT:
        return True
    if op is cst.Power and isinstance(left, int) and abs(left) > MAX_BASE:
        return True
    if op is cst.Power and isinstance(left, int) and isinstance(right, int) and right > 0:
        return _bits(left) * right > MAX_INT_BITS
    if op is cst.LeftShift and isinstance(right, int) and right > 0:
        return _bits(left) + right > MAX_INT_BITS
    if op is cst.Multiply:
        if isinstance(left, int) and isinstance(right, int):
            return _bits(left) + _bits(right) > MAX_INT_BITS
        for sequence, count in ((left, right), (right, left)):
            if isinstance(sequence, _SEQUENCES) and isinstance(count, int):
                return len(sequence) * count > MAX_SEQUENCE
    if op is cst.Add and isinstance(left, _SEQUENCES) and isinstance(right, _SEQUENCES):
        return len(left) + len(right) > MAX_SEQUENCE
    # `"%09999999d" % 1` would build the string before it could be measured.
    return op is cst.Modulo and isinstance(left, (str, bytes))


def combine(values: list[Value], runtime: bool = False) -> Value:
    """The value of a PrimExpr built from `values` (no folding).

    With `runtime` (arithmetic and comparisons), an operand tilecheck cannot evaluate does not
    hide the result when another operand is proven to hold a TIR variable or a buffer element
    (`bx * block_M + i`, `A[k] < limit`): TVM's operator builds a PrimExpr of that variable (or
    the build fails). Only the operation's identity (`+ 0`, `* 1`) would fold the result back
    to the variable itself; an unknown block size or offset is taken not to be that.
    """
    if runtime and any(isinstance(v, TirExpr) and v.constness is Constness.SYMBOLIC for v in values):
        known = [v for v in values if not isinstance(v, Unknown) or isinstance(v, LoopVarList)]
        if len(known) < len(values):
            return combine(known) if known else UNKNOWN
    uses: set[Var] = set()
    constness = Constness.CONST
    tir = False
    for value in values:
        if isinstance(value, TirExpr):
            tir = True
            uses |= value.uses
            constness = constness.join(value.constness)
        elif isinstance(value, PyConst):
            if not isinstance(value.value, (int, float, bool)):
                return UNKNOWN
        elif isinstance(value, PyValue):
            constness = constness.join(Constness.CONST if value.is_int else Constness.UNKNOWN)
        else:
            return UNKNOWN
    if not tir:
        return PyValue(is_int=constness is Constness.CONST)
    return TirExpr(frozenset(uses), constness)


def _defaults_to(value: Value, number: int) -> bool:
    return isinstance(value, PyValue) and type(value.default) is int and value.default == number


def _is_const(value: Value, number: int) -> bool:
    return isinstance(value, PyConst) and type(value.value) is int and value.value == number


def _fold_constants(op: type, left: object, right: object) -> Value:
    fold = _FOLD.get(op)
    if fold is None:
        return UNKNOWN
    if _too_big(op, left, right):
        ints = isinstance(left, int) and isinstance(right, int) and op is not cst.Divide
        return PY_INT if ints else PyValue()
    try:
        return bounded(fold(left, right))
    except FOLD_ERRORS:
        return UNKNOWN


def binary(op: type, left: Value, right: Value) -> Value:
    """Fold or build `left <op> right` the way TVM's operators do at construction time."""
    if isinstance(left, PyConst) and isinstance(right, PyConst):
        return _fold_constants(op, left.value, right.value)
    if isinstance(left, TirExpr) or isinstance(right, TirExpr):
        # A parameter whose default would fold the variable away (`i * K` with `K=0`) may do
        # so when the factory is built with its defaults: the use is not proven.
        if op is cst.Multiply and (_defaults_to(left, 0) or _defaults_to(right, 0)):
            return UNKNOWN
        if op is cst.Modulo and _defaults_to(right, 1):
            return UNKNOWN
        # TVM's construction-time folding (arith::TryConstFold) removes these uses.
        if op is cst.Multiply and (_is_const(left, 0) or _is_const(right, 0)):
            return PyConst(0)
        if op is cst.Modulo and _is_const(right, 1):
            return PyConst(0)
        if op in (cst.Multiply, cst.FloorDivide) and _is_const(right, 1):
            return left
        if op is cst.Multiply and _is_const(left, 1):
            return right
        if op in (cst.Add, cst.Subtract) and _is_const(right, 0):
            return left
        if op is cst.Add and _is_const(left, 0):
            return right
        if op not in _FOLD:
            return UNKNOWN
        return combine([left, right], runtime=True)
    if isinstance(left, Unknown) or isinstance(right, Unknown):
        return UNKNOWN
    if isinstance(left, (PyConst, PyValue)) and isinstance(right, (PyConst, PyValue)):
        ints = constness_of(left) is Constness.CONST and constness_of(right) is Constness.CONST
        return PY_INT if ints and op is not cst.Divide else PyValue()
    return UNKNOWN


def unary(operator_node: cst.BaseUnaryOp, operand: Value) -> Value:
    """`-x`, `+x`, `~x` and `not x`, folded on constants."""
    if isinstance(operator_node, cst.Not):
        if isinstance(operand, PyConst):
            return PyConst(not operand.value)
        return operand if isinstance(operand, TirExpr) else PyValue()
    if isinstance(operand, PyConst) and isinstance(operand.value, (int, float)):
        if isinstance(operator_node, cst.Minus):
            return PyConst(-operand.value)
        if isinstance(operator_node, cst.Plus):
            return operand
        if isinstance(operator_node, cst.BitInvert) and isinstance(operand.value, int):
            return PyConst(~operand.value)
    if isinstance(operand, TirExpr):
        return TirExpr(operand.uses, operand.constness)
    return operand if isinstance(operand, PyValue) else UNKNOWN


def compare(operators: list[cst.BaseCompOp], values: list[Value]) -> Value:
    """A chained comparison `a < b <= c`: folded when every operand is a constant."""
    result: object = True
    for index, operator_node in enumerate(operators):
        left, right = values[index], values[index + 1]
        function = COMPARE.get(type(operator_node))
        if (
            result is None
            or function is None
            or not isinstance(left, PyConst)
            or not isinstance(right, PyConst)
        ):
            result = None
            continue
        try:
            result = result and function(left.value, right.value)
        except FOLD_ERRORS:
            result = None
    if result is not None:
        return PyConst(bool(result))
    return combine(values, runtime=True)
