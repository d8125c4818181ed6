from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.tilelang.model import Loop, LoopKind
from tilecheck.tilelang.queries import kernel_items, present
from tilecheck.tilelang.values import int_value

from .._examples import KERNEL

if TYPE_CHECKING:
    from tilecheck.lint.context import Context

_STEPPED = (LoopKind.SERIAL, LoopKind.RANGE, LoopKind.UNROLLED)


class ZeroLoopStep(Rule):
    """A `T.serial`, `T.unroll` or `range` loop with a step of zero.

    ## What it does
    Reports a serial, unrolled or `range` loop in a kernel whose step is a literal or
    constant zero (`T.serial(0, 8, 0)`, `range(0, n, 0)`).

    ## Why is this bad?
    A zero step never advances. TileLang's builder rejects it when it builds the kernel:
    `ValueError: Invalid stepped serial: step must be non-zero` (verified with TileLang
    0.1.15; `range(...)` in a kernel becomes `T.serial(...)` and `T.unroll` shares the same
    code path in the builder's `ctx_for`,
    [`tilelang/language/eager/builder.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/language/eager/builder.py)).

    ## Example
    ```python
    for k in T.serial(0, 8, 0):
        B[k] = A[k]
    ```

    ## Use instead
    ```python
    for k in T.serial(0, 8, 1):
        B[k] = A[k]
    ```

    ## Backends
    All, and with no backend selected: the kernel fails to build before any target is chosen.
    """

    CODE = "TL205"
    NAME = "zero-loop-step"
    GRADE = Grade.SEMANTIC
    HELP = "Use a non-zero step (a negative step counts down)."
    CHECKLIST = Checklist(
        grade="Semantic: the kernel cannot be built on any target.",
        shape="A SerialForWithStep / UnrollForWithStep whose step is the integer 0.",
        smallest_invalid="`for k in T.serial(0, 8, 0): ...`",
        closest_valid="`for k in T.serial(8, 0, -1): ...`",
        siblings="Per loop header.",
        neutral_wrappers="No: the header itself fails.",
        generated_ir="None: the builder fails before the loop exists.",
        proof="Proven for a literal or constant step; an unknown step is not reported (TileLang only warns).",
        first_pass="The eager builder (Builder.ctx_for).",
        rewrite="A non-zero step.",
    )
    VALID = [
        Valid(KERNEL + "        for k in T.serial(8, 0, -1):\n            B[k, 0] = 0\n"),
        Valid(KERNEL + "        for k in range(0, 8, 2):\n            B[k, 0] = 0\n"),
    ]
    INVALID = [
        Invalid(
            "import tilelang.language as T\n\n\ndef make(flag):\n    @T.prim_func\n"
            '    def main(B: T.Tensor((64, 64), "float32")):\n'
            "        with T.Kernel(1, threads=128) as bx:\n            if flag:\n"
            "                for k in T.serial(0, 8, 0):\n                    B[k, 0] = 0\n    return main\n",
            at=((9, 26),),
            message="(when `flag` is true)",
        ),
        Invalid(
            KERNEL + "        for k in T.serial(0, 8, 0):\n            B[k, 0] = 0\n",
            at=((7, 18),),
            message="step must be non-zero",
        ),
        Invalid(KERNEL + "        for k in range(0, 8, 0):\n            B[k, 0] = 0\n", at=((7, 18),)),
        Invalid(
            KERNEL + "        for k in T.unroll(0, 8, step=0):\n            B[k, 0] = 0\n", at=((7, 18),)
        ),
    ]

    def check(self, ctx: Context) -> None:
        for item, _ in kernel_items(ctx.model.kernels):
            if not isinstance(item, Loop) or item.kind not in _STEPPED or not present(item):
                continue
            if item.step is None or item.dim != 0 or int_value(item.step) != 0:
                continue
            ctx.report(
                item.site,
                f"`{item.api}` with a step of 0: TileLang fails to build the loop (ValueError: Invalid stepped "
                f"serial: step must be non-zero){ctx.macro_note(item.site)}{ctx.condition_note(item.guards)}",
            )
