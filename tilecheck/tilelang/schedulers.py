"""TileLang's tile schedulers (`T.PersistentTileScheduler`, `tilelang/language/tile_schedule.py`
in TileLang 0.1.15): a `@meta_class` object whose state lives in `T.alloc_var` buffers.

Its read-only properties (`m_idx`, `n_idx`, `linear_idx`, `current_iter`) and `valid()` are loads
of those buffers, so runtime PrimExprs (`while sched.valid():` is a TIR `while`); `init()` and
`next_tile()` store into them (TileLang inlines them as statements). A scheduler built with
`stateful=False` has none of these (building a kernel that uses them fails), and `coord()` may
return Python values: both are unknown here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from tilecheck.tilelang.values import UNKNOWN, Constness, PyConst, TirExpr, Value

if TYPE_CHECKING:
    from tilecheck.tilelang.evaluate import ExpressionEvaluator
    from tilecheck.tilelang.scope import Frame, Sink

SCHEDULERS = frozenset({"PersistentTileScheduler"})
STATE = frozenset({"m_idx", "n_idx", "linear_idx", "current_iter"})
LOADS = frozenset({"valid"})  # methods that only read the state
STORES = frozenset({"init", "next_tile"})  # methods that write it (statements)


@dataclass(frozen=True, eq=False)
class SchedulerValue(Value):
    """A tile scheduler object; `stateful` unless built with a literal `stateful=False`."""

    stateful: bool = True


def scheduler(call: cst.Call, values: list[Value]) -> SchedulerValue:
    """The scheduler `T.PersistentTileScheduler(...)` builds, from its evaluated arguments:
    stateful when `stateful` is left at its default or is a literal True."""
    if any(argument.star for argument in call.args):
        return SchedulerValue(stateful=False)
    positional = [
        value for argument, value in zip(call.args, values, strict=True) if argument.keyword is None
    ]
    flag: Value = positional[6] if len(positional) > 6 else PyConst(True)  # the 7th parameter
    for argument, value in zip(call.args, values, strict=True):
        if argument.keyword is not None and argument.keyword.value == "stateful":
            flag = value
    return SchedulerValue(isinstance(flag, PyConst) and flag.value is True)


def state(value: SchedulerValue, name: str) -> Value | None:
    """`sched.m_idx`: a load of the state buffer; None when not one of the state properties."""
    return TirExpr(frozenset(), Constness.SYMBOLIC) if value.stateful and name in STATE else None


def call(
    evaluator: ExpressionEvaluator,
    receiver: SchedulerValue,
    method: str,
    node: cst.Call,
    frame: Frame,
    sink: Sink,
) -> Value:
    """`sched.valid()` (a load), `sched.init(x)` (stores: a statement), anything else unknown."""
    evaluator.arguments(node, frame, sink)
    if receiver.stateful and method in LOADS:
        return TirExpr(frozenset(), Constness.SYMBOLIC)
    if receiver.stateful and method in STORES:
        sink.emits = True  # inlined stores into the state buffers
        return PyConst(None)
    sink.unknown = True
    return UNKNOWN
