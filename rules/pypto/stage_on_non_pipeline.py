"""Rule TL404: pypto-stage-on-non-pipeline (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoStageOnNonPipeline(Rule):
    """`stage=` is given to `pl.range`, `pl.parallel` or `pl.unroll` instead of `pl.pipeline`.

    ## What it does
    Reports `stage=` on `pl.range`, `pl.parallel` or `pl.unroll`.

    ## Why is this bad?
    Only `pl.pipeline` loops are software-pipelined; the parser rejects the keyword elsewhere. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.range(8, stage=2):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(8, stage=2):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL404"
    NAME = "pypto-stage-on-non-pipeline"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Use pl.pipeline() for software pipelining."
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports `stage=` on `pl.range`, `pl.parallel` or `pl.unroll`.",
        smallest_invalid="for i in pl.range(8, stage=2):",
        closest_valid="for i in pl.pipeline(8, stage=2):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Use `pl.pipeline(..., stage=F)` or drop `stage=`.",
    )
    VALID = [Valid(_HEADER + "    for i in pl.pipeline(8, stage=2):\n        t = i\n")]
    INVALID = [Invalid(_HEADER + "    for i in pl.range(8, stage=2):\n        t = i\n", at=((6, 26),))]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
