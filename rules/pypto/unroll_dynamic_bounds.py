"""Rule TL408: pypto-unroll-dynamic-bounds (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoUnrollDynamicBounds(PyptoRule):
    """A `pl.unroll()` loop has bounds that are not compile-time constant integers.

    ## What it does
    Reports `pl.unroll` with a bound that is a DSL variable.

    ## Why is this bad?
    Full unrolling needs the trip count at compile time. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.unroll(n):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.unroll(4):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL408"
    REPORTS = PyptoProblem.UNROLL_DYNAMIC_BOUNDS
    NAME = "pypto-unroll-dynamic-bounds"
    GRADE = Grade.SEMANTIC
    MESSAGE = "pl.unroll() requires compile-time constant integer bounds"
    HELP = "Use constant bounds, or `pl.pipeline(..., stage=F)` for partial replication."
    CHECKLIST = checklist(
        shape="A `pl.unroll(...)` loop whose start, stop or step is a runtime scalar.",
        smallest_invalid="for i in pl.unroll(n): ...",
        closest_valid="for i in pl.unroll(4): ...",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Use constant bounds, or `pl.pipeline(..., stage=F)` to replicate the body F times with runtime bounds.",
    )
    VALID = [Valid(example("    for i in pl.unroll(4):\n        t = i\n"))]
    INVALID = [Invalid(example("    for i in pl.unroll(n):\n        t = i\n"), at=((6, 14),))]
