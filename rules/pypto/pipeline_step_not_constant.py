"""Rule TL414: pypto-pipeline-step-not-constant (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import CONTRACT, PyptoRule, checklist, example


class PyptoPipelineStepNotConstant(PyptoRule):
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
    REPORTS = PyptoProblem.PIPELINE_STEP_NOT_CONSTANT
    NAME = "pypto-pipeline-step-not-constant"
    GRADE = Grade.CONTRACT
    MESSAGE = "LowerPipelineLoops: step must be a compile-time integer constant, got {type_name}"
    HELP = "Use a constant step."
    CHECKLIST = checklist(
        grade=CONTRACT,
        shape="A `pl.pipeline(start, stop, step, stage>1)` loop whose step is a runtime scalar or a non-integer.",
        smallest_invalid="for i in pl.pipeline(0, 8, n, stage=2): ...",
        closest_valid="for i in pl.pipeline(0, 8, 2, stage=2): ...",
        first_pass="LowerPipelineLoops",
        rewrite="Use a constant step (a literal or a module-level integer constant); keep a runtime stride inside the body (`i * n`).",
    )
    VALID = [Valid(example("    for i in pl.pipeline(0, 8, 2, stage=2):\n        t = i\n"))]
    INVALID = [
        Invalid(example("    for i in pl.pipeline(0, 8, n, stage=2):\n        t = i\n"), at=((6, 32),))
    ]
