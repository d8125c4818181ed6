"""Rule TL410: pypto-loop-target-not-tuple (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoLoopTargetNotTuple(PyptoRule):
    """A loop with `init_values` has a target that is not an `i, (iter_args...)` tuple.

    ## What it does
    Reports a loop with `init_values` whose target is not `i, (iter_args...)`.

    ## Why is this bad?
    The iter_args need names. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.pipeline(4, stage=2, init_values=(s0,)):
        x = pl.yield_(i)
    ```

    ## Use instead
    ```python
    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):
        y = pl.yield_(x)
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL410"
    REPORTS = PyptoProblem.LOOP_TARGET_NOT_TUPLE
    NAME = "pypto-loop-target-not-tuple"
    GRADE = Grade.SEMANTIC
    MESSAGE = "For loop target must be a tuple when init_values is provided"
    HELP = "Write `for i, (acc,) in ...`."
    CHECKLIST = checklist(
        shape="A `for` whose iterator has `init_values=` and whose target is a plain name.",
        smallest_invalid="for i in pl.pipeline(4, stage=2, init_values=(s0,)): x = pl.yield_(i)",
        closest_valid="for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)): y = pl.yield_(x)",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Write the target as `i, (acc,)`: the loop variable, then one name per init value.",
    )
    VALID = [
        Valid(
            example(
                "    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        y = pl.yield_(x)\n"
            )
        )
    ]
    INVALID = [
        Invalid(
            example("    for i in pl.pipeline(4, stage=2, init_values=(s0,)):\n        x = pl.yield_(i)\n"),
            at=((6, 9),),
        )
    ]
