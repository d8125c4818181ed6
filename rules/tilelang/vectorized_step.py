from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade

from .._examples import KERNEL

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


class VectorizedStep(Rule):
    """`T.vectorized` given a step.

    ## What it does
    Reports `T.vectorized(start, stop, step)` and `T.vectorized(..., step=...)`:
    `T.vectorized` takes only `start` and `stop` (and keyword `annotations`).

    ## Why is this bad?
    TileLang's signature is `vectorized(start, stop=None, *, annotations=None)`; a third
    positional argument fails with `TypeError: vectorized() takes from 1 to 2 positional
    arguments but 3 were given` (verified with TileLang 0.1.15) and a `step` keyword with
    `TypeError: vectorized() got an unexpected keyword argument 'step'`.

    ## Example
    ```python
    for v in T.vectorized(0, 8, 2):
        B[v] = A[v]
    ```

    ## Use instead
    ```python
    for v in T.vectorized(4):
        B[v * 2] = A[v * 2]
    ```
    (a vectorized loop has unit stride; scale the index instead).

    ## Backends
    All, and with no backend selected: the kernel fails to build before any target is chosen.
    """

    CODE = "TL206"
    NAME = "vectorized-step"
    GRADE = Grade.SEMANTIC
    HELP = "Drop the step: iterate `T.vectorized(n)` and scale the index (`v * step`)."
    CHECKLIST = Checklist(
        grade="Semantic: the kernel cannot be built on any target.",
        shape="A call of T.vectorized / T.Vectorized with three positional arguments or a `step` keyword.",
        smallest_invalid="`for v in T.vectorized(0, 8, 2): ...`",
        closest_valid="`for v in T.vectorized(0, 8): ...`",
        siblings="Per loop header.",
        neutral_wrappers="No: the call itself fails.",
        generated_ir="None: the call fails before any IR exists.",
        proof="Proven: the argument count is syntactic.",
        first_pass="The Python call of tilelang.language.vectorized.",
        rewrite="Unit-stride T.vectorized with a scaled index.",
    )
    VALID = [Valid(KERNEL + "        for v in T.vectorized(0, 8):\n            B[v, 0] = 0\n")]
    INVALID = [
        Invalid(
            KERNEL + "        for v in T.vectorized(0, 8, 2):\n            B[v, 0] = 0\n",
            at=((7, 18),),
            message="takes from 1 to 2 positional arguments but 3 were given",
        ),
        Invalid(
            KERNEL + "        for v in T.vectorized(0, 8, step=2):\n            B[v, 0] = 0\n",
            at=((7, 18),),
            message="unexpected keyword argument 'step'",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for malformed in ctx.model.malformed:
            if malformed.kind != "vectorized-step" or not malformed.certain:
                continue
            if malformed.detail == "positional":
                error = "vectorized() takes from 1 to 2 positional arguments but 3 were given"
            else:
                error = "vectorized() got an unexpected keyword argument 'step'"
            ctx.report(
                malformed.site,
                f"`{malformed.api}` has no step: TileLang fails to build the loop (TypeError: {error})"
                f"{ctx.macro_note(malformed.site)}",
            )
