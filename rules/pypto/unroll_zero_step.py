"""Rule TL409: pypto-unroll-zero-step (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoUnrollZeroStep(PyptoRule):
    """A `pl.unroll()` loop has a step of zero.

    ## What it does
    Reports `pl.unroll` with a zero step.

    ## Why is this bad?
    A zero step never terminates. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.unroll(0, 4, 0):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.unroll(0, 4, 1):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL409"
    REPORTS = PyptoProblem.UNROLL_ZERO_STEP
    NAME = "pypto-unroll-zero-step"
    GRADE = Grade.SEMANTIC
    MESSAGE = "pl.unroll() step cannot be zero"
    HELP = "Use a non-zero step."
    CHECKLIST = checklist(
        shape="A `pl.unroll(start, stop, step)` loop whose step folds to 0.",
        smallest_invalid="for i in pl.unroll(0, 4, 0): ...",
        closest_valid="for i in pl.unroll(0, 4, 1): ...",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Give the step the stride the loop should advance by (`pl.unroll(0, 4, 1)`), or drop it for a step of 1.",
    )
    VALID = [Valid(example("    for i in pl.unroll(0, 4, 1):\n        t = i\n"))]
    INVALID = [Invalid(example("    for i in pl.unroll(0, 4, 0):\n        t = i\n"), at=((6, 30),))]
