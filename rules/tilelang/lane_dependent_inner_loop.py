from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.tilelang.model import Loop, LoopKind
from tilecheck.tilelang.queries import depends_on, kernel_items
from tilecheck.tilelang.values import TirExpr, Value, Var

from .._examples import KERNEL
from ._loops import line

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


class LaneDependentInnerLoop(Rule):
    """A loop inside `T.vectorized` whose bounds depend on the vectorized variable.

    ## What it does
    Reports, as a note, a loop nested in a `T.vectorized` loop whose start or extent uses the
    vectorized loop's variable (directly or through assignments), e.g.
    `for i in T.vectorized(8): for k in T.serial(i): ...`. Inner loops with lane-invariant
    bounds are fine and not reported here.

    ## Why is this bad?
    Each SIMD lane `i` would run a different number of inner iterations, so the lanes cannot
    advance in lockstep: the loop needs predication or scalarization (TileLang's
    [loop rules](https://github.com/tile-ai/tilelang/blob/6ebc5ba7fe821832b0e49d699396a02b14d80a4b/.agents/skills/tilelang-semantic/references/loop-rules.md) leave it to "a separate rule"). TileLang's
    vectorizer scalarizes a loop whose extent becomes lane-dependent
    ([`src/transform/vectorize_loop.cc`](https://github.com/tile-ai/tilelang/blob/v0.1.15/src/transform/vectorize_loop.cc)), so the vectorization requested by `T.vectorized`
    does not happen. The code stays valid; never an error.

    ## Example
    ```python
    for i in T.vectorized(8):
        for k in T.serial(i + 1):
            C[i] += A[i, k]
    ```

    ## Use instead
    ```python
    for i in T.vectorized(8):
        for k in T.serial(8):
            C[i] += T.if_then_else(k <= i, A[i, k], 0)
    ```
    (a lane-invariant trip count with a predicate), or a serial outer loop.

    ## Backends
    All, and with no backend selected: every backend vectorizes through the same passes.
    """

    CODE = "TL304"
    NAME = "lane-dependent-inner-loop"
    GRADE = Grade.OPTIMIZATION
    HELP = "Give the inner loop a lane-invariant trip count and predicate its body, or make the outer loop serial."
    CHECKLIST = Checklist(
        grade="Optimization: valid code; vectorization over the lanes cannot apply (needs predication "
        "or scalarization).",
        shape="A For below a VECTORIZED For whose min or extent uses the vectorized loop_var.",
        smallest_invalid="`for i in T.vectorized(8): for k in T.serial(i): ...`",
        closest_valid="`for i in T.vectorized(8): for k in T.serial(8): ...`",
        siblings="Only loops inside the vectorized loop count.",
        neutral_wrappers="No: at any depth below the vectorized loop.",
        generated_ir="Only user-written loops.",
        proof="Proven: the bound syntactically uses the variable after constant folding (through Binds).",
        first_pass="LegalizeVectorizedLoop / VectorizeLoop (TLVectorizer).",
        rewrite="Lane-invariant bounds with a predicate, or a serial outer loop.",
    )
    VALID = [
        Valid(
            KERNEL
            + "        for i in T.vectorized(8):\n            for k in T.serial(16):\n                B[i, k] = 0\n"
        ),
        Valid(
            KERNEL
            + "        for i in T.serial(8):\n            for k in T.serial(i):\n                B[i, k] = 0\n"
        ),
    ]
    INVALID = [
        Invalid(
            KERNEL + "        for i in T.vectorized(8):\n            for k in T.serial(i + 1):\n"
            "                B[i, k] = 0\n",
            at=((8, 22),),
            message="depend on the `T.vectorized` variable `i`",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for item, ancestors in kernel_items(ctx.model.kernels):
            if not isinstance(item, Loop) or not item.certain:
                continue
            for outer in ancestors:
                if not isinstance(outer, Loop) or outer.kind is not LoopKind.VECTORIZED or outer.var is None:
                    continue
                if outer.var in _uses(item.min) | _uses(item.extent):
                    ctx.report(
                        item.site,
                        f"The bounds of this `{item.api}` loop depend on the `T.vectorized` variable "
                        f"`{outer.var.name}` (line {line(ctx, outer)}): each SIMD lane would run a different "
                        f"number of iterations, so the loop over `{outer.var.name}` cannot be vectorized "
                        f"(it needs predication or scalarization){ctx.macro_note(item.site)}",
                    )
                    break


def _uses(value: Value | None) -> frozenset[Var]:
    """The variables a bound uses, through the values of Binds."""
    return depends_on(value.uses) if isinstance(value, TirExpr) else frozenset()
