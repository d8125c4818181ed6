"""Rule TL414: pypto-pipeline-step-not-constant (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoPipelineStepNotConstant(Rule):
    """A pipelined loop (stage > 1) has a step that is not a compile-time integer.

    ## What it does
    Reports a `pl.pipeline` loop with stage > 1 whose step is not a compile-time integer.

    ## Why is this bad?
    LowerPipelineLoops multiplies the step by F to build the main loop and the clone offsets; it needs an integer. (A `stage=1` loop is not lowered and may keep a runtime step.) The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.pipeline(0, 8, n, stage=2):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(0, 8, 2, stage=2):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from LowerPipelineLoops, before any target is chosen.
    """

    CODE = "TL414"
    NAME = "pypto-pipeline-step-not-constant"
    GRADE = Grade.CONTRACT
    MODEL = "pypto"
    HELP = "Use a constant step."
    CHECKLIST = Checklist(
        grade="Contract: a limitation of the current LowerPipelineLoops pass, not of the language.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports a `pl.pipeline` loop with stage > 1 whose step is not a compile-time integer.",
        smallest_invalid="for i in pl.pipeline(0, 8, n, stage=2):",
        closest_valid="for i in pl.pipeline(0, 8, 2, stage=2):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="LowerPipelineLoops",
        rewrite="Use a constant step.",
    )
    VALID = [Valid(_HEADER + "    for i in pl.pipeline(0, 8, 2, stage=2):\n        t = i\n")]
    INVALID = [
        Invalid(_HEADER + "    for i in pl.pipeline(0, 8, n, stage=2):\n        t = i\n", at=((6, 32),))
    ]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
