"""Rule TL403: pypto-pipeline-stage-not-positive (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoPipelineStageNotPositive(Rule):
    """A `pl.pipeline()` loop's `stage=` is zero or negative.

    ## What it does
    Reports `stage=` below 1.

    ## Why is this bad?
    A pipeline needs at least one stage; PyPTO's parser rejects 0 and negative values. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.pipeline(8, stage=0):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(8, stage=1):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL403"
    NAME = "pypto-pipeline-stage-not-positive"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Use a positive integer for stage: stage=4"
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports `stage=` below 1.",
        smallest_invalid="for i in pl.pipeline(8, stage=0):",
        closest_valid="for i in pl.pipeline(8, stage=1):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Use `stage=1` (no replication) or more.",
    )
    VALID = [Valid(_HEADER + "    for i in pl.pipeline(8, stage=1):\n        t = i\n")]
    INVALID = [Invalid(_HEADER + "    for i in pl.pipeline(8, stage=0):\n        t = i\n", at=((6, 29),))]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
