from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.tilelang.model import Stmt
from tilecheck.tilelang.queries import kernel_items, parallel_ancestors

from .._examples import KERNEL
from ._loops import pipeline_in_parallel_root
from ._related import enclosing_parallel, tile_op_rewrite

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


class TileOpInParallel(Rule):
    """A tile operator (`T.copy` of a region, `T.fill`, `T.gemm`, ...) inside a `T.Parallel` loop.

    ## What it does
    Reports a call that lowers to a `tl.tileop.*` operator anywhere inside a `T.Parallel`
    loop. Whether a call is a tile operator can depend on its arguments: `T.copy(A[i], B[i])`
    of two single elements without annotations is a plain store and `T.atomic_add(B[i], x)`
    an element intrinsic, both allowed; on a region or a whole buffer they are tile ops.
    `T.fill` is always one. `T.cumsum` of a fragment expands into `T.copy` tile ops.

    ## Why is this bad?
    A tile operator already distributes its work over the block's threads; inside a
    parallel region every iteration would issue the whole operation. TileLang rejects it
    with "Only elementwise operations are allowed inside a parallel loop".

    ## Example
    ```python
    for i in T.Parallel(64):
        T.copy(A[i, 0:64], B[i, 0:64])
    ```

    ## Use instead
    ```python
    T.copy(A, B)
    ```
    or the element-wise form `for i, j in T.Parallel(64, 64): B[i, j] = A[i, j]`. A `T.fill`
    becomes `S[i, j] = 0`; a `T.gemm` or a reduction has no element-wise form in a parallel
    loop: call it once, outside the loop (a `T.gemm` usually belongs in the `T.Pipelined`
    loop over K).

    ## Backends
    All: TileLang's pre-lower check ([`tilelang/analysis/nested_loop_checker.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/analysis/nested_loop_checker.py)) rejects it before any target is chosen.
    """

    CODE = "TL103"
    NAME = "tile-op-in-parallel"
    GRADE = Grade.SEMANTIC
    CHECKER = "NestedLoopChecker"
    HELP = (
        "Call the tile operator once, outside the `T.Parallel` loop: it distributes its own work over "
        "the block's threads."
    )
    CHECKLIST = Checklist(
        grade="Semantic: a tile op is itself a distributed operation and cannot run per parallel iteration.",
        shape="A Call whose op has the TLOpBuilder attribute (a tl.tileop.* op) below a PARALLEL For.",
        smallest_invalid="`for i in T.Parallel(8): T.fill(B[i], 0)`",
        closest_valid="`for i in T.Parallel(8): T.copy(A[i], B[i])` (scalar fast path: a plain store)",
        siblings="A tile op next to a parallel loop is fine; only ancestors matter.",
        neutral_wrappers="No: at any depth below a parallel loop, through serial loops and ifs.",
        generated_ir="Checked on the frontend's output. Tile ops nested in another call's arguments "
        "are not seen by TileLang's checker and are left to a separate rule.",
        proof="Proven for direct calls whose operands are known buffers, regions or elements; "
        "undecidable operands are not reported. Under a Python-level `if` tilecheck cannot decide, "
        "the message names the condition (`when `flag` is true`).",
        first_pass="LowerTileOp and parallel loop layout inference.",
        rewrite="Hoist the tile op out of the parallel loop or use element-wise statements.",
    )
    VALID = [
        Valid(KERNEL + "        for i in T.Parallel(64):\n            T.copy(A[i, 0], B[i, 0])\n"),
        Valid(KERNEL + "        T.copy(A, B)\n        for i in T.Parallel(64):\n            B[i, 0] = 0\n"),
    ]
    INVALID = [
        Invalid(
            KERNEL + "        for i in T.Parallel(64):\n            T.copy(A[i, 0:64], B[i, 0:64])\n",
            at=((8, 13),),
            message="`T.copy`",
        ),
        Invalid(
            KERNEL
            + "        for i in T.Parallel(64):\n            if bx > 0:\n                T.fill(B[i, 0], 0)\n",
            at=((9, 17),),
        ),
        Invalid(
            "import tilelang.language as T\n\n\ndef make(flag):\n    @T.prim_func\n"
            '    def main(B: T.Tensor((64, 64), "float32")):\n'
            "        with T.Kernel(1, threads=128) as bx:\n            for i in T.Parallel(64):\n"
            "                if flag:\n                    T.fill(B[i, 0:8], 0)\n    return main\n",
            at=((10, 21),),
            message="(when `flag` is true)",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for item, ancestors in kernel_items(ctx.model.kernels):
            if not isinstance(item, Stmt) or not item.calls:
                continue
            parents = parallel_ancestors(ancestors)
            if not parents:
                continue
            outer = parents[-1]
            for call in item.calls:
                if call.tile_op is None or call.nested:
                    continue
                line = ctx.line_of(outer.site.report_node, outer.site.report_top)
                expands = " (it expands into `T.copy` through shared memory)" if call.api == "cumsum" else ""
                ctx.report(
                    call.site,
                    f"Tile operator `T.{call.api}` (`tl.tileop.{call.tile_op}`){expands} inside the "
                    f"`T.Parallel` loop at line {line}; only element-wise operations are allowed in a "
                    f"parallel region{ctx.macro_note(call.site)}{ctx.condition_note(item.guards)}",
                    caused_by=pipeline_in_parallel_root(ctx, ancestors),
                    related=(enclosing_parallel(ctx, outer),),
                    help=tile_op_rewrite(call.api, line),
                )
