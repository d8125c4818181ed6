"""Rule TL411: pypto-bare-yield-with-init-values (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoBareYieldWithInitValues(PyptoRule):
    """A loop with `init_values` yields with a bare `pl.yield_(...)` instead of an assignment.

    ## What it does
    Reports a bare `pl.yield_(...)` statement in a loop with `init_values`.

    ## Why is this bad?
    The assignment's left side names the values after the loop; without it they are lost. The message is PyPTO's own.

    ## Example
    ```python
    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):
        pl.yield_(x)
    ```

    ## Use instead
    ```python
    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):
        r = pl.yield_(x)
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL411"
    REPORTS = PyptoProblem.BARE_YIELD_WITH_INIT_VALUES
    NAME = "pypto-bare-yield-with-init-values"
    GRADE = Grade.SEMANTIC
    MESSAGE = "Loop with init_values requires an assignment-form pl.yield_(...) — the LHS supplies the post-loop binding name. Bare pl.yield_(...) is rejected here."
    HELP = "Write `r = pl.yield_(...)`."
    CHECKLIST = checklist(
        shape="An expression statement `pl.yield_(...)` directly in the body of a loop with `init_values=`.",
        smallest_invalid="for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)): pl.yield_(x)",
        closest_valid="for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)): r = pl.yield_(x)",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Assign the yield: `r = pl.yield_(x)` names the values after the loop.",
    )
    VALID = [
        Valid(
            example(
                "    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        r = pl.yield_(x)\n"
            )
        )
    ]
    INVALID = [
        Invalid(
            example("    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        pl.yield_(x)\n"),
            at=((7, 9),),
        )
    ]
