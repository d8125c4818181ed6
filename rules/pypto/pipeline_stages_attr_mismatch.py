"""Rule TL418: pypto-pipeline-stages-attr-mismatch (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoPipelineStagesAttrMismatch(Rule):
    """A loop that is not `pl.pipeline` carries `attrs={"pipeline_stages": ...}`.

    ## What it does
    Reports a `pl.range`/`pl.parallel`/`pl.unroll` loop carrying `attrs={"pipeline_stages": ...}`.

    ## Why is this bad?
    PyPTO's PipelineLoopValid verifier requires kind Pipeline if and only if the attribute is present; the pass ignores such a loop and the verifier rejects the program. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.range(8, attrs={"pipeline_stages": 2}):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(8, stage=2):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from PipelineLoopValid verifier, before any target is chosen.
    """

    CODE = "TL418"
    NAME = "pypto-pipeline-stages-attr-mismatch"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Use `pl.pipeline(..., stage=F)`."
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape='A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports a `pl.range`/`pl.parallel`/`pl.unroll` loop carrying `attrs={"pipeline_stages": ...}`.',
        smallest_invalid='for i in pl.range(8, attrs={"pipeline_stages": 2}):',
        closest_valid="for i in pl.pipeline(8, stage=2):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="PipelineLoopValid verifier",
        rewrite="Use `pl.pipeline(..., stage=F)`.",
    )
    VALID = [Valid(_HEADER + "    for i in pl.pipeline(8, stage=2):\n        t = i\n")]
    INVALID = [
        Invalid(
            _HEADER + '    for i in pl.range(8, attrs={"pipeline_stages": 2}):\n        t = i\n',
            at=((6, 26),),
        )
    ]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
