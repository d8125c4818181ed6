from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.tilelang.model import Loop, LoopKind, walk
from tilecheck.tilelang.queries import kernel_items
from tilecheck.tilelang.values import int_value

from .._examples import KERNEL
from ._loops import backend, line

if TYPE_CHECKING:
    from tilecheck.lint.context import Context

_WARNING = (
    "Warning: T.vectorized loop over `{var}` with extent {extent} is lowered as a serial loop because "
    "TileLang could not find a valid vectorization plan."
)


class OuterVectorized(Rule):
    """A `T.vectorized` loop that contains another loop: TileLang vectorizes only innermost loops.

    ## What it does
    Reports, as a note, a `T.vectorized` loop whose body contains a loop. This is valid
    TileLang (`T.vectorized` need not be a leaf; a lane-invariant inner loop runs for each
    SIMD lane), but the outer loop itself will not be vectorized.

    ## Why is this bad?
    TileLang's `VectorizePlanner` "must analysis vectorization on the innermost loop": every
    backend's `LegalizeVectorizedLoop` turns the `T.vectorized` loop into a serial one and
    plans only the innermost loop (verified with TileLang 0.1.15;
    [`src/transform/loop_vectorize.cc`](https://github.com/tile-ai/tilelang/blob/v0.1.15/src/transform/loop_vectorize.cc),
    [`src/transform/legalize_vectorized_loop.cc`](https://github.com/tile-ai/tilelang/blob/v0.1.15/src/transform/legalize_vectorized_loop.cc)). Either vectorization moves to the
    inner loop, or no plan is found and the whole nest runs serially with TileLang's warning
    "T.vectorized loop over `i` with extent 8 is lowered as a serial loop because TileLang
    could not find a valid vectorization plan." Never an error.

    ## Example
    ```python
    for i in T.vectorized(8):
        for k in T.serial(16):
            C[i] += A[i, k] * B[k]
    ```

    ## Use instead
    ```python
    for k in T.serial(16):
        for i in T.vectorized(8):
            C[i] += A[i, k] * B[k]
    ```
    (make the vectorized loop the innermost one), or keep the nest if serial execution is
    intended.

    ## Backends
    All shipped profiles (each runs `LegalizeVectorizedLoop`) and no backend; silent for a
    user profile with `vectorize_innermost_only = false`.
    """

    CODE = "TL303"
    NAME = "outer-vectorized"
    GRADE = Grade.OPTIMIZATION
    HELP = "Make the `T.vectorized` loop the innermost loop, or accept that this loop runs serially."
    CHECKLIST = Checklist(
        grade="Optimization: valid code (no rule that T.vectorized must be a leaf); vectorization of the "
        "outer loop does not apply.",
        shape="A VECTORIZED For whose body contains another For.",
        smallest_invalid="`for i in T.vectorized(8): for k in T.serial(16): C[i] += A[i, k]`",
        closest_valid="`for k in T.serial(16): for i in T.vectorized(8): C[i] += A[i, k]`",
        siblings="Only loops inside the vectorized loop count.",
        neutral_wrappers="No: a loop at any depth below makes the vectorized loop non-innermost.",
        generated_ir="TileLang prints the same warning for vectorized loops it generates; only "
        "user-written loops are reported.",
        proof="Proven: the inner loop certainly exists; whether a plan moves inward is not claimed.",
        first_pass="LegalizeVectorizedLoop (VectorizePlanner).",
        rewrite="Make the vectorized loop innermost.",
    )
    VALID = [
        Valid(KERNEL + "        for i in T.vectorized(8):\n            B[i, 0] = A[i, 0]\n"),
        Valid(
            KERNEL
            + "        for k in T.serial(16):\n            for i in T.vectorized(8):\n                B[i, k] = 0\n"
        ),
    ]
    INVALID = [
        Invalid(
            KERNEL + "        for i in T.vectorized(8):\n            for k in T.serial(16):\n"
            "                B[i, 0] += A[i, k]\n",
            at=((7, 18),),
            message="with extent 8 is lowered as a serial loop",
        ),
        Invalid(
            KERNEL + "        for i in T.vectorized(8):\n            for k in T.serial(16):\n"
            "                B[i, 0] += A[i, k]\n",
            at=((7, 18),),
            backend="cpu",
        ),
    ]

    def check(self, ctx: Context) -> None:
        profile = backend(ctx)
        if profile is not None and not profile.vectorize_innermost_only:
            return
        for item, ancestors in kernel_items(ctx.model.kernels):
            if not isinstance(item, Loop) or item.kind is not LoopKind.VECTORIZED or not item.certain:
                continue
            if not all(ancestor.certain for ancestor in ancestors):
                continue
            inner = next(
                (
                    child
                    for child, between in walk(item.body)
                    if isinstance(child, Loop) and child.certain and all(b.certain for b in between)
                ),
                None,
            )
            if inner is None or item.var is None:
                continue
            extent = int_value(item.extent) if item.extent is not None else None
            warning = _WARNING.format(var=item.var.name, extent=extent if extent is not None else "N")
            ctx.report(
                item.site,
                f"This `T.vectorized` loop over `{item.var.name}` contains a loop (`{inner.api}`, line "
                f"{line(ctx, inner)}): TileLang plans vectorization on the innermost loop only, so the loop over "
                f"`{item.var.name}` runs serially; vectorization may move to the inner loop, or TileLang finds no "
                f'plan and warns: "{warning}"{ctx.macro_note(item.site)}',
            )
