"""Rule TL408: pypto-unroll-dynamic-bounds (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoUnrollDynamicBounds(Rule):
    """A `pl.unroll()` loop has bounds that are not compile-time constant integers.

    ## What it does
    Reports `pl.unroll` with a bound that is a DSL variable.

    ## Why is this bad?
    Full unrolling needs the trip count at compile time. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.unroll(n):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.unroll(4):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL408"
    NAME = "pypto-unroll-dynamic-bounds"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Use constant bounds, or `pl.pipeline(..., stage=F)` for partial replication."
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports `pl.unroll` with a bound that is a DSL variable.",
        smallest_invalid="for i in pl.unroll(n):",
        closest_valid="for i in pl.unroll(4):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Use constant bounds, or `pl.pipeline(..., stage=F)` for partial replication.",
    )
    VALID = [Valid(_HEADER + "    for i in pl.unroll(4):\n        t = i\n")]
    INVALID = [Invalid(_HEADER + "    for i in pl.unroll(n):\n        t = i\n", at=((6, 14),))]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
