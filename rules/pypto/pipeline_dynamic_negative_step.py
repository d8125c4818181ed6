"""Rule TL416: pypto-pipeline-dynamic-negative-step (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoPipelineDynamicNegativeStep(Rule):
    """A pipelined loop with runtime bounds has a negative step.

    ## What it does
    Reports a pipelined loop with runtime bounds and a negative step.

    ## Why is this bad?
    The pass's dynamic trip-count formula assumes a positive step; negative steps need static bounds. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.pipeline(n, 0, -1, stage=2):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(8, 0, -1, stage=2):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from LowerPipelineLoops, before any target is chosen.
    """

    CODE = "TL416"
    NAME = "pypto-pipeline-dynamic-negative-step"
    GRADE = Grade.CONTRACT
    MODEL = "pypto"
    HELP = "Use static bounds, or count upwards and index with `stop - 1 - i`."
    CHECKLIST = Checklist(
        grade="Contract: a limitation of the current LowerPipelineLoops pass, not of the language.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports a pipelined loop with runtime bounds and a negative step.",
        smallest_invalid="for i in pl.pipeline(n, 0, -1, stage=2):",
        closest_valid="for i in pl.pipeline(8, 0, -1, stage=2):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="LowerPipelineLoops",
        rewrite="Use static bounds, or count upwards and index with `stop - 1 - i`.",
    )
    VALID = [Valid(_HEADER + "    for i in pl.pipeline(8, 0, -1, stage=2):\n        t = i\n")]
    INVALID = [
        Invalid(_HEADER + "    for i in pl.pipeline(n, 0, -1, stage=2):\n        t = i\n", at=((6, 32),))
    ]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
