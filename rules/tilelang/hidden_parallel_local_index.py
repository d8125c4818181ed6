from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.tilelang.model import Access, Item, Stmt
from tilecheck.tilelang.queries import depends_on, first_used, kernel_items, parallel_ancestors
from tilecheck.tilelang.values import VarKind

from .._examples import KERNEL
from ._related import allocation, related

if TYPE_CHECKING:
    from tilecheck.lint.context import Context

_LOC = '        loc = T.alloc_local((64,), "float32")\n'


class HiddenParallelLocalIndex(Rule):
    """A local buffer indexed by a `T.Parallel` variable hidden behind an assignment or a macro argument.

    ## What it does
    Reports a load or store of a `T.alloc_local` buffer, inside a `T.Parallel` loop, whose
    index does not name the parallel loop variable but a variable computed from it: an
    assignment of an expression (`idx = i + 1; loc[idx - 1]`), a chain of them, or a macro
    parameter bound to an expression argument (`put(loc, i * 2, x)` with
    `loc[pos] = x` in the macro). Direct uses are `parallel-indexed-local` (TL104).

    ## Why is this bad?
    It is the same ownership violation as TL104: a thread-private buffer indexed by the
    distributed iteration space. **TileLang's checker does not catch it**: the assignment or
    macro argument becomes a Bind statement, and its `ParallelLocalIndexChecker` only looks
    for the loop variable itself in the index, so the Bind hides the dependence
    ([`tilelang/analysis/parallel_local_index_checker.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/analysis/parallel_local_index_checker.py);
    verified with TileLang 0.1.15: `idx = i + 1; loc[idx - 1]` passes, `put(loc, i*2, A[i])` passes). The kernel
    builds, but each thread indexes its own copy of `loc` by a value that follows the
    parallel iteration, which is not what the code says.

    ## Example
    ```python
    loc = T.alloc_local((64,), "float32")
    for i in T.Parallel(64):
        idx = i + 1
        loc[idx - 1] = A[i]
    ```

    ## Use instead
    ```python
    frag = T.alloc_fragment((64,), "float32")
    for i in T.Parallel(64):
        frag[i] = A[i]
    ```
    or index the local buffer by a `T.serial`/`T.vectorized`/`T.unroll` variable.

    ## Backends
    All, and with no backend selected: ownership does not depend on the target.
    """

    CODE = "TL208"
    NAME = "hidden-parallel-local-index"
    GRADE = Grade.SEMANTIC
    HELP = (
        "Use T.alloc_fragment to distribute the indexed dimension across threads, or index the local "
        "buffer with a T.serial/T.vectorized/T.unroll variable."
    )
    CHECKLIST = Checklist(
        grade="Semantic: the same ownership violation as TL104, only hidden from TileLang's checker.",
        shape="A BufferLoad/BufferStore of a scope-`local` buffer below a PARALLEL For whose indices use a "
        "Bind variable whose value (transitively) uses that For's loop_var.",
        smallest_invalid="`for i in T.Parallel(8): t = i + 1; loc[t - 1] = 0`",
        closest_valid="`for i in T.Parallel(8): t = i + 1; frag[t - 1] = 0` (a fragment)",
        siblings="Only enclosing parallel loops count.",
        neutral_wrappers="No: serial, vectorized and unroll loops and ifs keep the parallel variable in scope.",
        generated_ir="Checked on the frontend's output; folded expressions (`i * 0`) carry no dependence.",
        proof="Proven: the Bind's value syntactically uses the loop variable after constant folding.",
        first_pass="Parallel loop layout inference (LayoutInference); TileLang's pre-lower check misses it.",
        rewrite="T.alloc_fragment for a distributed dimension, or a serial/vectorized/unroll index.",
    )
    VALID = [
        Valid(
            KERNEL
            + _LOC
            + "        for i in T.Parallel(64):\n            idx = i\n            B[i, 0] = loc[idx]\n"
        ),
        Valid(
            KERNEL + _LOC + "        for i in T.Parallel(64):\n            for k in T.serial(4):\n"
            "                t = k + 1\n                loc[t] = A[i, k]\n"
        ),
    ]
    INVALID = [
        Invalid(
            KERNEL + _LOC + "        for i in T.Parallel(64):\n            idx = i + 1\n"
            "            loc[idx - 1] = A[i, 0]\n",
            at=((10, 13),),
            message="TileLang's checker does not catch this",
        ),
        Invalid(
            "import tilelang.language as T\n\n\n@T.macro\ndef put(buf, pos, value):\n    buf[pos] = value\n\n\n"
            "@T.prim_func\n"
            'def main(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32")):\n'
            "    with T.Kernel(1, threads=128) as bx:\n" + _LOC + "        for i in T.Parallel(32):\n"
            "            put(loc, i * 2, A[i, 0])\n",
            at=((14, 13),),
            message="`pos`",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for item, ancestors in kernel_items(ctx.model.kernels):
            if not isinstance(item, Stmt) or not item.certain or not all(a.certain for a in ancestors):
                continue
            for access in item.accesses:
                if access.buffer.is_local:
                    self.check_access(ctx, access, ancestors)

    def check_access(self, ctx: Context, access: Access, ancestors: tuple[Item, ...]) -> None:
        parents = parallel_ancestors(ancestors)
        if not parents or first_used(parents, access.uses) is not None:
            return  # no parallel loop, or a direct use (parallel-indexed-local)
        for bind in sorted(access.uses, key=lambda var: var.name):
            if bind.kind is not VarKind.BIND:
                continue
            loop = first_used(parents, depends_on(bind.hidden))
            if loop is None or loop.var is None:
                continue
            ctx.report(
                access.site,
                f"Local buffer `{access.buffer.name}` is indexed by `{bind.name}`, which is computed from "
                f"T.Parallel loop variable `{loop.var.name}`; TileLang's checker does not catch this because "
                f"the assignment becomes a Bind statement that hides the loop variable, but the index still "
                f"follows the parallel iteration of a thread-private buffer{ctx.macro_note(access.site)}",
                related=(
                    related(ctx, loop.site, f"`{loop.var.name}` is the variable of this `T.Parallel` loop"),
                    *allocation(ctx, access.buffer),
                ),
                help=f"Allocate `{access.buffer.name}` with `T.alloc_fragment` to spread it over the threads "
                f"that run `{loop.var.name}`, or index it with a `T.serial`/`T.unroll` loop variable.",
            )
            return
