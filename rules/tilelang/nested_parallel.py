from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.tilelang.model import Item, Loop, Stmt, StmtKind
from tilecheck.tilelang.queries import chain_break, kernel_items

from .._examples import KERNEL
from ._loops import pipeline_in_parallel_root
from ._related import enclosing_parallel, related

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


class NestedParallel(Rule):
    """A `T.Parallel` loop nested in another without forming a strict chain.

    ## What it does
    Reports a `T.Parallel` loop inside another `T.Parallel` loop when the inner loop is
    not the entire body of the outer one. The message says what broke the chain: a
    statement before or after the inner loop, a sibling loop, a wrapper loop (`T.serial`,
    `T.grid`, `range`, ...), a runtime `if`, an assignment that becomes a Bind statement,
    or a macro argument that does.

    ## Why is this bad?
    Consecutive parallel loops are fused into one multi-dimensional parallel region that
    parallel lowering distributes over threads. Once anything stands between them the
    inner loop is a second, nested parallel region, which TileLang rejects with
    "Nested parallel loops are not allowed". Assignments of PrimExprs (`t = i * 2`) and
    macro expression arguments (`inner(B, i * 8)`) are statements too, although they look
    like pure Python.

    ## Example
    ```python
    for i in T.Parallel(64):
        B[i, 0] = 0
        for j in T.Parallel(64):
            B[i, j] = A[i, j]
    ```

    ## Use instead
    ```python
    for i in T.Parallel(64):
        B[i, 0] = 0
    for i, j in T.Parallel(64, 64):
        B[i, j] = A[i, j]
    ```
    When a `T.serial` (or `T.unroll`, `range`, ...) loop stands between the two, hoist it
    above the outer `T.Parallel` instead:
    ```python
    for k in T.serial(2):
        for i, j in T.Parallel(64, 32):
            B[i, j + k * 32] = 0
    ```
    A runtime `if` moves into the inner loop's body; an assignment such as `t = i * 2`
    is inlined into its uses or moved into the inner loop.

    ## Backends
    All: TileLang's pre-lower check ([`tilelang/analysis/nested_loop_checker.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/analysis/nested_loop_checker.py)) rejects it before any target is chosen.
    """

    CODE = "TL101"
    NAME = "nested-parallel"
    GRADE = Grade.SEMANTIC
    CHECKER = "NestedLoopChecker"
    HELP = (
        "Make the inner `T.Parallel` the only statement of the outer one: move other statements into "
        "a loop of their own, or fuse both loops into one `T.Parallel(M, N)`."
    )
    CHECKLIST = Checklist(
        grade="Semantic: a nested parallel region has no meaning for parallel lowering on any target.",
        shape="A PARALLEL For whose body is not exactly one PARALLEL For, with a PARALLEL For below it.",
        smallest_invalid="`for i in T.Parallel(8): B[i] = 0; for j in T.Parallel(8): ...`",
        closest_valid="`for i in T.Parallel(8): for j in T.Parallel(8): ...` (a strict chain)",
        siblings="Sibling parallel loops at the top level are independent; siblings inside a parallel "
        "loop break its chain.",
        neutral_wrappers="Yes: serial, unroll, vectorized, while, runtime if and blocks all break the "
        "chain; allocations without init, constants, aliases and Python-level if do not.",
        generated_ir="Checked on the frontend's output, before any pass generates loops.",
        proof="Proven: reported when the breaking statement certainly exists, or exists whenever the "
        "loop does under the Python-level conditions tilecheck cannot decide, or under further such "
        "conditions; the message then names them (`when `use_tc` is false`). Statements that are "
        "uncertain for any other reason are not evidence.",
        first_pass="Parallel loop layout inference (LayoutInference) and parallel lowering.",
        rewrite="Fuse into one `T.Parallel(M, N)`, move the statement out, or use `T.serial` inside.",
    )
    VALID = [
        Valid(KERNEL + "        for i, j in T.Parallel(64, 64):\n            B[i, j] = A[i, j]\n"),
        Valid(
            KERNEL + "        for i in T.Parallel(64):\n            for j in T.Parallel(64):\n"
            "                B[i, j] = A[i, j]\n"
        ),
        Valid(
            KERNEL + "        for i in T.Parallel(64):\n            ii = i\n            c = 3\n"
            "            for j in T.Parallel(64):\n                B[ii, j] = A[c, j]\n"
        ),
        Valid(
            KERNEL
            + "        for i in T.serial(64):\n            for j in T.Parallel(64):\n                B[i, j] = 0\n"
        ),
    ]
    INVALID = [
        Invalid(
            KERNEL + "        for i in T.Parallel(64):\n            B[i, 0] = 0\n"
            "            for j in T.Parallel(64):\n                B[i, j] = A[i, j]\n",
            at=((9, 22),),
            message="the statement `B[i, 0] = 0` (line 8)",
        ),
        Invalid(
            KERNEL + "        for i in T.Parallel(64):\n            for k in T.serial(2):\n"
            "                for j in T.Parallel(32):\n                    B[i, j + k * 32] = 0\n",
            at=((9, 26),),
            message="inside a `T.serial` loop (line 8)",
        ),
        Invalid(
            KERNEL + "        for i in T.Parallel(64):\n            t = i * 2\n"
            "            for j in T.Parallel(32):\n                B[t, j] = 0\n",
            at=((9, 22),),
            message="Bind statement",
        ),
        Invalid(
            "import tilelang.language as T\n\n\ndef make(use_tc):\n    @T.prim_func\n"
            '    def main(B: T.Tensor((64, 64), "float32")):\n'
            "        with T.Kernel(1, threads=128) as bx:\n            for i in T.Parallel(64):\n"
            "                if use_tc:\n                    pass\n                else:\n"
            "                    B[i, 0] = 0\n                    for j in T.Parallel(64):\n"
            "                        B[i, j] = 0\n    return main\n",
            at=((13, 30),),
            message="(when `use_tc` is false)",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for item, ancestors in kernel_items(ctx.model.kernels):
            if not isinstance(item, Loop):
                continue
            found = chain_break(item, ancestors)
            if found is None:
                continue
            outer_line = ctx.line_of(found.outer.site.report_node, found.outer.site.report_top)
            breaker = found.breakers[-1] if found.wrapper else found.breakers[0]
            unrolled = not found.wrapper and _same_source(breaker, item)
            if found.wrapper:
                reason = f"it is inside {describe(ctx, breaker)}"
                label = "this wraps the inner `T.Parallel` loop"
            elif unrolled:
                reason = (
                    "a Python-level `for` over a list unrolls it into several sibling loops at build time"
                )
                label = "another copy of the same loop"
            else:
                reason = f"the outer body also contains {describe(ctx, breaker)}"
                label = "this breaks the chain"
            ctx.report(
                item.site,
                f"Nested `T.Parallel` loop: it does not form a strict chain with the enclosing "
                f"`T.Parallel` at line {outer_line}, because {reason}{ctx.macro_note(item.site)}"
                f"{ctx.condition_note(found.when)}",
                caused_by=pipeline_in_parallel_root(ctx, ancestors),
                related=(enclosing_parallel(ctx, found.outer), related(ctx, breaker.site, label)),
                help=rewrite(ctx, breaker, wrapper=found.wrapper, unrolled=unrolled),
            )


def rewrite(ctx: Context, breaker: Item, *, wrapper: bool, unrolled: bool) -> str:
    """The rewrite that fits what broke the chain."""
    if unrolled:
        return (
            "Fuse each unrolled copy with the outer loop (`T.Parallel(M, N)`), or replace the Python "
            "`for` over a list by a `T.unroll` loop above the outer `T.Parallel`."
        )
    site = breaker.site
    if isinstance(breaker, Loop) and breaker.is_parallel:
        return (
            "Give each inner `T.Parallel` its own outer loop: split the outer loop so that every pair "
            "fuses into one `T.Parallel(M, N)`."
        )
    if isinstance(breaker, Loop):
        header = ctx.text(breaker.call if breaker.call is not None else site.node, 40)
        return (
            f"Hoist the `{header}` loop above the outer `T.Parallel`, so that the two `T.Parallel` loops "
            f"form a chain (or fuse into one `T.Parallel(M, N)`); or make the outer loop `T.serial`."
        )
    assert isinstance(breaker, Stmt)
    if breaker.kind is StmtKind.IF and wrapper:
        return (
            "Move the condition into the inner loop's body (`for j in T.Parallel(N): if cond: ...`), so "
            "that the inner `T.Parallel` is the only statement of the outer one."
        )
    if breaker.kind in (StmtKind.WHILE, StmtKind.BLOCK) and wrapper:
        return (
            "Move the `while`/`with` statement outside the outer `T.Parallel`, or fuse the loops inside it."
        )
    if breaker.kind is StmtKind.MACRO_BIND and not site.origin:
        return (
            f"Pass a loop variable or a buffer to the macro and compute `{ctx.text(site.node, 30)}` inside "
            "it: an expression argument becomes a Bind statement between the loops."
        )
    if site.origin:
        return (
            f"Move the statement out of macro `{site.origin[-1].name}` (into a loop of its own), or call the "
            "macro outside the outer `T.Parallel`."
        )
    if breaker.kind is StmtKind.BIND:
        return (
            f"Inline `{ctx.text(site.node, 30)}` into its uses, or move it into the inner loop's body, where "
            "it no longer stands between the two loops."
        )
    return (
        f"Move `{ctx.text(site.node, 40)}` into a `T.Parallel` loop of its own, then fuse the remaining pair "
        "into one `T.Parallel(M, N)`."
    )


def describe(ctx: Context, item: Item) -> str:
    """What a chain-breaking item is, for the message."""
    site = item.site
    line = ctx.line_of(site.report_node, site.report_top)
    if isinstance(item, Loop):
        if item.is_parallel:
            return f"a sibling `T.Parallel` loop (line {line})"
        return f"a `{item.api}` loop (line {line})"
    assert isinstance(item, Stmt)
    kind = item.kind
    if kind is StmtKind.MACRO_BIND and not site.origin:
        return (
            f"the macro argument `{ctx.text(site.node)}` (line {line}, bound to parameter `{item.label}`), "
            f"which becomes a Bind statement"
        )
    if site.origin:
        return f"a statement of macro `{site.origin[-1].name}` called at line {line}"
    if kind is StmtKind.BIND:
        return f"the assignment `{ctx.text(site.node)}` (line {line}), which becomes a Bind statement"
    if kind is StmtKind.IF:
        return f"a runtime `if` (line {line})" if not item.label else f"{item.label} (line {line})"
    if kind is StmtKind.WHILE:
        return f"a `while` loop (line {line})"
    if kind is StmtKind.BLOCK:
        return f"a `with` block (line {line})"
    if kind is StmtKind.EVAL:
        return f"`{ctx.text(site.node)}` (line {line}), which emits a statement"
    return f"the statement `{ctx.text(site.node)}` (line {line})"


def _same_source(other: Item, loop: Loop) -> bool:
    """Another copy of the same loop inlined through the same calls: Python-level unrolling."""
    if not isinstance(other, Loop) or other.site.node is not loop.site.node:
        return False
    calls = [call.call for call in loop.site.origin]
    return [call.call for call in other.site.origin] == calls
