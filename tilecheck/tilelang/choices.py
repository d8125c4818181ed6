"""A TileLang function chosen by a Python condition tilecheck cannot decide (`emit =
T.atomic_max if op == "max" else T.atomic_min`): whichever it is, calling it is an operation, so
a statement; which operation, and so what it does to its operands, is not known."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tilecheck.tilelang import folding, loops, schedulers
from tilecheck.tilelang.imports import dotted_name, member_of
from tilecheck.tilelang.language import ALLOCATIONS, DTYPES, NO_STATEMENT, SYMBOLS, VIEWS
from tilecheck.tilelang.values import UNKNOWN, ApiChoice, Constness, ModuleRef, TirExpr, Value

if TYPE_CHECKING:
    from tilecheck.tilelang.evaluate import ExpressionEvaluator
    from tilecheck.tilelang.scope import Frame, Sink

# The calls `ExpressionEvaluator.api_call` models as something other than an operation.
_SPECIAL = (
    ALLOCATIONS,
    VIEWS,
    SYMBOLS,
    DTYPES,
    NO_STATEMENT,
    folding.MATH,
    schedulers.SCHEDULERS,
    loops.CONSTRUCTORS,
)


def choice_of(evaluator: ExpressionEvaluator, node: cst.IfExp, frame: Frame, sink: Sink) -> Value:
    """`A if test else B` with `test` undecided: an ApiChoice when both are TileLang names."""
    if dotted_name(node.body) is None or dotted_name(node.orelse) is None:
        return UNKNOWN
    chosen = [evaluator.value(branch, frame, sink) for branch in (node.body, node.orelse)]
    qualified = tuple(value.qualified for value in chosen if isinstance(value, ModuleRef))
    return ApiChoice(qualified) if len(qualified) == len(chosen) else UNKNOWN


def call(
    evaluator: ExpressionEvaluator, choice: ApiChoice, node: cst.Call, frame: Frame, sink: Sink
) -> Value:
    """A call of the choice: a statement when every alternative is an operation (no operation
    is recorded, as which one runs is not known)."""
    args = evaluator.arguments(node, frame, sink)
    if all(_operation(member_of(qualified)) for qualified in choice.qualified):
        sink.emits = True
        uses = frozenset().union(*(arg.uses for arg in args if isinstance(arg, TirExpr)))
        return TirExpr(uses, Constness.SYMBOLIC)
    sink.unknown = True
    return UNKNOWN


def _operation(api: str | None) -> bool:
    return (
        api is not None and api not in ("evaluate", "const") and not any(api in names for names in _SPECIAL)
    )
