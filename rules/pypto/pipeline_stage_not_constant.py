"""Rule TL402: pypto-pipeline-stage-not-constant (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoPipelineStageNotConstant(Rule):
    """A `pl.pipeline()` loop's `stage=` is not a compile-time constant integer.

    ## What it does
    Reports a `stage=` that is not a compile-time integer: a DSL variable, a float, a bool.

    ## Why is this bad?
    The parser must know F to build the loop; it rejects runtime or non-integer stages. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.pipeline(8, stage=n):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(8, stage=4):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL402"
    NAME = "pypto-pipeline-stage-not-constant"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Use an integer literal: stage=4"
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports a `stage=` that is not a compile-time integer: a DSL variable, a float, a bool.",
        smallest_invalid="for i in pl.pipeline(8, stage=n):",
        closest_valid="for i in pl.pipeline(8, stage=4):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Use an integer literal or a module constant.",
    )
    VALID = [Valid(_HEADER + "    for i in pl.pipeline(8, stage=4):\n        t = i\n")]
    INVALID = [Invalid(_HEADER + "    for i in pl.pipeline(8, stage=n):\n        t = i\n", at=((6, 29),))]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
