"""Rule TL401: pypto-pipeline-missing-stage (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoPipelineMissingStage(PyptoRule):
    """A `pl.pipeline()` loop has no `stage=` argument.

    ## What it does
    Reports a `pl.pipeline(...)` loop without the `stage=` keyword.

    ## Why is this bad?
    PyPTO's parser rejects it: the stage factor F is what the pipeline replicates by. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.pipeline(8):
        t = pl.tile.load(a, [i * 16], [16])
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(8, stage=2):
        t = pl.tile.load(a, [i * 16], [16])
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL401"
    REPORTS = PyptoProblem.PIPELINE_MISSING_STAGE
    NAME = "pypto-pipeline-missing-stage"
    GRADE = Grade.SEMANTIC
    MESSAGE = "pl.pipeline() requires stage= (positive integer)"
    HELP = "Use pl.pipeline(stop, stage=F)."
    CHECKLIST = checklist(
        shape="A `for` over `pl.pipeline(...)` without a `stage=` keyword.",
        smallest_invalid="for i in pl.pipeline(8): ...",
        closest_valid="for i in pl.pipeline(8, stage=2): ...",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Add `stage=F` (F >= 1), or use `pl.range` for a loop that is not pipelined.",
    )
    VALID = [
        Valid(example("    for i in pl.pipeline(8, stage=2):\n        t = pl.tile.load(a, [i * 16], [16])\n"))
    ]
    INVALID = [
        Invalid(
            example("    for i in pl.pipeline(8):\n        t = pl.tile.load(a, [i * 16], [16])\n"),
            at=((6, 14),),
        )
    ]
