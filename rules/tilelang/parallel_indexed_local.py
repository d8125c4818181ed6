from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Edit, Fix, Grade
from tilecheck.tilelang.queries import accesses, first_used, parallel_ancestors
from tilecheck.tilelang.values import Buffer

from .._examples import KERNEL
from ._related import allocation, related

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


class ParallelIndexedLocal(Rule):
    """A `T.alloc_local` buffer indexed by an enclosing `T.Parallel` loop variable.

    ## What it does
    Reports a load or store of a local buffer (scope exactly `local`, from
    `T.alloc_local`) whose indices use the variable of an enclosing `T.Parallel` loop,
    at any depth (inside serial or vectorized loops, conditions and call arguments too).
    An alias (`idx = i`) is still the loop variable. Accesses that do not depend on the
    parallel variable (`loc[0]`, `loc[k]` for a serial `k`) are fine.

    ## Why is this bad?
    A local buffer is private to one thread and takes no part in parallel layout
    inference, so an index that follows the parallel iteration space has no owner: each
    thread would see its own copy. TileLang rejects it: "Local buffer ... is indexed by
    T.Parallel loop variable ...".

    ## Example
    ```python
    loc = T.alloc_local((64,), "float32")
    for i in T.Parallel(64):
        loc[i] = A[i, 0]
    ```

    ## Use instead
    ```python
    frag = T.alloc_fragment((64,), "float32")
    for i in T.Parallel(64):
        frag[i] = A[i, 0]
    ```
    or index the local buffer with a `T.serial`/`T.vectorized`/`T.unroll` variable.

    ## Fix
    `tilecheck --fix --unsafe-fixes` allocates the buffer with `T.alloc_fragment` (same
    shape and dtype). The fix is unsafe because it changes where the buffer lives: a
    fragment is spread over the block's threads by layout inference, so every other use of
    the buffer (accesses indexed by serial loop variables, a `T.copy` into it, its size in
    registers) now follows the inferred layout, which may not be what the kernel meant.
    When the buffer is meant to stay per-thread, index it with a serial loop instead.

    ## Backends
    All: TileLang's pre-lower check ([`tilelang/analysis/parallel_local_index_checker.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/analysis/parallel_local_index_checker.py)) rejects it before any target is chosen.
    Releases before 0.1.14 have no such check and lower the loop (measured with 0.1.9): when
    the project's TileLang versions include them, it is a note naming the releases that reject it.
    """

    CODE = "TL104"
    NAME = "parallel-indexed-local"
    GRADE = Grade.SEMANTIC
    CHECKER = "ParallelLocalIndexChecker"
    HELP = (
        "Use T.serial/T.vectorized/T.unroll for per-thread local indexing, or T.alloc_fragment "
        "to distribute the dimension across threads."
    )
    CHECKLIST = Checklist(
        grade="Semantic: a thread-private buffer cannot be indexed by the distributed iteration space.",
        shape="A BufferLoad/BufferStore of a scope-`local` buffer whose indices contain the loop_var "
        "of an enclosing PARALLEL For.",
        smallest_invalid="`for i in T.Parallel(8): loc[i] = 0`",
        closest_valid="`for i in T.Parallel(8): for k in T.serial(4): loc[k] = A[i]`",
        siblings="Only enclosing parallel loops count; a parallel loop next to the access does not.",
        neutral_wrappers="No: serial, vectorized, unroll loops and ifs keep the parallel variable in scope.",
        generated_ir="Checked on the frontend's output; constant folding (`i * 0`) removes a use first.",
        proof="Proven: the variable occurs in the folded index. A dependence hidden behind a Bind "
        "(`t = i + 1; loc[t]`) is not reported here (TileLang accepts it).",
        first_pass="Parallel loop layout inference (LayoutInference).",
        rewrite="T.alloc_fragment for a distributed dimension, or a serial/vectorized/unroll index.",
    )
    VALID = [
        Valid(
            KERNEL + '        loc = T.alloc_local((4,), "float32")\n        for i in T.Parallel(64):\n'
            "            for k in T.serial(4):\n                loc[k] = A[i, k]\n"
        ),
        Valid(
            KERNEL
            + '        loc = T.alloc_local((4,), "float32")\n        for i in T.Parallel(64):\n            B[i, 0] = loc[0]\n'
        ),
    ]
    INVALID = [
        Invalid(
            "import tilelang.language as T\n\n\ndef make(flag):\n    @T.prim_func\n"
            '    def main(A: T.Tensor((64, 64), "float32")):\n'
            '        with T.Kernel(1, threads=128) as bx:\n            loc = T.alloc_local((64,), "float32")\n'
            "            for i in T.Parallel(64):\n                if flag:\n"
            "                    loc[i] = A[i, 0]\n    return main\n",
            at=((11, 21),),
            message="parallel layout inference (when `flag` is true)",
        ),
        Invalid(
            KERNEL + '        loc = T.alloc_local((64,), "float32")\n        for i in T.Parallel(64):\n'
            "            loc[i] = A[i, 0]\n",
            at=((9, 13),),
            message="Local buffer `loc` is indexed by T.Parallel loop variable `i`",
            fixed=KERNEL
            + '        loc = T.alloc_fragment((64,), "float32")\n        for i in T.Parallel(64):\n'
            "            loc[i] = A[i, 0]\n",
        ),
        Invalid(
            KERNEL + '        loc = T.alloc_local((64,), "float32")\n        for i in T.Parallel(64):\n'
            "            idx = i\n            B[i, 0] = loc[idx]\n",
            at=((10, 23),),
            message="loop variable `idx`",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for access, statement, ancestors in accesses(ctx.model.kernels):
            if not access.buffer.is_local:
                continue
            loop = first_used(parallel_ancestors(ancestors), access.uses)
            if loop is None or loop.var is None:
                continue
            name, var = access.buffer.name, loop.var.name
            ctx.report(
                access.site,
                f"Local buffer `{name}` is indexed by T.Parallel loop variable "
                f"`{var}`; local buffers are thread-private and do not take part in "
                f"parallel layout inference{ctx.macro_note(access.site)}{ctx.condition_note(statement.guards)}",
                fix=_fragment_fix(ctx, access.buffer),
                related=(
                    related(ctx, loop.site, f"`{var}` is the variable of this `T.Parallel` loop"),
                    *allocation(ctx, access.buffer),
                ),
                help=f"Allocate `{name}` with `T.alloc_fragment` to spread it over the threads that run "
                f"`{var}`, or index it with a `T.serial`/`T.unroll` loop variable instead of `{var}`.",
            )


def _fragment_fix(ctx: Context, buffer: Buffer) -> Fix | None:
    """Unsafe: allocate the buffer with `T.alloc_fragment` (same shape and dtype) instead.

    Unsafe because it changes where the buffer lives and how every other use of it is laid
    out; offered only for a plain `<module>.alloc_local(...)` call.
    """
    import libcst as cst  # here, not at the top: importing a rule stays free of libcst

    call = buffer.node
    if (
        buffer.api != "alloc_local"
        or buffer.top is None
        or buffer.path is not None
        or not isinstance(call, cst.Call)
    ):
        return None
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "alloc_local":
        return None
    if any(arg.keyword is not None and arg.keyword.value == "scope" for arg in call.args):
        return None
    title = f"Allocate `{buffer.name}` with `T.alloc_fragment`"
    return Fix(title, (Edit(ctx.span(func.attr, buffer.top), "alloc_fragment"),), safe=False)
