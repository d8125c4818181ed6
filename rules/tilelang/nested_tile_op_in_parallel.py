from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.tilelang.model import Stmt, StmtKind
from tilecheck.tilelang.queries import kernel_items, parallel_ancestors, present

from .._examples import KERNEL
from ._loops import pipeline_in_parallel_root
from ._related import enclosing_parallel, tile_op_rewrite

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


class NestedTileOpInParallel(Rule):
    """A tile operator nested in another call's arguments inside a `T.Parallel` loop.

    ## What it does
    Reports a call that lowers to a `tl.tileop.*` operator (`T.copy` of a region, `T.fill`,
    `T.gemm`, ...) written as an argument of another call (`T.call_extern(..., T.copy(...))`,
    `T.if_then_else(c, T.copy(...), ...)`) anywhere inside a `T.Parallel` loop. Direct calls
    are `tile-op-in-parallel` (TL103).

    ## Why is this bad?
    It is the same structure violation as TL103: a tile operator distributes its own work
    over the block's threads and cannot run once per parallel iteration. **TileLang's
    checker does not catch it**: its `NestedLoopChecker` overrides `visit_call_` without
    visiting call arguments, so a tile op inside another call's arguments passes the
    pre-lower check ([`tilelang/analysis/nested_loop_checker.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/analysis/nested_loop_checker.py);
    verified with TileLang 0.1.15 and `T.call_extern`), and the kernel
    goes on to lower a tile operator inside a parallel region.

    ## Example
    ```python
    for i in T.Parallel(64):
        T.call_extern("handle", "wrap", T.copy(A[i, 0:64], B[i, 0:64]))
    ```

    ## Use instead
    ```python
    T.copy(A, B)
    for i in T.Parallel(64):
        ...
    ```

    ## Backends
    All, and with no backend selected: the structure rule does not depend on the target.
    """

    CODE = "TL209"
    NAME = "nested-tile-op-in-parallel"
    GRADE = Grade.SEMANTIC
    HELP = "Call the tile operator once, outside the parallel loop and outside the enclosing call."
    CHECKLIST = Checklist(
        grade="Semantic: the same structure violation as TL103, only hidden from TileLang's checker.",
        shape="A Call whose op has the TLOpBuilder attribute inside the arguments of another Call, below a "
        "PARALLEL For.",
        smallest_invalid='`for i in T.Parallel(8): T.call_extern("handle", "f", T.fill(B[i], 0))`',
        closest_valid='`for i in T.Parallel(8): T.call_extern("handle", "f", A[i])`',
        siblings="A tile op next to a parallel loop is fine; only ancestors matter.",
        neutral_wrappers="No: at any depth below a parallel loop, through serial loops and ifs.",
        generated_ir="Checked on the frontend's output; macro arguments are left out (their Binds are "
        "visited by TileLang's checker).",
        proof="Proven for operands that are known buffers, regions or elements; undecidable operands are "
        "not reported.",
        first_pass="LowerTileOp and parallel loop layout inference; TileLang's pre-lower check misses it.",
        rewrite="Hoist the tile op out of the parallel loop and out of the call.",
    )
    VALID = [
        Valid(
            KERNEL + '        for i in T.Parallel(64):\n            T.call_extern("handle", "f", A[i, 0])\n'
        ),
        Valid(KERNEL + '        T.call_extern("handle", "f", T.copy(A[0, 0:64], B[0, 0:64]))\n'),
    ]
    INVALID = [
        Invalid(
            KERNEL
            + '        for i in T.Parallel(64):\n            T.call_extern("handle", "f", T.copy(A[i, 0:64], B[i, 0:64]))\n',
            at=((8, 42),),
            message="TileLang's checker does not catch this",
        ),
        Invalid(
            "import tilelang.language as T\n\n\ndef make(flag):\n    @T.prim_func\n"
            '    def main(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32")):\n'
            "        with T.Kernel(1, threads=128) as bx:\n            for i in T.Parallel(64):\n"
            "                if flag:\n"
            '                    T.call_extern("handle", "f", T.copy(A[i, 0:64], B[i, 0:64]))\n    return main\n',
            at=((10, 50),),
            message="(when `flag` is true)",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for item, ancestors in kernel_items(ctx.model.kernels):
            if not isinstance(item, Stmt) or not item.calls or not present(item):
                continue
            if item.kind is StmtKind.MACRO_BIND:
                continue  # a macro argument's Bind value is visited by TileLang's checker
            parents = parallel_ancestors(ancestors)
            if not parents:
                continue
            outer = parents[-1]
            for call in item.calls:
                if call.tile_op is None or not call.nested:
                    continue
                line = ctx.line_of(outer.site.report_node, outer.site.report_top)
                ctx.report(
                    call.site,
                    f"Tile operator `T.{call.api}` (`tl.tileop.{call.tile_op}`) inside another call's arguments "
                    f"in the `T.Parallel` loop at line {line}; TileLang's checker does not catch this because it "
                    f"does not look into call arguments, but a tile operator still cannot run once per parallel "
                    f"iteration{ctx.macro_note(call.site)}{ctx.condition_note(item.guards)}",
                    caused_by=pipeline_in_parallel_root(ctx, ancestors),
                    related=(enclosing_parallel(ctx, outer),),
                    help=tile_op_rewrite(call.api, line),
                )
