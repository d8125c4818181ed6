"""Rule TL403: pypto-pipeline-stage-not-positive (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoPipelineStageNotPositive(PyptoRule):
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
    REPORTS = PyptoProblem.PIPELINE_STAGE_NOT_POSITIVE
    NAME = "pypto-pipeline-stage-not-positive"
    GRADE = Grade.SEMANTIC
    MESSAGE = "pl.pipeline() stage must be >= 1, got {value}"
    HELP = "Use a positive integer for stage: stage=4"
    CHECKLIST = checklist(
        shape="`stage=` on a `pl.<iterator>(...)` loop whose value folds to an integer below 1.",
        smallest_invalid="for i in pl.pipeline(8, stage=0): ...",
        closest_valid="for i in pl.pipeline(8, stage=1): ...",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Use `stage=1` (no replication) or more.",
    )
    VALID = [Valid(example("    for i in pl.pipeline(8, stage=1):\n        t = i\n"))]
    INVALID = [Invalid(example("    for i in pl.pipeline(8, stage=0):\n        t = i\n"), at=((6, 29),))]
