"""Rule TL415: pypto-pipeline-zero-step (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoPipelineZeroStep(PyptoRule):
    """A pipelined loop (stage > 1) has a step of zero.

    ## What it does
    Reports a `pl.pipeline` loop with stage > 1 and a zero step.

    ## Why is this bad?
    A zero step has no trip count; the pass rejects it. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.pipeline(0, 8, 0, stage=2):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(0, 8, 1, stage=2):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from LowerPipelineLoops, before any target is chosen.
    """

    CODE = "TL415"
    REPORTS = PyptoProblem.PIPELINE_ZERO_STEP
    NAME = "pypto-pipeline-zero-step"
    GRADE = Grade.SEMANTIC
    MESSAGE = "LowerPipelineLoops: step cannot be zero"
    HELP = "Use a non-zero step."
    CHECKLIST = checklist(
        shape="A `pl.pipeline(start, stop, step, stage>1)` loop whose step folds to 0.",
        smallest_invalid="for i in pl.pipeline(0, 8, 0, stage=2): ...",
        closest_valid="for i in pl.pipeline(0, 8, 1, stage=2): ...",
        first_pass="LowerPipelineLoops",
        rewrite="Give the step the stride the loop should advance by (`pl.pipeline(0, 8, 1, stage=2)`), or drop it for a step of 1.",
    )
    VALID = [Valid(example("    for i in pl.pipeline(0, 8, 1, stage=2):\n        t = i\n"))]
    INVALID = [
        Invalid(example("    for i in pl.pipeline(0, 8, 0, stage=2):\n        t = i\n"), at=((6, 32),))
    ]
