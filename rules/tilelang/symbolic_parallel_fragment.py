from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.tilelang.queries import accesses, parallel_ancestors
from tilecheck.tilelang.values import Constness

from .._examples import KERNEL
from ._related import allocation, related

if TYPE_CHECKING:
    from tilecheck.lint.context import Context

_SYMBOLIC = KERNEL.replace(
    'B: T.Tensor((64, 64), "float32")):', 'B: T.Tensor((64, 64), "float32"), n: T.int32):'
)


class SymbolicParallelFragment(Rule):
    """A fragment indexed by the variable of a `T.Parallel` loop whose range is symbolic.

    ## What it does
    Reports a load or store of a fragment buffer (`T.alloc_fragment`) whose indices use the
    variable of an enclosing `T.Parallel` loop with a symbolic extent or start: a
    `T.dynamic` symbol, a scalar kernel parameter, a symbolic shape dimension, a block
    index such as `bx`, a `T.alloc_var` value, or any expression containing one. Constant
    extents (literals, factory integers, static shapes, `T.ceildiv` of constants) are fine,
    and so are symbolic serial loops.

    ## Why is this bad?
    Fragment layouts are inferred from the parallel loop's iteration space, and the current
    layout inference needs that space to be a compile-time constant. TileLang rejects it:
    "Loop variable ... in a T.Parallel loop with symbolic range ... is used to index a
    fragment buffer". This is a limitation of the current lowering, not of the language.

    ## Example
    ```python
    for i in T.Parallel(n):
        frag[i] = 0
    ```

    ## Use instead
    ```python
    for i in T.Parallel(64):
        if i < n:
            frag[i] = 0
    ```
    (a constant extent with a guard), or a `T.serial` loop.

    ## Backends
    All current TileLang backends share this layout-inference contract; TileLang's
    pre-lower check ([`tilelang/analysis/fragment_loop_checker.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/analysis/fragment_loop_checker.py)) rejects it.
    """

    CODE = "TL105"
    NAME = "symbolic-parallel-fragment"
    GRADE = Grade.CONTRACT
    CHECKER = "FragmentLoopChecker"
    HELP = "Give the T.Parallel loop a constant extent and guard the tail with `if`, or use T.serial."
    CHECKLIST = Checklist(
        grade="Contract: fragment layout inference needs a constant parallel range today; a future "
        "lowering could relax it.",
        shape="A fragment BufferLoad/BufferStore whose indices contain the loop_var of an enclosing "
        "PARALLEL For whose min or extent is not an IntImm.",
        smallest_invalid="`for i in T.Parallel(n): frag[i] = 0` with `n: T.int32`",
        closest_valid="`for i in T.Parallel(64): frag[i] = 0`",
        siblings="Only enclosing parallel loops count.",
        neutral_wrappers="No: reads and writes at any depth below the symbolic loop count.",
        generated_ir="Checked on the frontend's output.",
        proof="Proven only when the extent certainly contains a symbol; factory parameters of unknown "
        "type are not assumed symbolic.",
        first_pass="LayoutInference (fragment layouts from parallel loops).",
        rewrite="A constant extent with an `if` guard, or a serial loop.",
    )
    VALID = [
        Valid(
            _SYMBOLIC
            + '        frag = T.alloc_fragment((64,), "float32")\n        for i in T.Parallel(64):\n'
            "            frag[i] = 0\n"
        ),
        Valid(
            _SYMBOLIC + '        frag = T.alloc_fragment((64,), "float32")\n        for i in T.serial(n):\n'
            "            frag[i] = 0\n"
        ),
    ]
    INVALID = [
        Invalid(
            _SYMBOLIC + '        frag = T.alloc_fragment((64,), "float32")\n        for i in T.Parallel(n):\n'
            "            frag[i] = 0\n",
            at=((9, 13),),
            message="symbolic range `n`",
        ),
        Invalid(
            "import tilelang.language as T\n\n\ndef make(flag):\n    @T.prim_func\n"
            "    def main(n: T.int32):\n        with T.Kernel(1, threads=128) as bx:\n"
            '            frag = T.alloc_fragment((64,), "float32")\n            for i in T.Parallel(n):\n'
            "                if flag:\n                    frag[i] = 0\n    return main\n",
            at=((11, 21),),
            message="a constant parallel range (when `flag` is true)",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for access, statement, ancestors in accesses(ctx.model.kernels):
            if not access.buffer.is_fragment:
                continue
            for loop in parallel_ancestors(ancestors):
                if loop.constness is not Constness.SYMBOLIC or loop.var not in access.uses:
                    continue
                assert loop.var is not None and loop.call is not None
                extent = ctx.text(loop.range_node or loop.site.node)
                ctx.report(
                    access.site,
                    f"Fragment `{access.buffer.name}` is indexed by `{loop.var.name}`, the variable of a "
                    f"T.Parallel loop with symbolic range `{extent}` (line "
                    f"{ctx.line_of(loop.site.report_node, loop.site.report_top)}); fragment layouts need "
                    f"a constant parallel range{ctx.macro_note(access.site)}{ctx.condition_note(statement.guards)}",
                    related=(
                        related(ctx, loop.site, f"this `T.Parallel` loop has the symbolic range `{extent}`"),
                        *allocation(ctx, access.buffer),
                    ),
                    help=f"Give the loop a constant extent that covers `{extent}` (the tile size) and guard "
                    f"the tail: `for {loop.var.name} in T.Parallel(TILE): if {loop.var.name} < {extent}: ...`; "
                    f"or make it `T.serial({extent})`.",
                )
                break
