"""Rule TL409: pypto-unroll-zero-step (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoUnrollZeroStep(Rule):
    """A `pl.unroll()` loop has a step of zero.

    ## What it does
    Reports `pl.unroll` with a zero step.

    ## Why is this bad?
    A zero step never terminates. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.unroll(0, 4, 0):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.unroll(0, 4, 1):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL409"
    NAME = "pypto-unroll-zero-step"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Use a non-zero step."
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports `pl.unroll` with a zero step.",
        smallest_invalid="for i in pl.unroll(0, 4, 0):",
        closest_valid="for i in pl.unroll(0, 4, 1):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Use a non-zero step.",
    )
    VALID = [Valid(_HEADER + "    for i in pl.unroll(0, 4, 1):\n        t = i\n")]
    INVALID = [Invalid(_HEADER + "    for i in pl.unroll(0, 4, 0):\n        t = i\n", at=((6, 30),))]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
