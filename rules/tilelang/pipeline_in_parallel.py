from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.tilelang.model import Loop, Request
from tilecheck.tilelang.queries import kernel_items, parallel_ancestors

from .._examples import KERNEL
from ._loops import pipeline_in_parallel_root
from ._related import enclosing_parallel

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


class PipelineInParallel(Rule):
    """A pipeline-requested loop inside a `T.Parallel` loop.

    ## What it does
    Reports a loop that requests software pipelining (`num_stages > 0`, a non-empty `order`
    or `stage`, one of those keys in `annotations`, or `T.Persistent(num_stages > 0)`)
    anywhere inside a `T.Parallel` loop, at any depth. A bare `T.Pipelined(n)` and
    `num_stages=0` behave like serial loops and are fine.

    ## Why is this bad?
    Parallel lowering distributes element-wise work over threads, while software-pipeline
    planning owns a sequential producer/consumer timeline; a pipeline cannot be planned
    inside a parallel region. TileLang rejects it with "Pipelined loop cannot be nested
    inside a parallel loop".

    ## Example
    ```python
    for i in T.Parallel(64):
        for k in T.Pipelined(4, num_stages=2):
            B[i, k] = A[i, k]
    ```

    ## Use instead
    ```python
    for k in T.Pipelined(4, num_stages=2):
        for i in T.Parallel(64):
            B[i, k] = A[i, k]
    ```
    (a pipeline may contain parallel loops), or drop `num_stages` to get a serial loop.

    ## Backends
    All: TileLang's pre-lower check ([`tilelang/analysis/nested_loop_checker.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/analysis/nested_loop_checker.py)) rejects it before any target is chosen.
    """

    CODE = "TL102"
    NAME = "pipeline-in-parallel"
    GRADE = Grade.SEMANTIC
    CHECKER = "NestedLoopChecker"
    HELP = (
        "Make the pipeline the outer loop and put `T.Parallel` inside it, around the element-wise "
        "statements only (tile operators go directly in the pipeline body); or drop the pipeline request "
        "to make it a serial loop."
    )
    CHECKLIST = Checklist(
        grade="Semantic: a software pipeline's sequential timeline cannot exist inside a parallel region.",
        shape="A non-parallel For carrying num_stages, tl_pipeline_order or tl_pipeline_stage "
        "annotations anywhere below a PARALLEL For.",
        smallest_invalid="`for i in T.Parallel(8): for k in T.Pipelined(4, num_stages=2): ...`",
        closest_valid="`for i in T.Parallel(8): for k in T.Pipelined(4): ...` (bare, serial-like)",
        siblings="A pipeline next to a parallel loop is fine; only ancestors matter.",
        neutral_wrappers="No: any depth below a parallel loop is rejected, through serial loops and ifs.",
        generated_ir="Checked on the frontend's output; post-planning keys (tl_pipelined_num_stages) "
        "are not requests.",
        proof="Proven when num_stages, order, stage or annotations are literal or constant; a value "
        "tilecheck cannot evaluate is not reported.",
        first_pass="PipelinePlanning / InjectSoftwarePipeline.",
        rewrite="Hoist the pipeline out of the parallel loop or drop num_stages/order/stage.",
    )
    VALID = [
        Valid(
            KERNEL
            + "        for i in T.Parallel(64):\n            for k in T.Pipelined(4):\n                B[i, k] = 0\n"
        ),
        Valid(
            KERNEL + "        for k in T.Pipelined(4, num_stages=2):\n            for i in T.Parallel(64):\n"
            "                B[i, k] = A[i, k]\n"
        ),
    ]
    INVALID = [
        Invalid(
            KERNEL + "        for i in T.Parallel(64):\n            for k in T.Pipelined(4, num_stages=2):\n"
            "                B[i, k] = A[i, k]\n",
            at=((8, 22),),
            message="num_stages=2",
        ),
        Invalid(
            KERNEL + "        for i in T.Parallel(64):\n            for k in T.serial(4):\n"
            "                for q in T.Pipelined(0, 8, 2):\n                    B[i, q] = 0\n",
            at=((9, 26),),
        ),
        Invalid(
            "import tilelang.language as T\n\n\ndef make(flag):\n    @T.prim_func\n"
            '    def main(B: T.Tensor((64, 64), "float32")):\n'
            "        with T.Kernel(1, threads=128) as bx:\n            for i in T.Parallel(64):\n"
            "                if flag:\n                    for k in T.Pipelined(4, num_stages=2):\n"
            "                        B[i, k] = 0\n    return main\n",
            at=((10, 30),),
            message="a pipeline cannot be nested in a parallel region (when `flag` is true)",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for item, ancestors in kernel_items(ctx.model.kernels):
            if not isinstance(item, Loop) or item.is_parallel or item.pipeline is None:
                continue
            if item.pipeline.state is not Request.REQUESTED:
                continue
            parents = parallel_ancestors(ancestors)
            if not parents:
                continue
            outer = parents[-1]
            line = ctx.line_of(outer.site.report_node, outer.site.report_top)
            request = ", ".join(item.pipeline.reasons)
            header = ctx.text(item.call if item.call is not None else item.site.node, 50)
            ctx.report(
                item.site,
                f"`{item.api}` requests a software pipeline ({request}) inside the `T.Parallel` loop "
                f"at line {line}; a pipeline cannot be nested in a parallel region"
                f"{ctx.macro_note(item.site)}{ctx.condition_note(item.guards)}",
                caused_by=pipeline_in_parallel_root(ctx, ancestors),
                related=(enclosing_parallel(ctx, outer),),
                help=f"Make `{header}` the outer loop and put the `T.Parallel` loop of line {line} inside it, "
                "around the element-wise statements only (tile operators such as `T.copy` and `T.gemm` go "
                f"directly in the pipeline body); or drop {request} to make it a serial loop.",
            )
