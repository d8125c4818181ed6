"""Rule TL416: pypto-pipeline-dynamic-negative-step (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import CONTRACT, PyptoRule, checklist, example


class PyptoPipelineDynamicNegativeStep(PyptoRule):
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
    REPORTS = PyptoProblem.PIPELINE_DYNAMIC_NEGATIVE_STEP
    NAME = "pypto-pipeline-dynamic-negative-step"
    GRADE = Grade.CONTRACT
    MESSAGE = "LowerPipelineLoops: dynamic bounds require a positive step, got {step}. Use static bounds for negative-step loops."
    HELP = "Use static bounds, or count upwards and index with `stop - 1 - i`."
    CHECKLIST = checklist(
        grade=CONTRACT,
        shape="A `pl.pipeline(start, stop, step, stage>1)` loop with a negative constant step and a runtime start or stop.",
        smallest_invalid="for i in pl.pipeline(n, 0, -1, stage=2): ...",
        closest_valid="for i in pl.pipeline(8, 0, -1, stage=2): ...",
        first_pass="LowerPipelineLoops",
        rewrite="Count upwards with a positive step and index from the end: `for i in pl.pipeline(0, n, 1, stage=2): j = n - 1 - i`; or make both bounds constants.",
    )
    VALID = [Valid(example("    for i in pl.pipeline(8, 0, -1, stage=2):\n        t = i\n"))]
    INVALID = [
        Invalid(example("    for i in pl.pipeline(n, 0, -1, stage=2):\n        t = i\n"), at=((6, 32),))
    ]
