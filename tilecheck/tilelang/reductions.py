"""Which tile reductions TileLang 0.1.15 lowers without a shared workspace (sm_80, measured).

A `T.reduce_*` whose reduced axis spans threads of more than one warp combines the warps'
partial results through a shared workspace (measured: +512 B for a `T.reduce_max(C_l, m,
dim=1)` of a (128, 128) `T.gemm` accumulator under the default warp policy). Proven to take
none: the last axis of a 2-D accumulator that only `T.gemm(..., policy=T.GemmWarpPolicy.FullRow)`
calls write, with rows a multiple of 16 per warp: every warp then owns whole rows and the
reduction is shuffles inside the warp (measured: 0 B more, and flash attention's
`T.reduce_max`/`T.reduce_sum` of such a tile with 8 warps, 458,752 B = Q + 3 K + 3 V).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.tilelang.model import Kernel, OpCall, walk
from tilecheck.tilelang.values import int_value

if TYPE_CHECKING:
    import libcst as cst

ALL_REDUCE = frozenset({"reduce_max", "reduce_min", "reduce_sum", "reduce_abssum", "reduce_absmax"})
MMA_ROWS = 16  # rows of one warp's mma tile (m16n8k16)


def within_warps(call: OpCall, kernel: Kernel, threads: int | None) -> bool:
    """Whether `call` is a reduction proven to take no shared workspace (see the module)."""
    import libcst as cst  # here: importing the rules must not import libcst

    if call.api not in ALL_REDUCE or not call.operands or threads is None or threads % 32:
        return False
    source = call.operands[0]
    node = call.site.node
    if source is None or not source.scope.endswith("fragment") or source.shape is None:
        return False
    rows = [int_value(v) for v in source.shape]
    if len(rows) != 2 or rows[0] is None or rows[0] % (MMA_ROWS * (threads // 32)):
        return False
    if not isinstance(node, cst.Call) or _dim(node) not in (1, -1):
        return False
    writers = [
        inner
        for item, _ in walk(kernel.body)
        for inner in getattr(item, "calls", ())
        if len(inner.operands) > 2 and inner.operands[2] is source and inner.api == "gemm"
    ]
    return bool(writers) and all(_full_row(w.site.node) for w in writers)


def _dim(node: cst.Call) -> int | None:
    import libcst as cst

    positional = [a for a in node.args if a.keyword is None]
    chosen = next((a for a in node.args if a.keyword is not None and a.keyword.value == "dim"), None)
    if chosen is None and len(positional) > 2:
        chosen = positional[2]
    if chosen is None:
        return None
    value = chosen.value
    if isinstance(value, cst.Integer):
        return int(value.value) if value.value.isdigit() else None
    if (
        isinstance(value, cst.UnaryOperation)
        and isinstance(value.operator, cst.Minus)
        and isinstance(value.expression, cst.Integer)
        and value.expression.value == "1"
    ):
        return -1
    return None


def _full_row(node: cst.CSTNode) -> bool:
    import libcst as cst

    if not isinstance(node, cst.Call):
        return False
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == "policy":
            value = arg.value
            return (
                isinstance(value, cst.Attribute)
                and value.attr.value == "FullRow"
                and (
                    (isinstance(value.value, cst.Attribute) and value.value.attr.value == "GemmWarpPolicy")
                    or (isinstance(value.value, cst.Name) and value.value.value == "GemmWarpPolicy")
                )
            )
    return False
