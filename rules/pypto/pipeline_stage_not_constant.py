"""Rule TL402: pypto-pipeline-stage-not-constant (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoPipelineStageNotConstant(PyptoRule):
    """A `pl.pipeline()` loop's `stage=` is not a compile-time constant integer.

    ## What it does
    Reports a `stage=` that is not a compile-time integer: a DSL variable, a float, a bool.

    ## Why is this bad?
    The parser must know F to build the loop; it rejects runtime or non-integer stages. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.pipeline(8, stage=n):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(8, stage=4):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL402"
    REPORTS = PyptoProblem.PIPELINE_STAGE_NOT_CONSTANT
    NAME = "pypto-pipeline-stage-not-constant"
    GRADE = Grade.SEMANTIC
    MESSAGE = "pl.pipeline() stage must be a compile-time constant integer"
    HELP = "Use an integer literal: stage=4"
    CHECKLIST = checklist(
        shape="`stage=` on a `pl.<iterator>(...)` loop whose value is a runtime scalar or not an integer.",
        smallest_invalid="for i in pl.pipeline(8, stage=n): ...",
        closest_valid="for i in pl.pipeline(8, stage=4): ...",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Use an integer literal or a module-level integer constant.",
    )
    VALID = [Valid(example("    for i in pl.pipeline(8, stage=4):\n        t = i\n"))]
    INVALID = [Invalid(example("    for i in pl.pipeline(8, stage=n):\n        t = i\n"), at=((6, 29),))]
